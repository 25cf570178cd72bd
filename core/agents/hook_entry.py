"""The hook's way in: `scriptorium --state DIR hook AGENT EVENT` without the CLI around it.

An agent runs a hook on every session start, prompt and turn end and waits for it, so
its start-up is most of its cost. The command line an install writes is always the same
shape, so it is recognised here by hand and handed straight to `hooks.run`: no argparse,
no command table, no failure machinery (`core.cli` and what it loads are a third of a
bare hook's CPU). Anything else — `--help`, an unknown option, another command — returns
None and goes through the full CLI, which gives the same answer to the same call.

The hook's contract holds on this path too: exit 0 whatever happens, the answer on
stdout, a failure as one line (the hook log, or stderr when there is none).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from .detach import ONE_THREAD
from .hook_output import answer, say


def parse(argv: Sequence[str]) -> tuple[str | None, str, str, bool] | None:
    """(state, agent, event, foreground) when `argv` is a plain hook call, else None."""
    rest = list(argv)
    state: str | None = None
    if len(rest) >= 2 and rest[0] == "--state":
        state, rest = rest[1], rest[2:]
    elif rest and rest[0].startswith("--state="):
        state, rest = rest[0].split("=", 1)[1], rest[1:]
    if not rest or rest[0] != "hook":
        return None
    words = [w for w in rest[1:] if w != "--foreground"]
    if len(words) > 2 or any(w.startswith("-") for w in words):
        return None  # --help, a misspelt option: the CLI's parser says what it says
    agent, event = (words + ["", ""])[:2]
    return state, agent, event, len(words) < len(rest) - 1


def main(argv: Sequence[str]) -> int | None:
    """Answer the hook `argv` names and return 0, or None when `argv` is not a plain hook call."""
    call = parse(argv)
    if call is None:
        return None
    state, agent, event, foreground = call
    for name in ONE_THREAD:  # a user's own setting wins
        os.environ.setdefault(name, "1")
    try:
        from ..paths import resolve_state_dir
        from .hooks import read_stdin, run

        out = run(agent, event, read_stdin(), resolve_state_dir(state), foreground=foreground)
    except Exception as exc:  # noqa: BLE001 - run never raises; this is the state's resolution
        say(f"scriptorium hook {agent} {event}: {type(exc).__name__}: {exc}")
        return 0
    answer(out)
    return 0

