"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<thread>.jsonl`).

A rollout is a flat list of items with no parent pointers. Its first line is the
thread's `session_meta`; a rollout forked from another (`forked_from_id`) or spawned
by another as a sub-agent (`source.subagent…parent_thread_id`) starts with the
ancestors' metas and a copy of the parent's history. All rollouts of one family
become one session: node ids chain the content (`hash(predecessor, role, text)`), so
the copied history lands on the very nodes the parent's rollout produced and is
de-duplicated for free, and the fork appears exactly where the copy ends. A spawned
sub-agent's first own prompt becomes a spawn branch linked to the parent's turn.

`response_item` messages are the conversation; the `event_msg` mirrors of them
(`user_message`, `agent_message`, `agent_reasoning`) are dropped. User-role items
that are injected context (`<environment_context>`, AGENTS.md instructions…) and
developer/system items are not turns. `compacted` items become summary nodes and
`thread_rolled_back` moves the branch point back, so the next prompt forks.

A shell call's output is stored as a JSON string (`{"output": …, "metadata":
{"exit_code": …}}`): it is decoded, so a tool node holds the text and its exit code.
The readable reasoning summaries (`reasoning.summary`) are part of what the assistant
said: they open the next assistant message's text in a `<reasoning>` section, or,
when the model goes straight to a tool call or the next prompt, become an assistant
turn of their own (the calls hang under it); `metadata.reasoning` marks such turns.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..sessions.nodes import ROOT_ID
from .jsonl import discover_jsonl, iter_records, peek_records
from .plan import (PlannedNode, SessionPlan, ToolTracker, as_text, parse_time, safe_id, shown, str_field,
                   with_reasoning)
from .resume import Planner, PlannerCache

KIND = "codex"
LABEL = "Codex rollout"
SESSION_PREFIX = "codex-"
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                          "tool_search_output"})
ONE_SHOT_TYPES = frozenset({"web_search_call", "image_generation_call"})  # no separate output item
BARE_ITEM_TYPES = frozenset({"message", "reasoning"}) | CALL_TYPES | OUTPUT_TYPES | ONE_SHOT_TYPES
MIRROR_EVENTS = frozenset({"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content"})
NON_TURN_TYPES = frozenset({"turn_context", "world_state", "inter_agent_communication_metadata"})
INJECTED_RE = re.compile(r"^\s*<([A-Za-z_][\w -]*)>.*</\1>\s*$", re.S)
INJECTED_PREFIXES = ("# AGENTS.md instructions", "<environment_context>", "<user_instructions>")
EXIT_LINE_RE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)  # plain-text shell output


def default_roots() -> list[Path]:
    base = Path(os.environ.get("CODEX_HOME") or "~/.codex").expanduser()
    return [base / "sessions"]


@dataclass
class Rollout:
    """What a rollout's leading `session_meta` lines say about its place in its family."""

    path: Path
    thread_id: str
    parent_id: str | None = None
    relation: str | None = None  # "fork" | "spawn" | None
    started: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    ancestors: dict[str, str | None] = field(default_factory=dict)  # thread -> its parent, from copied metas


def _meta_payload(record: dict[str, Any], first: bool) -> dict[str, Any] | None:
    if record.get("type") == "session_meta" and isinstance(record.get("payload"), dict):
        return record["payload"]
    if first and "type" not in record and isinstance(record.get("id"), str):  # 2025 rollouts: a bare header
        return record
    return None


def _parent_of(payload: dict[str, Any]) -> tuple[str | None, str | None]:
    source = payload.get("source")
    subagent = source.get("subagent") if isinstance(source, dict) else None
    if isinstance(subagent, dict):
        spawn = subagent.get("thread_spawn")
        parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
        parent = parent or payload.get("parent_thread_id") or payload.get("forked_from_id")
        if isinstance(parent, str) and parent:
            return parent, "spawn"
    for key, relation in (("forked_from_id", "fork"), ("parent_thread_id", "spawn")):
        if isinstance(payload.get(key), str) and payload[key]:
            return payload[key], relation
    return None, None


def read_header(path: Path) -> Rollout:
    rollout = Rollout(path=path, thread_id=path.stem)
    for number, record in enumerate(peek_records(path, limit=16)):
        payload = _meta_payload(record, number == 0)
        if payload is None:
            break
        tid = str(payload.get("id") or payload.get("session_id") or "")
        parent, relation = _parent_of(payload)
        if number == 0:
            rollout.thread_id = tid or path.stem
            rollout.parent_id, rollout.relation = parent, relation
            rollout.started = parse_time(payload.get("timestamp") or record.get("timestamp"))
            rollout.meta = payload
        elif tid:
            rollout.ancestors[tid] = parent
    return rollout


def recognizes(path: Path) -> bool:
    return bool(read_header(path).meta)


def _family_root(rollout: Rollout, parents: dict[str, str | None]) -> str:
    tid, seen = rollout.thread_id, set()
    while parents.get(tid) and tid not in seen:
        seen.add(tid)
        tid = parents[tid]  # type: ignore[assignment]
    return tid


def discover(paths: Iterable[Path]) -> list[Path]:
    """Rollout files under the given paths, plus the ancestors of each file given directly
    (a fork or sub-agent needs its parent's nodes to de-duplicate its copied history)."""
    return discover_jsonl(paths, _ancestors)


def _ancestors(path: Path) -> list[Path]:
    found: list[Path] = []
    rollout, seen = read_header(path), set()
    search = next((p for p in path.parents if p.name == "sessions"), path.parent)
    while rollout.parent_id and rollout.parent_id not in seen:
        seen.add(rollout.parent_id)
        parent_file = next(iter(sorted(search.rglob(f"*{_glob_escape(rollout.parent_id)}.jsonl"))), None)
        if parent_file is None:
            break
        found.append(parent_file)
        rollout = read_header(parent_file)
    return found


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def plan_sessions(files: Iterable[Path], cache: PlannerCache | None = None) -> Iterator[SessionPlan]:
    """One plan per family of rollouts; with a follower's `cache`, only what was appended
    since its last call (see resume.py)."""
    rollouts = []
    for path in files:
        rollout = read_header(path)
        if rollout.meta:
            rollouts.append(rollout)
        else:
            plan = SessionPlan(session_id="", kind=KIND, sources=[path], refused=True)
            plan.skipped["file is not a Codex rollout (no session_meta)"] += 1
            yield plan
    parents: dict[str, str | None] = {}
    for r in rollouts:
        for tid, parent in r.ancestors.items():
            parents.setdefault(tid, parent)
    for r in rollouts:
        parents[r.thread_id] = r.parent_id
    families: dict[str, list[Rollout]] = {}
    for r in rollouts:
        families.setdefault(_family_root(r, parents), []).append(r)
    for root, members in families.items():
        members.sort(key=lambda r: (_depth(r.thread_id, parents), r.started or 0.0, str(r.path)))
        planner = cache.reuse(root) if cache is not None else None
        if not isinstance(planner, FamilyPlanner):
            planner = FamilyPlanner(root, members[0])
            if cache is not None:
                cache[root] = planner
        planner.add_members(members)
        yield planner.run()


def _depth(tid: str, parents: dict[str, str | None]) -> int:
    depth, seen = 0, set()
    while parents.get(tid) and tid not in seen:
        seen.add(tid)
        tid, depth = parents[tid], depth + 1  # type: ignore[assignment]
    return depth


def _content_id(*parts: str) -> str:
    return "cx-" + hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


class _Family:
    """State shared by the rollouts of one session."""

    def __init__(self, plan: SessionPlan) -> None:
        self.plan = plan
        self.tools = ToolTracker(plan, KIND)
        self.users: set[str] = set()
        self.spawned_by: dict[str, str] = {}  # child thread -> the parent's turn that spawned it
        self.turn_times: dict[str, list[tuple[float, str]]] = {}  # thread -> (time, turn) in order


class _RolloutFolder:
    def __init__(self, family: _Family, rollout: Rollout) -> None:
        self.family = family
        self.plan = family.plan
        self.rollout = rollout
        self.tip = ROOT_ID
        self.on_head = rollout.relation != "spawn"
        self.spawn_pending = rollout.relation == "spawn"
        self.leading_metas = True
        self.reasoning: list[str] = []  # summaries not yet part of a turn
        self.reasoning_at: float | None = None

    def feed(self, number: int, record: dict[str, Any]) -> None:
        rtype = str_field(record, "type")
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else None
        if self.leading_metas and _meta_payload(record, number == 1) is not None:
            if number > 1:
                self.plan.skipped["ancestor session_meta (copied)"] += 1
            return
        self.leading_metas = False
        created = parse_time(record.get("timestamp"))
        if payload is None and rtype in BARE_ITEM_TYPES:
            rtype, payload = "response_item", record  # 2025 rollouts: bare items
        if rtype == "response_item" and payload is not None:
            self._item(payload, created)
        elif rtype == "event_msg" and payload is not None:
            self._event(payload)
        elif rtype == "compacted" and payload is not None:
            self._compacted(payload, created)
        elif rtype == "session_meta":
            self.plan.skipped["session_meta after the first line"] += 1
        elif rtype in NON_TURN_TYPES or record.get("record_type") == "state":
            self.plan.skipped[f"not a turn ({rtype or 'state'})"] += 1
        else:
            self.plan.skipped[f"unknown record type ({shown(rtype)})"] += 1

    # --- items -----------------------------------------------------------------

    def _item(self, item: dict[str, Any], created: float | None) -> None:
        itype = str_field(item, "type")
        if itype == "message":
            self._message(item, created)
        elif itype == "reasoning":
            self._reasoning(item, created)
        elif itype in CALL_TYPES:
            self._flush_reasoning()
            call_id = str(item.get("call_id") or item.get("id") or "")
            args = item.get("arguments") if "arguments" in item else item.get("input", item.get("action"))
            self.family.tools.call(call_id, str(item.get("name") or itype), args, self.tip, created)
            self.plan.folded["tool call (into its tool node)"] += 1
        elif itype in OUTPUT_TYPES:
            output = item.get("output") if "output" in item else item.get("tools")
            output, extra = decode_output(output)
            self.family.tools.result(str(item.get("call_id") or ""), output, created, fallback_caller=self.tip,
                                     extra=extra)
            self.plan.folded["tool output (into its tool node)"] += 1
        elif itype in ONE_SHOT_TYPES:
            self._flush_reasoning()
            call_id = str(item.get("id") or item.get("call_id") or f"{itype}-{self.tip}-{created}")
            self.family.tools.call(call_id, str(itype), item.get("action") or item.get("revised_prompt"), self.tip,
                                   created)
            self.family.tools.result(call_id, item.get("status"), created, fallback_caller=self.tip)
            self.plan.folded["tool call (into its tool node)"] += 1
        elif itype == "ghost_snapshot":
            self.plan.skipped["not a turn (ghost_snapshot)"] += 1
        elif itype == "agent_message":
            self.plan.skipped["inter-agent message (runtime, not a turn)"] += 1
        else:
            self.plan.skipped[f"unknown response item ({shown(itype)})"] += 1

    def _reasoning(self, item: dict[str, Any], created: float | None) -> None:
        summary = item.get("summary")
        texts = [b["text"].strip() for b in summary if isinstance(b, dict) and isinstance(b.get("text"), str)
                 and b["text"].strip()] if isinstance(summary, list) else []
        if not texts:
            self.plan.folded["reasoning without a readable summary"] += 1
            return
        self.reasoning.extend(texts)
        if self.reasoning_at is None:
            self.reasoning_at = created
        self.plan.folded["reasoning summary (into the assistant turn)"] += 1

    def _flush_reasoning(self) -> None:
        """Reasoning followed by no message of its own: an assistant turn of its own."""
        if self.reasoning:
            self._turn("assistant", "", self.reasoning_at)

    def _message(self, item: dict[str, Any], created: float | None) -> None:
        role = str_field(item, "role")
        content = item.get("content")
        if role == "user":
            text = as_text(content)
            stripped = text.strip()
            if not stripped or INJECTED_RE.match(stripped) or stripped.startswith(INJECTED_PREFIXES):
                self.plan.skipped["injected context (environment, instructions)"] += 1
                return
            self._flush_reasoning()
            self._turn("user", text, created)
        elif role == "assistant":
            blocks = content if isinstance(content, list) else [{"type": "output_text", "text": content}]
            text = "\n\n".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)
                               and b.get("type") in ("output_text", "text") and b["text"].strip())
            if not text:
                self.plan.folded["assistant message without text"] += 1
                return
            self._turn("assistant", text, created)
        else:
            self.plan.skipped[f"{shown(role) or 'unknown-role'} message (not a turn)"] += 1

    def _turn(self, role: str, text: str, created: float | None) -> None:
        reasoned = role == "assistant" and bool(self.reasoning)
        if reasoned:
            text = with_reasoning(self.reasoning, text)
            self.reasoning, self.reasoning_at = [], None
        nid = _content_id(self.tip, role, text)
        if self.plan.has(nid):
            self.tip = nid
            self.plan.skipped["copied parent history (de-duplicated)"] += 1
            return
        if self.spawn_pending:
            if role != "user":
                self.plan.skipped["sub-agent reply before its task prompt"] += 1
                return
            node = PlannedNode(id=_content_id("spawn", self.rollout.thread_id, text), kind="spawn", text=text,
                               caller=self._spawn_caller(created), created_at=created, on_head=False,
                               metadata={"imported_from": KIND, "thread_id": self.rollout.thread_id})
            self.spawn_pending = False
        else:
            metadata: dict[str, Any] = {"source": KIND}
            if self.rollout.relation == "fork":
                metadata["thread_id"] = self.rollout.thread_id
            if reasoned:
                metadata["reasoning"] = True
            node = PlannedNode(id=nid, kind=role, text=text, predecessor=self.tip, created_at=created,
                               metadata=metadata, on_head=self.on_head)
        self.plan.add(node)
        self.tip = node.id
        if role == "user":
            self.family.users.add(node.id)
        if created is not None:
            self.family.turn_times.setdefault(self.rollout.thread_id, []).append((created, node.id))

    def _spawn_caller(self, created: float | None) -> str:
        """The parent's turn that spawned this sub-agent: where its copied history ends, the
        turn the spawn event was recorded under, or the parent's last turn before it started."""
        if self.tip != ROOT_ID:
            return self.tip
        caller = self.family.spawned_by.get(self.rollout.thread_id)
        if caller is None and self.rollout.parent_id:
            started = self.rollout.started or created
            earlier = [nid for t, nid in self.family.turn_times.get(self.rollout.parent_id, [])
                       if started is not None and t <= started]
            caller = earlier[-1] if earlier else None
        if caller is None:
            self.plan.notes["sub-agent whose spawning turn is not in the transcript"] += 1
            return ROOT_ID
        return caller

    # --- events and compaction -----------------------------------------------------

    def _event(self, event: dict[str, Any]) -> None:
        etype = str_field(event, "type")
        if etype in MIRROR_EVENTS:
            self.plan.skipped["event_msg duplicate of a response_item"] += 1
        elif etype == "thread_rolled_back" and isinstance(event.get("num_turns"), int):
            self._roll_back(event["num_turns"])
        elif etype == "collab_agent_spawn_end" and isinstance(event.get("new_thread_id"), str):
            if self.tip != ROOT_ID:
                self.family.spawned_by.setdefault(event["new_thread_id"], self.tip)
            self.plan.skipped["event_msg (not a turn)"] += 1
        else:
            self.plan.skipped["event_msg (not a turn)"] += 1

    def _roll_back(self, turns: int) -> None:
        """Drop the last `turns` user turns from the live line: the next prompt forks."""
        nid: str | None = self.tip
        while turns > 0 and nid is not None and nid != ROOT_ID:
            if nid in self.family.users:
                turns -= 1
            nid = self.plan.predecessor(nid)
        self.tip = nid or ROOT_ID
        self.plan.notes["rollback (the next prompt forks)"] += 1

    def _compacted(self, payload: dict[str, Any], created: float | None) -> None:
        text = found if isinstance(found := payload.get("message"), str) else ""
        if not text.strip():
            history = payload.get("replacement_history")
            items = history if isinstance(history, list) else []
            text = "\n\n".join(as_text(i.get("content")) for i in items if isinstance(i, dict) and i.get("type") == "message")
        nid = _content_id("compacted", self.tip, text)
        if self.plan.has(nid):
            self.plan.skipped["copied parent history (de-duplicated)"] += 1
            return
        covers = self.plan.path_since_compaction(self.tip) if self.tip != ROOT_ID else []
        self.plan.add_summary(nid, text, covers, at=self.tip, created_at=created)


def decode_output(output: Any) -> tuple[Any, dict[str, Any]]:
    """A tool output as text plus what Codex said about the run (exit code, duration).

    Codex stores a shell call's result as a JSON string, `{"output": "...", "metadata":
    {"exit_code": 0, "duration_seconds": 0.1}}`; newer versions write plain text with an
    `Exit code: N` / `Process exited with code N` line."""
    extra: dict[str, Any] = {}
    if isinstance(output, str) and output.startswith("{") and '"output"' in output:
        try:
            decoded = json.loads(output)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            meta = found if isinstance(found := decoded.get("metadata"), dict) else {}
            for key in ("exit_code", "duration_seconds"):
                if isinstance(meta.get(key), (int, float)) and not isinstance(meta.get(key), bool):
                    extra[key] = meta[key]
            return decoded["output"], extra
    if isinstance(output, str):
        found = EXIT_LINE_RE.search(output[:2000])
        if found:
            extra["exit_code"] = int(found.group(1))
    return output, extra


class FamilyPlanner(Planner):
    """The rollouts of one family (parents before children), each read from where the last
    pass stopped; a rollout that appears later (a new sub-agent) joins at the end."""

    def __init__(self, root: str, first: Rollout) -> None:
        super().__init__(SessionPlan(session_id=safe_id(root, prefix=SESSION_PREFIX), kind=KIND,
                                     meta={"source": KIND, "source_session_id": root}))
        for key in ("cwd", "cli_version", "originator"):
            if isinstance(first.meta.get(key), str):
                self.plan.meta[key] = first.meta[key]
        self.family = _Family(self.plan)
        self.folders: dict[Path, _RolloutFolder] = {}

    def add_members(self, members: list[Rollout]) -> None:
        for rollout in members:
            if rollout.path not in self.folders:
                self.folders[rollout.path] = _RolloutFolder(self.family, rollout)

    def read(self) -> None:
        for path, folder in self.folders.items():
            for number, record in iter_records(path, self.plan, self.mark(path)):
                folder.feed(number, record)

    def close(self) -> None:
        for folder in self.folders.values():
            if folder.spawn_pending and folder.rollout.relation == "spawn":
                self.plan.notes["sub-agent rollout without a task prompt yet"] += 1
        self.family.tools.finish()


def plan_family(root: str, members: list[Rollout]) -> SessionPlan:
    planner = FamilyPlanner(root, members[0])
    planner.add_members(members)
    return planner.run()
