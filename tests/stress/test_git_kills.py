"""Kills inside git operations (issue 19), one of each kind: a worker process importing,
appending, writing or sleeping is SIGKILLed together with its git while git is inside
the planned command (tests/stress/gitkill.py). Each time the next process carries on:
the next append to that session, or the next sleep, succeeds with git in step with the
files; at the end every turn has reached memory (missed = 0). bench/stress.py mixes
such kills into its long seeded run."""

from __future__ import annotations

from pathlib import Path

from .gitkill import KillPlan
from .world import World

KILLS = [
    # a new session, as an importer makes it: its git init, the pack stream, the index sync
    ("import", 150, KillPlan("init", "session", 1, "0")),
    ("import", 150, KillPlan("config", "session", 2, "0")),
    ("import", 200, KillPlan("fast-import", "session", 1, "lock")),
    ("import", 200, KillPlan("update-index", "session", 1, "0")),
    ("import", 30, KillPlan("commit", "session", 1, "lock")),  # below MIN_FILES: the ordinary commit
    # more nodes into a session whose marks await their commit
    ("import-more", 150, KillPlan("status", "session", 1, "0")),
    ("import-more", 150, KillPlan("update-index", "session", 1, "lock")),
    ("append", 2, KillPlan("commit", "session", 1, "lock")),
    # the memory side of a write, a finish and a sleep
    ("write", 0, KillPlan("update-index", "memory", 1, "lock")),  # the install's temporary index
    ("finish", 0, KillPlan("update-ref", "memory", 2, "lock")),  # HEAD moving to the install's commit
    ("sleep", 0, KillPlan("update-index", "memory", 2, "0")),  # the person's index after the commit
]


def test_kills_inside_git_wedge_nothing_and_every_turn_reaches_memory(tmp_path: Path) -> None:
    """One world through every kill in turn (one test: the kills build on each other's state)."""
    world = World(tmp_path / "state", threshold=60)
    for pick in range(2):
        world.new_session()
        for _ in range(8):
            world.append(pick)
    world.write(0)  # marks: the session's next writer has their commit to make
    for kind, size, plan in KILLS:
        crashes = world.crashes
        world.killed(kind, 0, plan, size)
        assert world.crashes == crashes + 1, f"the plan never came up: {plan}"
        assert world.check(list(world.mirrors)) == [], f"after a kill at {plan}"
        assert world.violations == [], f"after a kill at {plan}"
    figures = world.final()
    assert figures.violations == []
    assert figures.missed == 0
    assert figures.duplicates <= figures.exposed and figures.bound_violations == 0
    assert sum(1 for k in figures.git_kills if ":" in k) == 8  # every (repository, command) planned came up
    assert figures.git_kills.get("inside", 0) >= len(KILLS) // 2  # most of them while git still ran
