"""One hook call, whatever agent made it: the fields Scriptorium acts on."""

from __future__ import annotations

from ..values import TYPE_CHECKING, Value

if TYPE_CHECKING:
    from typing import Any


class HookEvent(Value):
    """agent: "claude-code" | "codex" | "pi"; event, canonical: session-start | subagent-start |
    user-prompt-submit | before-agent-start | stop | pre-compact | session-end; session_id: the
    agent's own session id; transcript: the agent's transcript file, if the payload names one;
    source (session start): startup | resume | clear | compact; reason (session end): why
    (pi: quit | reload | new | resume | fork)."""

    __slots__ = ("agent", "event", "session_id", "transcript", "cwd", "prompt", "source", "reason")

    def __init__(self, agent: str, event: str, session_id: str | None = None, transcript: str | None = None,
                 cwd: str | None = None, prompt: str = "", source: str | None = None,
                 reason: str | None = None) -> None:
        self.agent, self.event, self.session_id, self.transcript = agent, event, session_id, transcript
        self.cwd, self.prompt, self.source, self.reason = cwd, prompt, source, reason

    def but(self, event: str) -> HookEvent:
        """The same call as another event (a coalesced job doing what a later hook asked)."""
        return HookEvent(self.agent, event, self.session_id, self.transcript, self.cwd, self.prompt, self.source,
                         self.reason)


def text_field(payload: dict[str, Any], key: str) -> str | None:
    """A string field of the payload; anything else (missing, null, a number) is None."""
    value = payload.get(key)
    return value if isinstance(value, str) and value else None
