"""`scriptorium/offline`: a deterministic model behind the same seam as a real one (model.py).

It speaks the same tool-calling protocol as a real model: each completion looks at
the conversation so far (the task, the tool calls it already made and their results)
and returns the next tool calls, or a final answer. So the agent loop, the tools and
the transaction run exactly as they do with a real model.

As a writer it files one cited block per user/assistant exchange under a topic named
after the exchange's most frequent keyword (an existing topic when one matches),
citing the exchange's records with writer-local labels `[^e1]` that the transaction
turns into permanent ids. As an organizer (offered `retire_block`) it merges blocks
whose claims are identical: the first one stays, the others are removed and retired
with a reason, and links to them are repointed. Offered no tools (a plain chat), it
says that no language model is configured and echoes what it heard.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .keywords import keywords, slug
from .model import OFFLINE_MODEL, Reply, Step, register_provider

CLAIM_CHARS = {"user": 220, "assistant": 320}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_LISTED = re.compile(r"^(.+?\.md)  \(\d+ bytes\)$")


@dataclass
class _Item:
    ref: str
    role: str
    content: str
    time: str


@dataclass
class _Exchange:
    items: list[_Item] = field(default_factory=list)

    def text(self, role: str) -> str:
        return " ".join(i.content for i in self.items if i.role == role)


@dataclass
class _Call:
    name: str
    arguments: dict[str, Any]
    result: str | None


class OfflineModel:
    """The built-in deterministic writer and organizer (a `ChatModel`)."""

    def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 timeout: float) -> Reply:
        names = {t["function"]["name"] for t in tools}
        calls = _history(messages)
        if not names:
            step: Step = _chat_reply(messages)
        elif "retire_block" in names:
            step = _organize_step(calls)
        else:
            step = _write_step(_task(messages), calls)
        return Reply.of(step, len(calls))


register_provider(OFFLINE_MODEL.split("/", 1)[0], OfflineModel())


# -- plain chat (no tools offered) ---------------------------------------------------------


def _chat_reply(messages: list[dict[str, Any]]) -> str:
    """Without a real model there is nothing to say; say so, and echo what was heard."""
    last = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    heard = " ".join(str(last).split())
    heard = heard if len(heard) <= 200 else heard[:199] + "\u2026"
    return f"(offline model: no language model is configured) Noted: “{heard}”"


# -- reading the conversation ------------------------------------------------------------


def _task(messages: list[dict[str, Any]]) -> str:
    return next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")


def _history(messages: list[dict[str, Any]]) -> list[_Call]:
    """Every tool call made so far, with its result."""
    results = {m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"}
    calls = []
    for m in messages:
        for c in m.get("tool_calls") or []:
            fn, cid = c["function"], c["id"]
            name, raw = fn["name"], fn["arguments"]
            try:
                arguments = json.loads(raw) if isinstance(raw, str) else dict(raw)
            except ValueError:
                arguments = {}
            calls.append(_Call(name, arguments, results.get(cid)))
    return calls


def _items(task: str) -> list[_Item]:
    """The records of the task: JSON lines with a `ref` (a repair task repeats them)."""
    out: dict[str, _Item] = {}
    for line in task.splitlines():
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("ref"), str) and isinstance(doc.get("content"), str):
            out.setdefault(doc["ref"], _Item(doc["ref"], str(doc.get("role") or "user"), doc["content"],
                                             str(doc.get("time") or "undated")))
    return list(out.values())


def _exchanges(items: list[_Item]) -> list[_Exchange]:
    """A user record opens an exchange; the replies that follow belong to it."""
    out: list[_Exchange] = []
    for item in items:
        if item.role == "user" or not out:
            out.append(_Exchange())
        out[-1].items.append(item)
    return out


def _listed(calls: list[_Call]) -> list[str] | None:
    for call in calls:
        if call.name == "list_files" and call.result is not None:
            return [m.group(1) for line in call.result.splitlines() if (m := _LISTED.match(line))]
    return None


def _reads(calls: list[_Call]) -> dict[str, str]:
    return {c.arguments.get("path", ""): c.result for c in calls
            if c.name == "read_file" and c.result is not None and not c.result.startswith("error:")}


def _finished(calls: list[_Call], names: tuple[str, ...]) -> str | None:
    """The final answer once the writing calls were made (errors reported as they came)."""
    done = [c for c in calls if c.name in names]
    if not done:
        return None
    errors = [c.result for c in done if c.result and c.result.startswith("error:")]
    if errors:
        return "Some edits failed: " + "; ".join(errors)
    return "Done: " + "; ".join(c.result or "" for c in done)


# -- writer ------------------------------------------------------------------------------


def _write_step(task: str, calls: list[_Call]) -> Step:
    answer = _finished(calls, ("write_file",))
    if answer is not None:
        return answer
    items = _items(task)
    if not items:
        return "There are no records to write."
    listed = _listed(calls)
    if listed is None:
        return [("list_files", {})]
    exchanges = _exchanges(items)
    existing = {p: p for p in listed}
    by_stem = {p.rsplit("/", 1)[-1][:-3]: p for p in listed}
    plan: dict[str, list[_Exchange]] = {}
    for exchange in exchanges:
        words = keywords(exchange.text("user") + " " + exchange.text("assistant"))
        path = next((by_stem[slug(w)] for w in words[:8] if slug(w) in by_stem), None)
        if path is None:
            path = f"{slug(words[0]) if words else 'notes'}.md"
            by_stem[path[:-3]] = path
        plan.setdefault(path, []).append(exchange)
    reads = _reads(calls)
    missing = [p for p in plan if p in existing and p not in reads]
    if missing:
        return [("read_file", {"path": p}) for p in missing]
    label = 0
    writes = []
    for path, group in plan.items():
        parts = [reads[path].rstrip("\n")] if path in reads else [f"# {_title(path)}"]
        for exchange in group:
            label += 1
            parts.append(_block(exchange, f"e{label}", _title(path).casefold()))
        writes.append(("write_file", {"path": path, "content": "\n\n".join(parts) + "\n"}))
    return writes


def _title(path: str) -> str:
    stem = path.rsplit("/", 1)[-1][:-3]
    return stem[:1].upper() + stem[1:].replace("-", " ")


def _block(exchange: _Exchange, label: str, keyword: str) -> str:
    claims = []
    for role, prefix in (("user", "Q: "), ("assistant", "A: ")):
        text = _inline(exchange.text(role), CLAIM_CHARS[role])
        if text:
            claims.append(prefix + text)
    if not claims:  # nothing printable was said (NUL, bidi marks only): a block still needs content
        claims.append("(a turn without printable text)")
    times = [i.time[:10] for i in exchange.items if _DATE.match(i.time)]
    when = times[0] if times else "undated"
    links = ", ".join(f"[{_inline(keyword, 40) or 'record'}]({i.ref})" for i in exchange.items)
    return f"{' '.join(claims)}[^{label}]\n\n[^{label}]: Time: `{when}`; Sources: {links}"


def _inline(text: str, limit: int) -> str:
    """Conversation text made safe inside one paragraph: one line, no brackets (no
    citations, links or block ids can be forged), no HTML comment openers, and no
    trailing backslash (it would escape the citation that follows: `C:\\temp\\[^e1]`)."""
    text = "".join(ch for ch in text if ch.isprintable() or ch.isspace())
    text = " ".join(text.split()).replace("[", "(").replace("]", ")").replace("<!--", "<!- -").replace("^", "\u02c6")
    text = text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"
    return text.rstrip("\\").rstrip()


# -- organizer ---------------------------------------------------------------------------


def _organize_step(calls: list[_Call]) -> Step:
    answer = _finished(calls, ("write_file", "delete_file"))
    if answer is not None:
        return answer
    listed = _listed(calls)
    if listed is None:
        return [("list_files", {})]
    reads = _reads(calls)
    missing = [p for p in listed if p not in reads]
    if missing:
        return [("read_file", {"path": p}) for p in missing]
    return _merge_duplicates(reads) or "Nothing to reorganize: no duplicate blocks."


def _merge_duplicates(files: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    from ..memory.topics import parse_topic

    keep: dict[str, str] = {}  # claim -> surviving block id
    retired: dict[str, str] = {}  # retired id -> surviving id
    drop: dict[str, list[Any]] = {}
    docs = {path: parse_topic(path, text) for path, text in sorted(files.items())}
    for path, doc in docs.items():
        for block in doc.blocks:
            if block.legacy:
                continue
            claim = " ".join(block.content.casefold().split())
            if claim in keep:
                for bid in block.ids:
                    retired[bid] = keep[claim]
                drop.setdefault(path, []).append(block)
            elif block.block_id is not None:
                keep[claim] = block.block_id
    if not retired:
        return []
    steps: list[tuple[str, dict[str, Any]]] = [
        ("retire_block", {"block_id": bid, "reason": f"duplicate of ^{target} (same claim)"})
        for bid, target in retired.items()]
    for path, doc in docs.items():
        text = _without(doc, drop.get(path, []))
        for bid, target in retired.items():
            text = text.replace(f"#^{bid})", f"#^{target})")
        if text == files[path]:
            continue
        remaining = parse_topic(path, text).blocks
        steps.append(("write_file", {"path": path, "content": text}) if remaining else ("delete_file", {"path": path}))
    return steps


def _without(doc: Any, blocks: list[Any]) -> str:
    """The topic text minus these paragraphs and the definitions only they cited."""
    if not blocks:
        return doc.text
    dropped = {id(b) for b in blocks}
    gone = {i for b in blocks for i in range(b.start, b.end)}
    still_cited = {c.id for p in doc.paragraphs if id(p) not in dropped for c in p.citations}
    for b in blocks:
        for c in b.citations:
            d = doc.definitions.get(c.id)
            if d is not None and c.id not in still_cited:
                gone.add(d.index)
    out: list[str] = []
    for i, line in enumerate(doc.lines):
        if i in gone or (not line.strip() and (i - 1) in gone and (not out or not out[-1].strip())):
            continue
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"
