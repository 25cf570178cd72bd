"""pi (pi-mono coding agent) sessions (`~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`).

A pi session file is a tree of entries linked by `id`/`parentId`; pi branches in
place (`/tree`), so every fork of that tree is a real one and is kept. Entries that
are not turns — model and thinking-level changes, labels, `session_info`, extension
state — are folded into the turn they hang under; tool results become `tool` nodes
of the assistant turn that made the call. `compaction` and `branch_summary` entries
become summary nodes, each hung where it happened. An assistant message that only
calls tools is no turn of its own: its tool nodes hang under the turn before it, as
Claude Code's do — unless it starts a second branch there, which stays a fork. Version 1 files (linear, no ids) get positional ids: they are
append-only, so a line number is as stable as an id there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..sessions.nodes import ROOT_ID
from .jsonl import discover_jsonl, iter_records, peek_records
from .plan import PlannedNode, SessionPlan, ToolTracker, as_text, parse_time, safe_id, shown, str_field, title_of
from .resume import Planner, PlannerCache

KIND = "pi"
LABEL = "pi session"
SESSION_PREFIX = "pi-"
NON_TURN_TYPES = frozenset({"model_change", "thinking_level_change", "label", "session_info", "custom"})


def default_roots() -> list[Path]:
    base = os.environ.get("PI_CODING_AGENT_DIR")
    return [Path(base).expanduser() / "sessions" if base else Path("~/.pi/agent/sessions").expanduser()]


def discover(paths: Iterable[Path]) -> list[Path]:
    return discover_jsonl(paths)


def recognizes(path: Path) -> bool:
    first = next(peek_records(path, limit=1), None)
    return first is not None and first.get("type") == "session"


def plan_sessions(files: Iterable[Path], cache: PlannerCache | None = None) -> Iterator[SessionPlan]:
    """One plan per session file; with a follower's `cache`, only what was appended since
    its last call (see resume.py)."""
    for path in files:
        if not recognizes(path):
            plan = SessionPlan(session_id="", kind=KIND, sources=[path], refused=True)
            plan.skipped["file is not a pi session (no session header)"] += 1
            yield plan
            continue
        key = str(path)
        planner = cache.reuse(key) if cache is not None else None
        if not isinstance(planner, FilePlanner):
            planner = FilePlanner(path)
            if cache is not None:
                cache[key] = planner
        yield planner.run()


class _Folder:
    def __init__(self, plan: SessionPlan) -> None:
        self.plan = plan
        self.tools = ToolTracker(plan, KIND)
        self.effective: dict[str, str] = {}  # entry id -> planned chain id (or ROOT)
        self.previous: str | None = None  # v1: the entry before, as the implicit parent
        self.session_name = ""

    def resolve(self, entry_id: Any) -> str:
        if not isinstance(entry_id, str) or not entry_id:
            return ROOT_ID
        return self.effective.get(entry_id, ROOT_ID)

    def feed(self, number: int, entry: dict[str, Any]) -> None:
        etype = str_field(entry, "type")
        if etype == "session":
            if "source_session_id" in self.plan.meta:
                self.plan.skipped["extra session header"] += 1
            return
        eid = entry.get("id")
        if not isinstance(eid, str) or not eid:
            eid, parent = f"L{number}", self.previous  # v1: linear, positional
        else:
            parent = entry.get("parentId")
        if eid in self.effective:
            self.plan.skipped["duplicate entry id"] += 1
            return
        self.previous = eid
        anchor = self.resolve(parent)
        self.effective[eid] = anchor  # unless the entry becomes a turn below
        created = parse_time(entry.get("timestamp"))
        if etype == "message":
            self._message(eid, entry.get("message"), anchor, created)
        elif etype == "compaction":
            self._compaction(eid, entry, anchor, created)
        elif etype == "branch_summary":
            self._branch_summary(eid, entry, anchor)
        elif etype == "custom_message":
            self.plan.folded["extension message (custom_message)"] += 1
        elif etype in NON_TURN_TYPES:
            if etype == "session_info" and isinstance(entry.get("name"), str):
                self.session_name = entry["name"]
            self.plan.skipped[f"not a turn ({etype})"] += 1
        else:
            self.plan.skipped[f"unknown entry type ({shown(etype)})"] += 1

    def _message(self, eid: str, message: Any, anchor: str, created: float | None) -> None:
        if not isinstance(message, dict):
            self.plan.skipped["message entry without a message"] += 1
            return
        role = str_field(message, "role")
        nid = safe_id(eid)
        if role == "user":
            self._turn(PlannedNode(id=nid, kind="user", text=as_text(message.get("content")), predecessor=anchor,
                                   created_at=created, metadata={"source": KIND}), eid)
        elif role == "assistant":
            content = found if isinstance(found := message.get("content"), list) else []
            texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                     and isinstance(b.get("text"), str) and b["text"].strip()]
            calls = [b for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]
            caller = anchor
            if texts or (calls and self.plan.has_children(anchor)):  # a tool-only turn that starts a fork stays
                metadata: dict[str, Any] = {"source": KIND}
                for key in ("model", "provider", "stopReason"):
                    if isinstance(message.get(key), str):
                        metadata[key] = message[key]
                node = PlannedNode(id=nid, kind="assistant", text="\n\n".join(texts), predecessor=anchor,
                                   created_at=created, name=str(message.get("model") or ""), metadata=metadata)
                self._turn(node, eid)
                caller = node.id
            elif calls:
                self.plan.folded["assistant message that only calls tools (its tools hang under the turn before)"] += 1
            else:
                self.plan.folded["assistant message without text or tool call"] += 1
            for call in calls:
                self.tools.call(str(call.get("id") or ""), str(call.get("name") or ""), call.get("arguments"),
                                caller, created)
        elif role == "toolResult":
            self.tools.result(str(message.get("toolCallId") or ""), message.get("content"), created,
                              fallback_caller=anchor, is_error=bool(message.get("isError")),
                              name=str(message.get("toolName") or ""))
            self.plan.folded["tool result (into its tool node)"] += 1
        elif role == "bashExecution":
            call_id = f"{eid}-bash"
            self.tools.call(call_id, "bash", {"command": message.get("command")}, anchor, created)
            self.tools.result(call_id, message.get("output"), created, fallback_caller=anchor)
            self.plan.folded["user shell command (into a tool node)"] += 1
        elif role == "custom":
            self.plan.folded["extension message (custom)"] += 1
        else:
            self.plan.skipped[f"unknown message role ({shown(role)})"] += 1

    def _turn(self, node: PlannedNode, eid: str) -> None:
        self.plan.add(node)
        self.effective[eid] = node.id

    def _compaction(self, eid: str, entry: dict[str, Any], anchor: str, created: float | None) -> None:
        path = self.plan.path_since_compaction(anchor) if anchor != ROOT_ID else []
        first_kept = entry.get("firstKeptEntryId")
        index = entry.get("firstKeptEntryIndex")  # v1: a position in the file, the header being 0
        if first_kept is None and isinstance(index, int) and not isinstance(index, bool):
            first_kept = f"L{index + 1}"
        kept = self.resolve(first_kept)
        if kept in path and path.index(kept) > 0:
            path = path[: path.index(kept)]  # the turns before the first kept one were dropped
        self.plan.add_summary(safe_id(eid), str(entry.get("summary") or ""), path, at=anchor, created_at=created)

    def _branch_summary(self, eid: str, entry: dict[str, Any], anchor: str) -> None:
        """Summary of the branch left behind (`fromId`), placed beside it at the branch point."""
        kept = set(self.plan.path_to_root(anchor)) if anchor != ROOT_ID else set()
        left = self.resolve(entry.get("fromId"))
        covers = [n for n in self.plan.path_to_root(left) if n not in kept] if left != ROOT_ID else []
        self.plan.add_summary(safe_id(eid), str(entry.get("summary") or ""), covers, at=anchor,
                              created_at=parse_time(entry.get("timestamp")))


class FilePlanner(Planner):
    """One pi session file, read from where the last pass stopped."""

    def __init__(self, path: Path) -> None:
        super().__init__(SessionPlan(session_id="", kind=KIND))
        self.path = path
        self.folder = _Folder(self.plan)

    def read(self) -> None:
        plan = self.plan
        for number, entry in iter_records(self.path, plan, self.mark(self.path)):
            if entry.get("type") == "session" and "source_session_id" not in plan.meta:
                source_id = str(entry.get("id") or self.path.stem)
                plan.meta = {"source": KIND, "source_session_id": source_id}
                for key in ("cwd", "parentSession"):
                    if isinstance(entry.get(key), str):
                        plan.meta["cwd" if key == "cwd" else "parent_session"] = entry[key]
                continue
            self.folder.feed(number, entry)

    def close(self) -> None:
        plan = self.plan
        self.folder.tools.finish()
        plan.session_id = safe_id(plan.meta.get("source_session_id") or self.path.stem, prefix=SESSION_PREFIX)
        plan.meta.setdefault("source", KIND)
        if self.folder.session_name:
            plan.title = title_of(self.folder.session_name)


def plan_file(path: Path) -> SessionPlan:
    return FilePlanner(path).run()
