"""Claude Code's hook protocol (code.claude.com/docs/en/hooks).

Every hook gets one JSON object on stdin: `session_id`, `transcript_path` (the session's
JSONL under `~/.claude/projects/`), `cwd`, `permission_mode`, `hook_event_name`, plus
the event's own fields — `source` (startup | resume | clear | compact) and `model` for
SessionStart, `prompt` for UserPromptSubmit, `stop_hook_active` for Stop, `trigger`
(manual | auto) and `custom_instructions` for PreCompact, `reason` for SessionEnd.
Context goes back as `{"hookSpecificOutput": {"hookEventName": …, "additionalContext":
…}}` on stdout with exit 0; an empty stdout adds nothing. Stop, PreCompact and
SessionEnd print nothing: anything Stop prints could be read as a decision.

Claude Code's session id is the transcript's stem, and its import is `cc-<id>`
(`importers.claude_code`).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..values import TYPE_CHECKING
from .event import HookEvent, text_field

if TYPE_CHECKING:
    from typing import Any

AGENT = "claude-code"
IMPORT_KIND = "claude-code"
SESSION_PREFIX = "cc-"
EVENTS = {
    "session-start": "session-start", "SessionStart": "session-start",
    "user-prompt-submit": "user-prompt-submit", "UserPromptSubmit": "user-prompt-submit",
    "stop": "stop", "Stop": "stop",
    "pre-compact": "pre-compact", "PreCompact": "pre-compact",
    "session-end": "session-end", "SessionEnd": "session-end",
}
_WIRE_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}


def parse(event: str, payload: dict[str, Any]) -> HookEvent:
    return HookEvent(agent=AGENT, event=event, session_id=text_field(payload, "session_id"),
                     transcript=text_field(payload, "transcript_path"), cwd=text_field(payload, "cwd"),
                     prompt=text_field(payload, "prompt") or "", source=text_field(payload, "source"))


def output(event: str, context: str, core: str = "", wire_names: dict[str, str] | None = None) -> str:
    """The stdout document for `context` (nothing when there is nothing to add); `wire_names`
    maps the events that add context to the agent's names for them (Codex has one more)."""
    names = _WIRE_NAMES if wire_names is None else wire_names
    if not context or event not in names:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": names[event], "additionalContext": context}},
                      ensure_ascii=False)


def failure_output(event: str) -> str:
    return ""


def locate_transcript(ev: HookEvent) -> Path | None:
    return Path(ev.transcript).expanduser() if ev.transcript else None
