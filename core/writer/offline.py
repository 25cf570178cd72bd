"""`scriptorium/offline`: a deterministic model behind the same seam as a real one (model.py).

It speaks the same tool-calling protocol as a real model: each completion looks at
the conversation so far (the task, the tool calls it already made and their results)
and returns the next tool calls, or a final answer. So the agent loop, the tools and
the transaction run exactly as they do with a real model.

As a writer it takes notes (distil.py): it drops chatter and questions that carry no
fact, keeps content as standalone sentences naming their subject, merges what several
turns say about one thing into one block cited to all of them, and files the blocks
under topics named after what they are about (filing.py), rules, preferences and
identity facts in `core.md` while its budget lasts. Citations use writer-local labels
`[^e1]` that the transaction turns into permanent ids. As an organizer (offered
`retire_block`) it merges near-duplicate blocks: the first one stays and takes over
the other's citations, the others are removed and retired with a reason, and links to
them are repointed; then it merges the topics that are about one subject (gather.py:
one name, a name and its start, a small topic whose blocks read like another), every
block keeping its id, and renames a topic whose name says nothing after what its
blocks are about (renaming.py), unless the task lists it as named by a person. Offered no tools (a plain chat), it
says that no language model is configured and echoes what it heard.
"""

from __future__ import annotations

import functools
import json
import math
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from .filing import CORE, Context, Filed, Record, plan, render, title
from .gather import apply_gathering, plan_gathering, without_blocks
from .keywords import stems
from .model import OFFLINE_MODEL, Reply, Step, register_provider
from .prompts import KEPT_NAMES, NOTHING_TO_KEEP
from .renaming import apply_renames, naming_sources, plan_renames
from .revalued import record_time, stale_in_topics, timed_sources
from .subjects import beside_earlier, rewritten, superseded
from .tools import PARTIAL_READ

PEOPLE_DIR = "people/"
DEFAULT_CORE_BUDGET = 2000  # memory/core_render.py's default, when the task does not say
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_LISTED = re.compile(r"^(.+?\.md)  \(\d+ bytes\)$")
_SPEAKERS = re.compile(r"^- speakers: user = (.*?), assistant = (.*)$", re.M)
_CWD = re.compile(r"^- working directory: (.*)$", re.M)
_BUDGET = re.compile(r"^- core budget: (\d+) tokens", re.M)


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
            step = _organize_step(calls, _task(messages))
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


def _records(task: str) -> list[Record]:
    """The records of the task: JSON lines with a `ref` (a repair task repeats them)."""
    out: dict[str, Record] = {}
    for line in task.splitlines():
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("ref"), str) and isinstance(doc.get("content"), str):
            out.setdefault(doc["ref"], Record(doc["ref"], str(doc.get("role") or "user"), doc["content"],
                                              str(doc.get("time") or "undated"), doc.get("delegated") is True))
    return list(out.values())


def _context(task: str) -> Context:
    """The task's `## Session` lines (prompts.SessionContext.section)."""
    speakers = _SPEAKERS.search(task)
    cwd = _CWD.search(task)
    budget = _BUDGET.search(task)
    return Context(speakers.group(1).strip() if speakers and speakers.group(1) != "the user" else "",
                   speakers.group(2).strip() if speakers and speakers.group(2) != "the assistant" else "",
                   cwd.group(1).strip() if cwd else "", int(budget.group(1)) if budget else 0)


def _listed(calls: list[_Call]) -> list[str] | None:
    for call in calls:
        if call.name == "list_files" and call.result is not None:
            return [m.group(1) for line in call.result.splitlines() if (m := _LISTED.match(line))]
    return None


def _reads(calls: list[_Call]) -> dict[str, str]:
    """The files read whole (a partial read is not the file: writing it back would lose the rest)."""
    return {c.arguments.get("path", ""): c.result for c in calls
            if c.name == "read_file" and c.result is not None and not c.result.startswith(("error:", PARTIAL_READ))}


def _attempted(calls: list[_Call]) -> set[str]:
    return {c.arguments.get("path", "") for c in calls if c.name == "read_file"}


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
    answer = _finished(calls, ("write_file", "append_blocks"))
    if answer is not None:
        return answer
    records = _records(task)
    if not records:
        return "There are no records to write."
    listed = _listed(calls)
    if listed is None:
        return [("list_files", {})]
    context = _context(task)
    filed = [replace(f) for f in _planned(task, tuple(listed))]  # copies: the core's budget re-files them
    if not filed:
        return NOTHING_TO_KEEP
    reads = _reads(calls)
    # Only the core is read (its render budget decides what joins it); every other topic
    # that exists gets its new blocks appended, unread: a topic of any size takes a batch.
    wanted = {CORE} if any(f.path == CORE for f in filed) else set()
    # a person's topic is read too: a later session's block about what an earlier one tells goes beside it
    # (subjects.py)
    people = {p for f in filed for p in (f.path, f.fallback) if p.startswith(PEOPLE_DIR) and p in listed}
    wanted |= people | ({CORE} & set(listed) if people else set())  # and the core: a changed value marks its past
    missing = sorted(p for p in wanted if p in listed and p not in _attempted(calls))
    if missing:
        return [("read_file", {"path": p}) for p in missing]
    core = reads.get(CORE)
    full = CORE in listed and core is None  # a core too large to read whole has no room left
    filed = _new_to_core(filed, core or "")
    if not filed:
        return NOTHING_TO_KEEP
    _fit_core(filed, core or "", context.core_budget or DEFAULT_CORE_BUDGET, full)
    earlier = {p: reads[p] for p in wanted if p != CORE and p in reads}
    beside = beside_earlier(filed, earlier)
    past = superseded([n for f in filed for n in f.block.notes], {**earlier, **({CORE: core} if core and people else {})})
    files: dict[str, list[str]] = {}
    after: dict[str, dict[str, list[str]]] = {}  # topic -> earlier block id -> the new blocks that go after it
    for n, item in enumerate(filed, 1):
        if n - 1 in beside:
            after.setdefault(item.path, {}).setdefault(beside[n - 1], []).append(render(item, f"e{n}"))
            continue
        if item.path not in files:
            files[item.path] = [] if item.path in listed else [
                f"# {title(item.path, [*(f.block.text for f in filed if f.path == item.path), *(r.content for r in records)])}"]
        files[item.path].append(render(item, f"e{n}"))
    steps: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(set(after) | set(past)):
        text = rewritten(path, earlier[path] if path != CORE else core or "", after.get(path, {}), past.get(path, {}))
        steps.append(("write_file", {"path": path, "content": "\n\n".join([text.rstrip("\n"), *files.pop(path, [])])
                                     + "\n"}))
    return steps + [("append_blocks", {"path": path, "text": "\n\n".join(parts) + "\n"}) if path in listed
                    else ("write_file", {"path": path, "content": "\n\n".join(parts) + "\n"})
                    for path, parts in files.items()]


@functools.lru_cache(maxsize=4)
def _planned(task: str, listed: tuple[str, ...]) -> tuple[Filed, ...]:
    """The batch's blocks and their topics, once per task and listing: each step of the
    tool loop (list, read, write) looks at them again, and reading a person's topic
    (subjects.py) adds a step to most sessions between people. Read-only."""
    return tuple(plan(_records(task), _context(task), list(listed)))


def _new_to_core(filed: list[Filed], core_text: str) -> list[Filed]:
    """Core blocks the core already holds (a rule said again in another session) are not
    added twice."""
    from ..memory.topics import parse_topic

    held = [stems(b.content) for b in parse_topic(CORE, core_text).blocks] if core_text else []
    kept: list[Filed] = []
    for item in filed:
        words = stems(item.block.text)
        if item.path == CORE and any(words and (words == h or len(h) >= 3 and _similar(words, h)) for h in held):
            continue
        if item.path == CORE:
            held.append(words)
        kept.append(item)
    return kept


def _fit_core(filed: list[Filed], core_text: str, budget: int, full: bool = False) -> None:
    """Core blocks while the core's render budget lasts; the rest go to their topic."""
    from ..tokens import count_tokens

    used = count_tokens(core_text)
    for n, item in enumerate(filed, 1):
        if item.path != CORE:
            continue
        size = count_tokens(render(item, f"e{n}"))
        if full or used + size > budget:
            item.path = item.fallback
        else:
            used += size


# -- organizer ---------------------------------------------------------------------------


def _kept_names(task: str) -> set[str]:
    """The topics the task says a person named or edited (prompts.KEPT_NAMES)."""
    _, found, rest = task.partition(KEPT_NAMES)
    return {line[len("- topics/"):] for line in rest.splitlines() if line.startswith("- topics/")} if found else set()


def _organize_step(calls: list[_Call], task: str = "") -> Step:
    answer = _finished(calls, ("write_file", "delete_file"))
    if answer is not None:
        return answer
    listed = _listed(calls)
    if listed is None:
        return [("list_files", {})]
    missing = [p for p in listed if p not in _attempted(calls)]
    if missing:
        return [("read_file", {"path": p}) for p in missing]
    files = _reads(calls)
    needed = timed_sources(files, keep=CORE)  # which of two topics' blocks of one day came later
    # and what a topic named after a generic folder (`repo.md`) says its project is (renaming.py)
    needed = list(dict.fromkeys([*needed, *naming_sources(files, _kept_names(task))]))
    asked = {c.arguments.get("ref", ""): c.result or "" for c in calls if c.name == "read_source"}
    if any(ref not in asked for ref in needed):
        return [("read_source", {"ref": ref}) for ref in needed if ref not in asked]
    times = {ref: record_time(text) for ref, text in asked.items()}
    current, stale = stale_in_topics(files, keep=CORE, times=times)  # a value a later block changed (revalued.py)
    steps, texts = _merge_duplicates(current)
    steps = [("retire_block", {"block_id": bid, "reason": why}) for bid, why in stale] + steps
    kept = {p: t for p, t in texts.items() if t is not None}
    texts.update(apply_gathering(kept, plan_gathering(kept)))
    kept = {p: t for p, t in texts.items() if t is not None}
    texts.update(apply_renames(kept, plan_renames(kept, _kept_names(task), asked)))  # weak names (renaming.py)
    for path, text in texts.items():
        if text != files.get(path):
            steps.append(("write_file", {"path": path, "content": text}) if text is not None
                         else ("delete_file", {"path": path}))
    return steps or "Nothing to reorganize: no duplicate blocks, no two topics about one subject."


NEAR_DUPLICATE = 0.8  # share of content stems two blocks have in common (Jaccard) to count as one


def _merge_duplicates(files: dict[str, str]) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, str | None]]:
    """Blocks that say the same (identical, or sharing most content stems) become one: the
    first stays and takes over the others' citations; the others are retired. The
    retirements, and every file's text after (None: no block is left, the file goes)."""
    from ..memory.topics import parse_topic

    retired: dict[str, str] = {}  # retired id -> surviving id
    drop: dict[str, list[Any]] = {}
    moved: dict[tuple[str, str], list[str]] = {}  # (path, surviving id) -> the definition lines it takes over
    docs = {path: parse_topic(path, text) for path, text in sorted(files.items())}
    twins = _Twins([(path, b) for path, doc in docs.items() for b in doc.blocks if not b.legacy and b.block_id])
    for path, doc in docs.items():
        for block in doc.blocks:
            if block.legacy or not block.block_id:
                continue
            twin = twins.find(path, block)
            if twin is None:
                continue
            for bid in block.ids:
                retired[bid] = twin[1].block_id
            drop.setdefault(path, []).append(block)
            lines = moved.setdefault((twin[0], twin[1].block_id), [])
            for citation in dict.fromkeys(c.id for c in block.citations):
                definition = doc.definitions.get(citation)
                if definition is not None:
                    lines.append(_rebase(doc.lines[definition.index], path, twin[0]))
    if not retired:
        return [], dict(files)
    texts: dict[str, str | None] = dict(files)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("retire_block", {"block_id": bid, "reason": f"duplicate of ^{target} (the same claim)"})
        for bid, target in retired.items()]
    for path, doc in docs.items():
        text = without_blocks(doc, drop.get(path, []))
        for (where, bid), lines in moved.items():
            if where == path and lines:
                text = _cite_more(text, bid, lines)
        for bid, target in retired.items():
            text = text.replace(f"#^{bid})", f"#^{target})")
        if text != files[path]:
            texts[path] = text if parse_topic(path, text).blocks else None
    return steps, texts


def _rebase(line: str, source: str, target: str) -> str:
    """A definition line moved from topic `source` to topic `target`: its relative links
    still point at the same records."""
    from ..memory.topics import root_to_topic_rel, topic_rel_to_root

    if posixpath.dirname(source) == posixpath.dirname(target):
        return line
    return _LINK.sub(lambda m: f"]({root_to_topic_rel(target, topic_rel_to_root(source, m.group(1)))})", line)


class _Twins:
    """The first surviving block each block duplicates: the same text, or (three stems or
    more each) a Jaccard share of stems of at least NEAR_DUPLICATE. Candidates come from a
    prefix filter (Bayardo et al., 2007): stems ordered rarest first, two sets that similar
    share a stem among the first |s| - ceil(t|s|) + 1 of each (floor here: a stem longer
    is safe from rounding), so a block is compared with a few others, not with every
    block of memory."""

    def __init__(self, blocks: list[tuple[str, Any]]) -> None:
        self.words = {id(b): stems(b.content) for _, b in blocks}
        self.rare: Counter[str] = Counter(w for ws in self.words.values() for w in ws)
        self.kept: list[tuple[str, Any]] = []
        self.by_text: dict[str, int] = {}
        self.by_prefix: dict[str, list[int]] = {}

    def _prefix(self, words: set[str]) -> list[str]:
        order = sorted(words, key=lambda w: (self.rare[w], w))
        return order[: len(words) - math.floor(NEAR_DUPLICATE * len(words)) + 1]

    def find(self, path: str, block: Any) -> tuple[str, Any] | None:
        """The twin kept before `block`, or None (then `block` is kept)."""
        text = " ".join(block.content.casefold().split())
        words = self.words[id(block)]
        found = self.by_text.get(text)
        if len(words) >= 3:
            for w in self._prefix(words):
                for k in self.by_prefix.get(w, ()):
                    if (found is None or k < found) and _similar(words, self.words[id(self.kept[k][1])]):
                        found = k
        if found is not None:
            return self.kept[found]
        self.by_text.setdefault(text, len(self.kept))
        if len(words) >= 3:
            for w in self._prefix(words):
                self.by_prefix.setdefault(w, []).append(len(self.kept))
        self.kept.append((path, block))
        return None


def _similar(a: set[str], b: set[str]) -> bool:
    return len(b) >= 3 and len(a & b) / len(a | b) >= NEAR_DUPLICATE


def _cite_more(text: str, block_id: str, definitions: list[str]) -> str:
    """The surviving block also cites what its duplicates cited (their definitions join the file)."""
    from ..memory.topics import parse_topic

    doc = parse_topic("", text)
    block = next((b for b in doc.blocks if b.block_id == block_id), None)
    if block is None:
        return text
    have = {c.id for c in block.citations}
    new = []
    for line in definitions:
        label = line.split("]:", 1)[0].removeprefix("[^")
        if label not in have:
            have.add(label)
            new.append((label, line))
    if not new:
        return text
    lines = doc.lines[:]
    last = block.end - 1
    markers = "".join(f"[^{label}]" for label, _ in new)
    suffix = f" ^{block_id}"
    if lines[last].endswith(suffix):
        body = lines[last][: -len(suffix)]
        lines[last] = body + markers + suffix
    else:
        lines[last] += markers
    missing = [line for label, line in new if label not in doc.definitions]
    out = "\n".join(lines).rstrip("\n")
    return out + ("\n\n" + "\n".join(missing) if missing else "") + "\n"
