"""A session id's trip through one write pass, traced as it runs (issue 30).

A 40-turn session is written in one forced pass by the offline model. Every Python call
into a project module that receives the session id as an argument is a step; consecutive
steps in one module are one stay. Printed: the modules entered, the stays, and the
returns (a stay in a module the id had already left once).

Last line: {"modules": …, "stays": …, "returns": …}
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import write

TURNS = 40
DEBUG = "--functions" in sys.argv


def trace(sid: str, run: Callable[[], Any]) -> list[str]:
    """The modules, in call order, of each project function called with `sid` as an argument."""
    steps: list[str] = []

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("scriptorium."):
            return
        code = frame.f_code
        n = code.co_argcount + code.co_kwonlyargcount
        if any(frame.f_locals.get(name) == sid for name in code.co_varnames[:n]):
            steps.append(module.removeprefix("scriptorium.core.") + ("." + code.co_name if DEBUG else ""))

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return steps


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "state")
        sid = store.create_session("trip")
        for i in range(TURNS):
            store.append(sid, ("user", "assistant")[i % 2], f"the runner cache and its eviction order, turn {i}")
        steps = trace(sid, lambda: write(SessionStore(store.state_dir), sid, force=True))
    stays = [m for i, m in enumerate(steps) if i == 0 or steps[i - 1] != m]
    left: set[str] = set()
    returns = 0
    for i, m in enumerate(stays):
        returns += m in left
        if i:
            left.add(stays[i - 1])
    modules = sorted(set(stays))
    print(f"calls carrying the session id: {len(steps)}")
    print(f"modules entered: {len(modules)}: {', '.join(modules)}")
    print(f"stays: {len(stays)}; returns to a module already left: {returns}")
    print(" -> ".join(stays))
    print(json.dumps({"modules": len(modules), "stays": len(stays), "returns": returns, "calls": len(steps)}))


if __name__ == "__main__":
    main()
