"""Codex's hook protocol (openai/codex, `codex-rs/hooks/schema/generated/*.command.*.json`).

Inputs (JSON on stdin): `session_id` (the thread id), `transcript_path` (the rollout
file, or null), `cwd`, `model`, `hook_event_name`, and per event `source` (SessionStart:
startup | resume | clear | compact), `prompt` and `turn_id` (UserPromptSubmit),
`trigger` (PreCompact: manual | auto), `stop_hook_active` and `last_assistant_message`
(Stop), `reason` (SessionEnd), `agent_id` and `agent_type` (SubagentStart: a sub-agent
starts with an empty context of its own). SessionStart, UserPromptSubmit and
SubagentStart answer `{"hookSpecificOutput": {"hookEventName": …, "additionalContext":
…}}`; Stop's output schema has no `hookSpecificOutput`, so Stop, PreCompact and
SessionEnd print nothing. Codex runs a hook only once it is trusted (codex_trust.py).

A rollout is `~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<thread id>.jsonl`; when the
payload has no transcript path it is looked up by the thread id. Its import is
`codex-<thread id of the family's root>` (`importers.codex`: forks and sub-agents join
their parent's session).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..values import TYPE_CHECKING
from .claude_code import output as _claude_output
from .event import HookEvent, text_field

if TYPE_CHECKING:
    from typing import Any

AGENT = "codex"
IMPORT_KIND = "codex"
SESSION_PREFIX = "codex-"
EVENTS = {
    "SessionStart": "session-start", "session-start": "session-start",
    "UserPromptSubmit": "user-prompt-submit", "user-prompt-submit": "user-prompt-submit",
    "PreCompact": "pre-compact", "pre-compact": "pre-compact",
    "Stop": "stop", "stop": "stop",
    "SessionEnd": "session-end", "session-end": "session-end",
    "SubagentStart": "subagent-start", "subagent-start": "subagent-start",
}
_WIRE_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit",
               "subagent-start": "SubagentStart"}


def parse(event: str, payload: dict[str, Any]) -> HookEvent:
    session_id = text_field(payload, "session_id")
    if event == "subagent-start":  # the sub-agent's own context: what it was given is its own record
        agent_id = text_field(payload, "agent_id")
        session_id = f"{session_id}/{agent_id}" if session_id and agent_id else session_id
    return HookEvent(agent=AGENT, event=event, session_id=session_id,
                     transcript=text_field(payload, "transcript_path"), cwd=text_field(payload, "cwd"),
                     prompt=text_field(payload, "prompt") or "", source=text_field(payload, "source"),
                     reason=text_field(payload, "reason"))


def output(event: str, context: str, core: str = "") -> str:
    """Claude Code's document, for the three events that add context."""
    return _claude_output(event, context, wire_names=_WIRE_NAMES)


def failure_output(event: str) -> str:
    return ""


def locate_transcript(ev: HookEvent) -> Path | None:
    """The payload's rollout, else the newest rollout named after the thread id."""
    if ev.transcript:
        return Path(ev.transcript).expanduser()
    if not ev.session_id or any(ch in ev.session_id for ch in "/\\*?["):
        return None
    base = Path(os.environ.get("CODEX_HOME") or "~/.codex").expanduser() / "sessions"
    found = sorted(base.rglob(f"rollout-*{ev.session_id}.jsonl")) if base.is_dir() else []
    return found[-1] if found else None
