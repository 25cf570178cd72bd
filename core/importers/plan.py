"""What an importer produces: a session's planned nodes, in an order the store can append.

Importers are pure: transcript lines in, a `SessionPlan` out. The plan is built in
file order and every decision about a line depends only on the lines before it, so
re-reading a grown file plans the same nodes (same ids, same predecessors) for the
old lines and new nodes only for the new ones — that is what makes re-import
incremental (`apply.apply_plan` appends only the ids the store lacks).

Shape of the graph (DESIGN §3, formats §1.5):

* chain nodes (`user`, `assistant`) carry the conversation; a fork among them is a
  real fork (a rewind, a retry, a tree branch), never a recording artifact;
* tool activity is NOT in the chain: one `tool` node per call, hanging off the turn
  that made it (`caller`, no predecessor), like OpenProgram's code nodes. The graph
  therefore shows only user-visible turns, each call is written once when its result
  is known, and a turn's node never has to be rewritten when its tools finish;
* a compaction becomes a `summary` node covering the turns it replaced, hung at the
  turn where the compaction happened (never the head, never a record);
* a runtime-authored "user" record (a finished background task's notification, hook
  feedback) is a `runtime` chain node: the conversation goes on from it, but it is
  no prompt, no title and no record;
* a sub-agent's conversation is a `spawn` branch whose root names the spawning turn.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..sessions.nodes import ROOT_ID, clean_text, valid_node_id

TOOL_TEXT_LIMIT = 4000  # chars of a tool's input/output kept on its node; the source file keeps the rest
CHAIN_KINDS = frozenset({"user", "assistant", "spawn", "runtime"})


@dataclass
class PlannedNode:
    id: str
    kind: str  # "user" | "assistant" | "tool" | "summary" | "spawn" | "runtime"
    text: str
    predecessor: str | None = None  # chain nodes: a planned id or ROOT
    caller: str = ""  # tool: the turn that made the call; spawn: the spawning turn
    created_at: float | None = None
    name: str = ""
    input: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    covers: list[str] = field(default_factory=list)  # summary only
    on_head: bool = True  # main conversation (moves the head) vs. a sub-agent's branch


@dataclass
class SessionPlan:
    """Every node one source session implies, plus what was left out and why."""

    session_id: str
    kind: str
    title: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    nodes: list[PlannedNode] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # records not imported at all
    folded: Counter[str] = field(default_factory=Counter)  # records absorbed into another node
    notes: Counter[str] = field(default_factory=Counter)  # imported, but worth knowing about
    sources: list[Path] = field(default_factory=list)
    bytes_read: int = 0
    refused: bool = False  # the file is not this importer's kind at all
    started: float | None = None  # the first dated record's time: when the conversation began

    # graph bookkeeping (planned chain only)
    _ids: set[str] = field(default_factory=set, repr=False)
    _pred: dict[str, str | None] = field(default_factory=dict, repr=False)
    _children: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _prompt_children: dict[str, int] = field(default_factory=dict, repr=False)
    _covered_upto: set[str] = field(default_factory=set, repr=False)

    def has(self, nid: str) -> bool:
        return nid in self._ids

    @property
    def chain_count(self) -> int:
        return len(self._pred)

    def is_chain(self, nid: str) -> bool:
        return nid in self._pred

    def predecessor(self, nid: str) -> str | None:
        return self._pred.get(nid)

    def add(self, node: PlannedNode) -> PlannedNode:
        """Append a node; chain nodes are registered so later lines can attach to them."""
        if node.id in self._ids:
            raise ValueError(f"duplicate planned node {node.id}")
        self._ids.add(node.id)
        self.nodes.append(node)
        if node.kind in CHAIN_KINDS:
            self._pred[node.id] = node.predecessor
            if node.predecessor is not None:
                self._children.setdefault(node.predecessor, []).append(node.id)
                if node.kind == "user":
                    self._prompt_children[node.predecessor] = self._prompt_children.get(node.predecessor, 0) + 1
        if not self.title and node.kind == "user" and node.on_head:
            self.title = title_of(node.text)
        return node

    # --- attaching -----------------------------------------------------------

    def has_children(self, nid: str) -> bool:
        return bool(self._children.get(nid))

    def tail(self, nid: str) -> str:
        """The newest chain node under `nid`, following the most recent child each step."""
        while self._children.get(nid):
            nid = self._children[nid][-1]
        return nid

    def attach_point(self, anchor: str, *, prompt: bool) -> str:
        """Where a new chain node whose source parent resolves to `anchor` goes.

        Only a typed prompt may start a second child of a node that already has a
        prompt child (a rewind / re-ask): that is a real fork. Anything else that lands
        on an occupied node (a late reply, a record on a parallel-tool side chain)
        continues the newest line of the conversation below it instead.
        """
        if not self._children.get(anchor):
            return anchor
        if prompt and self._prompt_children.get(anchor):
            return anchor
        return self.tail(anchor)

    # --- compaction ----------------------------------------------------------

    def path_to_root(self, tip: str) -> list[str]:
        """Chain ids root->tip."""
        out: list[str] = []
        nid: str | None = tip
        while nid is not None and nid in self._pred:
            out.append(nid)
            nid = self._pred[nid]
        out.reverse()
        return out

    def path_since_compaction(self, tip: str) -> list[str]:
        """Chain ids root->tip, starting after the newest point an earlier summary covered."""
        out: list[str] = []
        nid: str | None = tip
        while nid is not None and nid != ROOT_ID and nid in self._pred:
            if nid in self._covered_upto:
                break
            out.append(nid)
            nid = self._pred[nid]
        out.reverse()
        return out

    def add_summary(self, node_id: str, text: str, covers: list[str], *, at: str,
                    created_at: float | None = None) -> PlannedNode | None:
        """A compaction summary over `covers` (planned chain ids, root->tip order), hung at
        `at`, the turn the conversation had reached when it was compacted."""
        covers = [c for c in covers if c in self._pred]
        if not covers:
            self.skipped["compaction with no imported turn to cover"] += 1
            return None
        self._covered_upto.add(covers[-1])
        if at not in self._pred:
            at = covers[-1]
        return self.add(PlannedNode(id=node_id, kind="summary", text=text, covers=covers, predecessor=at,
                                    created_at=created_at))


@dataclass
class PendingTool:
    """A tool call seen in the source, waiting for its result before it is planned."""

    call_id: str
    name: str
    input: Any
    caller: str
    created_at: float | None
    order: int  # how many chain nodes existed when the call was made


class ToolTracker:
    """Pairs tool calls with their results and plans one `tool` node per call.

    A call is planned when its result arrives; a call that never gets one is planned
    without it once the conversation has moved on (a later chain node exists), and
    left for the next import while it may still be running.
    """

    def __init__(self, plan: SessionPlan, source: str) -> None:
        self.plan = plan
        self.source = source
        self.pending: dict[str, PendingTool] = {}
        self.callers: dict[str, str] = {}  # call id -> the turn that made it

    def call(self, call_id: str, name: str, input: Any, caller: str, created_at: float | None) -> None:
        if not call_id:
            return
        self.callers[call_id] = caller
        if call_id not in self.pending:
            self.pending[call_id] = PendingTool(call_id, name, input, caller, created_at, self.plan.chain_count)

    def result(self, call_id: str, output: Any, created_at: float | None, *, fallback_caller: str,
               is_error: bool = False, name: str = "", extra: dict[str, Any] | None = None) -> None:
        """`extra`: what the agent said about the run besides its output (exit code, duration)."""
        call = self.pending.pop(call_id, None)
        if call is None:
            self.plan.folded["tool result without a recorded call"] += 1
            call = PendingTool(call_id, name, None, fallback_caller, created_at, self.plan.chain_count)
        metadata: dict[str, Any] = {"source": self.source, "tool_call_id": call_id, **(extra or {})}
        if is_error:
            metadata["is_error"] = True
        self._plan(call, output, metadata, created_at)

    def finish(self) -> None:
        """Plan calls left without a result once a later turn shows they are over."""
        for call_id, call in list(self.pending.items()):
            if self.plan.chain_count > call.order:
                del self.pending[call_id]
                self._plan(call, None, {"source": self.source, "tool_call_id": call_id, "status": "no_result"},
                           call.created_at)

    def _plan(self, call: PendingTool, output: Any, metadata: dict[str, Any], created_at: float | None) -> None:
        nid = safe_id(call.call_id, prefix="tool-")
        if self.plan.has(nid):
            self.plan.skipped["duplicate tool call id"] += 1
            return
        if not self.plan.is_chain(call.caller):
            # a call hangs off the turn that made it; with no turn yet it would read as a branch tip
            self.plan.skipped["tool call before any turn"] += 1
            return
        self.plan.add(PlannedNode(
            id=nid, kind="tool", text=clip(as_text(output)), caller=call.caller, name=call.name,
            input=clip_input(call.input), created_at=created_at if created_at is not None else call.created_at,
            metadata=metadata))


# --- small shared helpers ---------------------------------------------------


def safe_id(raw: Any, *, prefix: str = "") -> str:
    """A filename-safe node/session id derived from a source id (stable across runs)."""
    text = str(raw)
    candidate = f"{prefix}{text}"
    if valid_node_id(candidate) and candidate != ROOT_ID:
        return candidate
    cleaned = "".join(ch if ch.isalnum() or ch in "_.:-" else "-" for ch in text)[:80].strip("-.")
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]
    return f"{prefix}{cleaned}-{digest}" if cleaned else f"{prefix}{digest}"


def str_field(record: dict[str, Any], key: str) -> str:
    """A type/role-like field, or "" when a damaged record has something else there."""
    value = record.get(key)
    return value if isinstance(value, str) else ""


def shown(value: str) -> str:
    """A source-provided name (record type, role) as it may appear in a skip reason."""
    return clean_text(value)[:40]


def parse_time(value: Any) -> float | None:
    """Unix seconds from an ISO-8601 string or a number (seconds or milliseconds)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            return None
        return float(value) / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except (ValueError, OverflowError, OSError):
            return None
    return None


def as_text(value: Any) -> str:
    """Readable text of a content value: strings, text blocks, or JSON for anything else."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    if isinstance(value, list) and all(isinstance(b, (dict, str)) for b in value):
        parts = []
        for block in value:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") in ("image", "input_image"):
                parts.append("[image]")
            elif isinstance(block.get("content"), (str, list)):
                parts.append(as_text(block["content"]))
            else:
                return json.dumps(value, ensure_ascii=False, default=str)
        return "\n".join(p for p in parts if p)
    return json.dumps(value, ensure_ascii=False, default=str)


REASONING_OPEN, REASONING_CLOSE = "<reasoning>", "</reasoning>"


def with_reasoning(reasoning: list[str], text: str) -> str:
    """An assistant turn's text with the model's readable reasoning summaries first, in a
    marked `<reasoning>…</reasoning>` section (the node also carries `metadata.reasoning`),
    so a turn that only reasoned and called tools still says something to memory."""
    if not reasoning:
        return text
    section = f"{REASONING_OPEN}\n" + "\n\n".join(reasoning) + f"\n{REASONING_CLOSE}"
    return f"{section}\n\n{text}" if text.strip() else section


def clip(text: str, limit: int = TOOL_TEXT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit} more characters in the source transcript]"


def clip_input(value: Any) -> Any:
    """Tool arguments as given, unless they are too big to keep on a node."""
    if value is None:
        return None
    dumped = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return value if len(dumped) <= TOOL_TEXT_LIMIT else clip(dumped)


def title_of(text: str, limit: int = 80) -> str:
    """A one-line title (valid UTF-8: it is printed and stored)."""
    line = " ".join(clean_text(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
