"""Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) as sessions.

Claude Code writes one JSONL record per event, linked by `uuid`/`parentUuid`. Most
records that share a parent are recording artifacts, not branches: hook/progress
records, one record per content block of an assistant message, parallel tool calls
(`tool_use₁ → {tool_use₂, tool_result₁}`), late tool results, and history replayed
after compaction. This module folds them: every record maps to the chain node that
represents it (its own, or its nearest represented ancestor), so only typed prompts
and assistant text become turns, and only a second typed prompt on one parent (a
rewind) forks. Tool calls become `tool` nodes of the turn that issued them.

Compaction: the `compact_boundary` record (`parentUuid: null`,
`logicalParentUuid` = last turn before it) and the `isCompactSummary` user record
become one summary node covering the turns it replaced; the conversation continues
from the logical parent. Sub-agents (`isSidechain`, inline or in
`<session>/subagents/agent-<id>.jsonl`) become spawn branches whose root names the
turn that called the `Task` tool. The compactor's own transcript
(`subagents/agent-acompact-*.jsonl`) is Claude Code summarising, not a sub-agent
the user asked for: it is not imported.

What the user typed after `#` for Claude Code to remember (`<user-memory-input>…`) is
their turn, in their words without the tag.

A prompt typed as a slash command (`<command-name>/x</command-name>…<command-args>…`)
is the user's turn, as `/x args`; a command with no arguments (`/clear`, `/model`)
is not. Records Claude Code writes as "user" on its own behalf — a background task's
`<task-notification>`, hook feedback — are runtime nodes: the reply hangs under them,
but they are no prompt and no record.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..sessions.nodes import ROOT_ID
from .jsonl import discover_jsonl, iter_records, peek_records
from .plan import PlannedNode, SessionPlan, ToolTracker, as_text, parse_time, safe_id, shown, str_field, title_of
from .resume import Planner, PlannerCache

KIND = "claude-code"
LABEL = "Claude Code transcript"
SESSION_PREFIX = "cc-"
NON_TURN_TYPES = frozenset({"file-history-snapshot", "queue-operation", "summary", "custom-title"})
LOCAL_COMMAND_TAGS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
                      "<local-command-stderr>", "<local-command-caveat>", "<bash-input>", "<bash-stdout>",
                      "<bash-stderr>")
COMMAND_NAME_RE = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
# what the user typed after `#` for Claude Code to remember ("When committing, always use conventional commits")
MEMORY_INPUT_RE = re.compile(r"^<user-memory-input>(.*?)</user-memory-input>$", re.S)
RUNTIME_PREFIXES = ("<task-notification>", "<user-prompt-submit-hook>", "<system-reminder>", "Stop hook feedback:",
                    "SubagentStop hook feedback:", "PreToolUse:", "PostToolUse:")
COMPACTOR_FILE_PREFIX = "agent-acompact"
INTERRUPT_PREFIX = "[Request interrupted by user"
SPAWN_TOOLS = frozenset({"Task", "Agent"})
WARMUP_PROMPT = "Warmup"


def default_roots() -> list[Path]:
    base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser()
    return [base / "projects"]


class _Folder:
    """Folds one session's records (main file first, then sub-agent files) into a plan."""

    def __init__(self, plan: SessionPlan) -> None:
        self.plan = plan
        self.tools = ToolTracker(plan, KIND)
        self.effective: dict[str, str] = {}  # source uuid -> planned chain id (or ROOT)
        self.replays: dict[tuple[str, float | None, int, int], str] = {}  # (type, time, len, hash of text) -> id
        self.agent_calls: dict[str, str] = {}  # sub-agent id -> the Task tool_use id
        self.task_prompts: dict[str, str] = {}  # Task prompt text -> tool_use id
        self.head_tail: str = ROOT_ID
        self.replayed: set[str] = set()  # uuids seen a second time (history re-appended by Claude Code)
        self.custom_title = ""

    # --- resolution ------------------------------------------------------------

    def resolve(self, parent: Any, on_head: bool) -> str:
        """The chain node a record with this `parentUuid` belongs under."""
        if not isinstance(parent, str) or not parent:
            return ROOT_ID
        if parent in self.replayed and on_head:
            # written after a replay and pointing into the copy: it continues the live conversation
            self.plan.notes["record whose parent is a replayed copy (attached to the newest turn)"] += 1
            return self.head_tail
        found = self.effective.get(parent)
        if found is not None:
            return found
        self.plan.notes["parent record not in the transcript (attached to the newest turn)"] += 1
        return self.head_tail if on_head else ROOT_ID

    def add_chain(self, node: PlannedNode, uuid: str) -> PlannedNode:
        self.plan.add(node)
        self.effective[uuid] = node.id
        if node.on_head:
            self.head_tail = node.id
        return node

    # --- records ---------------------------------------------------------------

    def feed(self, record: dict[str, Any]) -> None:
        rtype = str_field(record, "type")
        uuid = record.get("uuid")
        if rtype in NON_TURN_TYPES:
            self.plan.skipped[f"not a turn ({rtype})"] += 1
            if rtype == "custom-title" and isinstance(record.get("customTitle"), str):
                self.custom_title = record["customTitle"]
            if isinstance(uuid, str) and uuid and uuid not in self.effective:
                self.effective[uuid] = self.resolve(record.get("parentUuid"), not record.get("isSidechain"))
            return
        if not isinstance(uuid, str) or not uuid:
            known = rtype in ("user", "assistant", "system", "progress")
            self.plan.skipped["record without uuid" if known else f"unknown record type ({shown(rtype)})"] += 1
            return
        if uuid in self.effective:
            self.replayed.add(uuid)
            self.plan.skipped["duplicate record (replayed copy)"] += 1
            return
        on_head = not record.get("isSidechain")
        parent = record.get("parentUuid")
        if rtype == "user":
            self._user(record, uuid, parent, on_head)
        elif rtype == "assistant":
            self._assistant(record, uuid, parent, on_head)
        elif rtype == "progress":
            self._progress(record)
            self.effective[uuid] = self.resolve(parent, on_head)
            self.plan.folded["progress record"] += 1
        elif rtype == "system":
            self._system(record, uuid, parent, on_head)
        else:
            self.effective[uuid] = self.resolve(parent, on_head)
            self.plan.skipped[f"unknown record type ({shown(rtype)})"] += 1

    def _progress(self, record: dict[str, Any]) -> None:
        data = record.get("data")
        if isinstance(data, dict) and data.get("type") == "agent_progress":
            agent, call = data.get("agentId"), record.get("parentToolUseID")
            if isinstance(agent, str) and isinstance(call, str):
                self.agent_calls.setdefault(agent, call)

    def _system(self, record: dict[str, Any], uuid: str, parent: Any, on_head: bool) -> None:
        subtype = str_field(record, "subtype") or "plain"
        if subtype == "compact_boundary":
            logical = record.get("logicalParentUuid")
            if isinstance(logical, str) and logical in self.effective:
                anchor = self.effective[logical]
            elif parent:
                anchor = self.resolve(parent, on_head)
            else:
                anchor = self.head_tail if on_head else ROOT_ID
            self.effective[uuid] = anchor
            self.plan.folded["compact boundary (into its summary node)"] += 1
            return
        self.effective[uuid] = self.resolve(parent, on_head)
        self.plan.folded[f"system record ({shown(subtype)})"] += 1

    def _user(self, record: dict[str, Any], uuid: str, parent: Any, on_head: bool) -> None:
        message = found if isinstance(found := record.get("message"), dict) else {}
        content = message.get("content")
        created = parse_time(record.get("timestamp"))
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            anchor = self.resolve(parent, on_head)
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self.tools.result(str(block.get("tool_use_id") or ""), block.get("content"), created,
                                      fallback_caller=anchor, is_error=bool(block.get("is_error")))
            result = record.get("toolUseResult")
            if isinstance(result, dict) and isinstance(result.get("agentId"), str):
                first = next((b.get("tool_use_id") for b in content if isinstance(b, dict) and b.get("tool_use_id")), None)
                if first:
                    self.agent_calls.setdefault(result["agentId"], first)
            self.effective[uuid] = anchor
            self.plan.folded["tool result (into its tool node)"] += 1
            return
        text = as_text(content)
        stripped = text.strip()
        reason = None
        if record.get("isCompactSummary"):
            self._compact_summary(uuid, parent, on_head, text, created)
            return
        if record.get("isMeta"):
            reason = "meta message injected by Claude Code"
        elif not stripped:
            reason = "empty user message"
        elif stripped.startswith(INTERRUPT_PREFIX):
            reason = "interrupt marker"
        elif memory := MEMORY_INPUT_RE.match(stripped):
            text = memory.group(1).strip()  # the user's own words, a rule to keep: their turn, without the tag
            if not text:
                reason = "empty user message"
        elif stripped.startswith(RUNTIME_PREFIXES):
            self._runtime(uuid, parent, on_head, text, created)
            return
        elif stripped.startswith(LOCAL_COMMAND_TAGS):
            text = command_prompt(stripped)
            if not text:
                reason = "local slash command / shell escape"
        if reason:
            self.effective[uuid] = self.resolve(parent, on_head)
            self.plan.folded[reason] += 1
            return
        key = ("user", created, len(text), hash(text))
        if created is not None and key in self.replays:
            self.effective[uuid] = self.replays[key]
            self.plan.skipped["replayed copy of a turn (new uuid)"] += 1
            return
        nid = safe_id(uuid)
        if not on_head and not parent:
            node = self._spawn(record, nid, text, created)
        else:
            anchor = self.resolve(parent, on_head)
            node = PlannedNode(id=nid, kind="user", text=text, predecessor=self.plan.attach_point(anchor, prompt=True),
                               created_at=created, metadata={"source": KIND}, on_head=on_head)
        self.add_chain(node, uuid)
        self.replays[key] = node.id

    def _runtime(self, uuid: str, parent: Any, on_head: bool, text: str, created: float | None) -> None:
        anchor = self.resolve(parent, on_head)
        node = PlannedNode(id=safe_id(uuid), kind="runtime", text=text,
                           predecessor=self.plan.attach_point(anchor, prompt=False), created_at=created,
                           metadata={"source": KIND}, on_head=on_head)
        self.add_chain(node, uuid)
        self.plan.notes["runtime message (task notification / hook feedback, not a record)"] += 1

    def _spawn(self, record: dict[str, Any], nid: str, text: str, created: float | None) -> PlannedNode:
        agent = record.get("agentId")
        call = self.agent_calls.get(agent) if isinstance(agent, str) else None
        call = call or self.task_prompts.get(text.strip())
        caller = self.tools.callers.get(call) if call else None
        if caller is None or not self.plan.is_chain(caller):
            caller = ROOT_ID
            self.plan.notes["sub-agent whose spawning turn is not in the transcript"] += 1
        metadata: dict[str, Any] = {"imported_from": KIND}
        if isinstance(agent, str):
            metadata["agent_id"] = agent
        if call:
            metadata["tool_call_id"] = call
        return PlannedNode(id=nid, kind="spawn", text=text, caller=caller, created_at=created, metadata=metadata,
                           on_head=False)

    def _compact_summary(self, uuid: str, parent: Any, on_head: bool, text: str, created: float | None) -> None:
        anchor = self.resolve(parent, on_head)
        self.effective[uuid] = anchor
        covers = self.plan.path_since_compaction(anchor) if anchor != ROOT_ID else []
        self.plan.add_summary(safe_id(uuid), text, covers, at=anchor, created_at=created)

    def _assistant(self, record: dict[str, Any], uuid: str, parent: Any, on_head: bool) -> None:
        message = found if isinstance(found := record.get("message"), dict) else {}
        anchor = self.resolve(parent, on_head)
        if record.get("isApiErrorMessage") or message.get("model") == "<synthetic>":
            self.effective[uuid] = anchor
            self.plan.folded["synthetic assistant message (API error, no response)"] += 1
            return
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts = [b["text"] for b in blocks
                 if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()]
        calls = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        created = parse_time(record.get("timestamp"))
        caller = anchor
        if texts:
            text = "\n\n".join(texts)
            key = ("assistant", created, len(text), hash(text))
            if created is not None and key in self.replays:
                self.effective[uuid] = self.replays[key]
                self.plan.skipped["replayed copy of a turn (new uuid)"] += 1
                return
            metadata: dict[str, Any] = {"source": KIND}
            if isinstance(message.get("model"), str):
                metadata["model"] = message["model"]
            usage = message.get("usage")
            if isinstance(usage, dict):
                for key_in, key_out in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens")):
                    if isinstance(usage.get(key_in), int):
                        metadata[key_out] = usage[key_in]
            node = PlannedNode(id=safe_id(uuid), kind="assistant", text=text,
                               predecessor=self.plan.attach_point(anchor, prompt=False), created_at=created,
                               name=str(message.get("model") or ""), metadata=metadata, on_head=on_head)
            self.add_chain(node, uuid)
            self.replays[key] = node.id
            caller = node.id
        else:
            self.effective[uuid] = anchor
            self.plan.folded["assistant record without text (tool call / thinking)"] += 1
        for call in calls:
            call_id = str(call.get("id") or "")
            args = call.get("input")
            self.tools.call(call_id, str(call.get("name") or ""), args, caller, created)
            if isinstance(args, dict) and isinstance(args.get("prompt"), str) and (
                    call.get("name") in SPAWN_TOOLS or "subagent_type" in args):
                self.task_prompts.setdefault(args["prompt"].strip(), call_id)


# --- files -------------------------------------------------------------------


def command_prompt(text: str) -> str:
    """A slash command's invocation as the user typed it (`/name args`), or "" when it has
    no arguments: then it is a local command (`/clear`, `/model`), not a prompt."""
    args = COMMAND_ARGS_RE.search(text)
    if args is None or not args.group(1).strip():
        return ""
    name = COMMAND_NAME_RE.search(text)
    command = name.group(1).strip() if name else ""
    return f"{command} {args.group(1).strip()}".strip()


def _session_of(path: Path) -> tuple[str, bool] | None:
    """(source session id, is a sub-agent file) from the first records of a file, or None
    when those records do not look like Claude Code's (no `sessionId`/`uuid` anywhere)."""
    sidechain = path.name.startswith("agent-")
    looks_right = False
    for record in peek_records(path):
        sid = record.get("sessionId")
        if isinstance(sid, str) and sid:
            return sid, sidechain or bool(record.get("isSidechain"))
        looks_right = looks_right or str_field(record, "type") in NON_TURN_TYPES or "uuid" in record
    return (path.stem, sidechain) if looks_right else None


def recognizes(path: Path) -> bool:
    return _session_of(path) is not None


def discover(paths: Iterable[Path]) -> list[Path]:
    """Transcript files under the given files/directories, plus the family of each file
    given directly (a sub-agent file needs its main session to find its spawning turn)."""
    return discover_jsonl(paths, _family)


def _family(path: Path) -> list[Path]:
    sid, sidechain = _session_of(path) or (path.stem, False)
    if sidechain:
        return [main for main in (path.parent.parent.parent / f"{sid}.jsonl", path.parent / f"{sid}.jsonl")
                if main.is_file()]
    return sorted((path.parent / path.stem / "subagents").glob("agent-*.jsonl"))


def plan_sessions(files: Iterable[Path], cache: PlannerCache | None = None) -> Iterator[SessionPlan]:
    """One plan per source session; with a follower's `cache`, only what was appended since
    its last call (see resume.py)."""
    groups: dict[str, tuple[list[Path], list[Path]]] = {}
    for path in files:
        found = _session_of(path)
        if found is None:
            yield _not_ours(path)
            continue
        sid, sidechain = found
        mains, agents = groups.setdefault(sid, ([], []))
        (agents if sidechain else mains).append(path)
    for source_id, (mains, agents) in groups.items():
        planner = cache.reuse(source_id) if cache is not None else None
        if not isinstance(planner, SessionPlanner):
            planner = SessionPlanner(source_id)
            if cache is not None:
                cache[source_id] = planner
        planner.add_files(mains, agents)
        yield planner.run()


def _not_ours(path: Path) -> SessionPlan:
    plan = SessionPlan(session_id="", kind=KIND, sources=[path], refused=True)
    plan.skipped["file is not a Claude Code transcript"] += 1
    return plan


class SessionPlanner(Planner):
    """One Claude Code session: its main file(s), then its sub-agent files."""

    def __init__(self, source_id: str) -> None:
        super().__init__(SessionPlan(session_id=safe_id(source_id, prefix=SESSION_PREFIX), kind=KIND,
                                     meta={"source": KIND, "source_session_id": source_id}))
        self.folder = _Folder(self.plan)
        self.mains: list[Path] = []
        self.agents: list[Path] = []

    def add_files(self, mains: list[Path], agents: list[Path]) -> None:
        self.mains = sorted(set(self.mains) | set(mains))
        self.agents = sorted(set(self.agents) | set(agents))

    def read(self) -> None:
        plan, folder = self.plan, self.folder
        for path in self.mains:
            for _, record in iter_records(path, plan, self.mark(path)):
                if "cwd" not in plan.meta and isinstance(record.get("cwd"), str):
                    plan.meta["cwd"] = record["cwd"]
                folder.feed(record)
        for path in self.agents:
            mark = self.mark(path)
            if mark.ignored:
                continue
            if path.name.startswith(COMPACTOR_FILE_PREFIX):
                mark.ignored = True
                plan.skipped["compaction agent transcript (Claude Code summarising, not a sub-agent)"] += 1
                continue
            for _, record in iter_records(path, plan, mark):
                message = record.get("message")
                if record.get("type") == "user" and not record.get("parentUuid") and isinstance(message, dict) \
                        and as_text(message.get("content")).strip() == WARMUP_PROMPT:
                    plan.skipped["warmup sub-agent transcript"] += 1
                    mark.ignored = True
                    break
                folder.feed(record)

    def close(self) -> None:
        self.folder.tools.finish()
        if self.folder.custom_title:
            self.plan.title = title_of(self.folder.custom_title)


def plan_session(source_id: str, mains: list[Path], agents: list[Path]) -> SessionPlan:
    planner = SessionPlanner(source_id)
    planner.add_files(mains, agents)
    return planner.run()
