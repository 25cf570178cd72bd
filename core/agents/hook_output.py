"""What a hook prints: its answer on stdout for the agent, and one line on stderr when the
hook log cannot take a failure. Nothing but `sys`: the fast hook entry imports it."""

from __future__ import annotations

import sys


def answer(out: str | None) -> None:
    """A hook's answer on stdout, for the agent to read."""
    if out:
        try:
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass  # the agent stopped listening: nothing to do about it


def say(line: str) -> None:
    """One line on stderr: where a failure goes when the hook log cannot take it."""
    try:
        sys.stderr.write(" ".join(line.split())[:500] + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
