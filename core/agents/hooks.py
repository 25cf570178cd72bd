"""`scriptorium hook AGENT EVENT`: the provider's life cycle on an agent's hooks (DESIGN §15).

session start → the effective core (`inject`); before a prompt → recall (`recall`);
after a turn (stop) → import the transcript, one write pass; before compaction →
import, write the head branch with force; session end → import, `finish`. The last
three run in a detached process (`jobs`): the agent never waits on a model.

A hook never breaks or blocks its agent: `run` catches everything, prints only a
well-formed answer (nothing, for Claude Code and Codex, when anything failed), and
records every call — outcome, time, what was injected, recall hits, the error — in
the hook log (`hook_log`), where `doctor` and the TUI read it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..values import TYPE_CHECKING
from . import hook_log
from .hook_log import HookCall
from .hook_output import say

if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from .event import HookEvent

AGENTS = ("claude-code", "codex", "pi")
BACKGROUND = ("stop", "pre-compact", "session-end")
FOREGROUND_ENV = "SCRIPTORIUM_HOOK_FOREGROUND"  # "1": do the detached work in this process (tests)
MAX_INPUT = 16 * 1024 * 1024
_RESET_SOURCES = ("startup", "clear", "compact")  # the agent's context starts empty (or from a summary)


def adapter(agent: str) -> ModuleType:
    module: ModuleType
    if agent == "claude-code":
        from . import claude_code as module
    elif agent == "codex":
        from . import codex as module
    elif agent == "pi":
        from . import pi as module
    else:
        raise ValueError(f"unknown agent {agent!r} (choose from {', '.join(AGENTS)})")
    return module


def event_names(agent: str) -> list[str]:
    return list(adapter(agent).EVENTS)


def run(agent: str, event_name: str, raw: bytes, state_dir: Path, *, foreground: bool = False) -> str:
    """Handle one hook call; returns what to print on stdout (possibly ""). Never raises."""
    started = time.perf_counter()
    call = HookCall(agent=agent, event=event_name, outcome="ok")
    module: ModuleType | None = None
    event = event_name
    try:
        module = adapter(agent)
        event = module.EVENTS.get(event_name, "")
        if not event:
            raise ValueError(f"unknown {agent} event {event_name!r}")
        call.event = event
        if Path(state_dir).exists() and not Path(state_dir).is_dir():
            raise NotADirectoryError(f"the state {state_dir} is not a directory")
        payload = _payload(raw)
        ev = module.parse(event, payload)
        call.event, call.session_id = ev.event, ev.session_id  # parse may refine the event (pi's reasons)
        out = _dispatch(module, ev, Path(state_dir), call, foreground or os.environ.get(FOREGROUND_ENV) == "1")
    except Exception as exc:  # noqa: BLE001 - the agent must never see a failure
        call.outcome, call.error = "error", f"{type(exc).__name__}: {exc}"
        out = module.failure_output(event) if module is not None else ""
    call.ms = round((time.perf_counter() - started) * 1000, 2)
    if not hook_log.append(Path(state_dir), call) and call.outcome == "error":
        said = hook_log.redacted(Path(state_dir), {"error": call.error, "event": event_name})
        say(f"scriptorium hook {agent} {said.get('event')}: {said.get('error')} (and the hook log cannot be written)")
    return out




def _payload(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        return {}
    value = json.loads(raw.decode("utf-8", errors="replace"))
    if not isinstance(value, dict):
        raise ValueError("hook input is not a JSON object")
    return value


def _dispatch(module: ModuleType, ev: HookEvent, state_dir: Path, call: HookCall, foreground: bool) -> str:
    if ev.event in ("session-start", "subagent-start"):  # a sub-agent starts from an empty context too
        reset = ev.event == "subagent-start" or ev.source in _RESET_SOURCES or ev.source is None
        from .recall_server import ensure

        ensure(state_dir)  # warm for the session's first prompt, which may come at once: started first
        return module.output(ev.event, _core(state_dir, ev, call, reset=reset))
    if ev.event == "user-prompt-submit":
        return module.output(ev.event, _recall(state_dir, ev, call))
    if ev.event == "before-agent-start":  # pi: the core for the system prompt, and recall, every prompt
        core = _core(state_dir, ev, call, reset=False)
        return module.output(ev.event, _recall(state_dir, ev, call), core)
    if ev.event in BACKGROUND:
        from .jobs import queue

        queue(module, ev, state_dir, call, foreground=foreground)
        return module.output(ev.event, "")
    raise ValueError(f"no handler for {ev.event!r}")


def _core(state_dir: Path, ev: HookEvent, call: HookCall, *, reset: bool) -> str:
    from .inject import known_tokens, session_start_injection
    from .seen import add_seen, prune

    injection = session_start_injection(state_dir)
    call.detail.update(injected=injection.reason, chars=len(injection.text), blocks=len(injection.blocks))
    tokens = known_tokens(state_dir, injection.text)
    if tokens is not None:
        call.detail["tokens"] = tokens
    if injection.text:
        call.detail["text"] = injection.text
    if ev.session_id:
        add_seen(state_dir, ev.agent, ev.session_id, injection.blocks, reset=reset)
        if reset:
            prune(state_dir)
    if not injection.text:
        call.outcome = "skipped"
    return injection.text


def _recall(state_dir: Path, ev: HookEvent, call: HookCall) -> str:
    from .recall_server import ask
    from .seen import add_seen, seen_blocks

    seen = seen_blocks(state_dir, ev.agent, ev.session_id) if ev.session_id else set()
    found, via = ask(state_dir, ev.prompt, seen) if ev.prompt.strip() else (None, "cold (no prompt)")
    if found is None:  # no warm process to ask: the same recall here
        from dataclasses import asdict  # the cold recall loads far more than this

        from .recall import recall_for_prompt

        found = asdict(recall_for_prompt(state_dir, ev.prompt, seen))
    text, hits = found["text"], found["hits"]
    call.detail.update(recall=found["reason"], hits=hits, recall_chars=len(text), recall_tokens=found["tokens"],
                       skipped_seen=found["skipped_seen"], recall_via=via)
    if text:
        call.detail["recall_text"] = text
    if ev.session_id and hits:
        add_seen(state_dir, ev.agent, ev.session_id, [h["block_id"] for h in hits])  # Recall.blocks
    if not text and ev.event == "user-prompt-submit":
        call.outcome = "skipped"
    return text


def read_stdin() -> bytes:
    """The hook's JSON input; a terminal (someone trying the command by hand) gives none."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return b""
        return sys.stdin.buffer.read(MAX_INPUT)
    except (OSError, ValueError):
        return b""
