"""One hook call, whatever agent made it: the fields Scriptorium acts on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class HookEvent:
    agent: str  # "claude-code" | "codex" | "pi"
    event: str  # canonical: session-start | subagent-start | user-prompt-submit | before-agent-start | stop | pre-compact | session-end
    session_id: str | None = None  # the agent's own session id
    transcript: str | None = None  # the agent's transcript file, if the payload names one
    cwd: str | None = None
    prompt: str = ""
    source: str | None = None  # session start: startup | resume | clear | compact
    reason: str | None = None  # session end: why (pi: quit | reload | new | resume | fork)


def text_field(payload: dict[str, Any], key: str) -> str | None:
    """A string field of the payload; anything else (missing, null, a number) is None."""
    value = payload.get(key)
    return value if isinstance(value, str) and value else None
