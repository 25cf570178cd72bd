"""Several processes on one state directory at once, for a bounded time (issue 9):
two per-turn writers, a finisher, a sleeper and a human editor. Nothing is lost, every
refused lock is reported retryable, the workspace validates, and every install has its
commit and its audit record. bench/concurrency.py runs the same for longer."""

from __future__ import annotations

import json
from pathlib import Path

from .concurrency import run


def test_concurrent_writers_finish_sleep_and_a_human_lose_nothing(tmp_path: Path) -> None:
    report = run(tmp_path / "state", seconds=6)
    print(json.dumps(report.line()))
    assert report.problems == []  # no failure but a retryable refused lock (or a human's stale-base conflict)
    for role in ("writer", "finisher", "sleeper", "human"):
        assert sum(n for key, n in report.operations.items() if key.startswith(role + ":")) > 0, role
    assert report.turns > 0 and report.missed == 0 and report.duplicates == 0
    assert report.human_notes > 0 and report.lost_updates == 0
