"""pi's side of the hooks: a small JSON protocol between pi's extension and the CLI.

pi has no command hooks; its extension (installed under `~/.pi/agent/extensions/`)
runs `scriptorium hook pi EVENT` with one JSON object on stdin and reads one JSON
object from stdout. Both events and their documents:

`before-agent-start` (pi's `before_agent_start`, once per user prompt, before the
agent loop), stdin::

    {"session_id": "…", "session_file": "/…/.pi/agent/sessions/…/<ts>_<id>.jsonl",
     "cwd": "/…", "prompt": "what the user typed"}

stdout (always one object; an empty string means nothing to add)::

    {"core": "<memory-context>…</memory-context>",    # append to the system prompt
     "recall": "<memory-context>…</memory-context>"}  # add as context for this prompt

`core` is the effective core every time (pi rebuilds the system prompt per prompt);
`recall` never repeats a block given earlier in the session, the core's included.

`session-shutdown` (pi's `session_shutdown`), stdin::

    {"session_id": "…", "session_file": "…", "cwd": "…"}

stdin may carry `"reason"` (pi's `event.reason`: quit | reload | new | resume | fork).
stdout `{}`: the session file is imported in a detached process, and finished when the
session really ended for the user — `quit`, or `new`/`resume` (they left it for another);
on `reload` and `fork` (the same conversation goes on) it is only written at the
threshold, as after a turn.
`session_id` is pi's session id (the session header's `id`); its import is `pi-<id>`.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..values import TYPE_CHECKING
from .event import HookEvent, text_field

if TYPE_CHECKING:
    from typing import Any

AGENT = "pi"
IMPORT_KIND = "pi"
SESSION_PREFIX = "pi-"
EVENTS = {
    "before-agent-start": "before-agent-start", "before_agent_start": "before-agent-start",
    "session-shutdown": "session-end", "session_shutdown": "session-end",
}


ENDING_REASONS = ("quit", "new", "resume")  # the user left this session; reload and fork go on with it


def parse(event: str, payload: dict[str, Any]) -> HookEvent:
    reason = text_field(payload, "reason")
    if event == "session-end" and reason is not None and reason not in ENDING_REASONS:
        event = "stop"
    return HookEvent(agent=AGENT, event=event, session_id=text_field(payload, "session_id"),
                     transcript=text_field(payload, "session_file"), cwd=text_field(payload, "cwd"),
                     prompt=text_field(payload, "prompt") or "", reason=reason)


def output(event: str, context: str, core: str = "") -> str:
    if event == "before-agent-start":
        return json.dumps({"core": core, "recall": context}, ensure_ascii=False)
    return "{}"


def failure_output(event: str) -> str:
    return output(event, "")


def locate_transcript(ev: HookEvent) -> Path | None:
    return Path(ev.transcript).expanduser() if ev.transcript else None
