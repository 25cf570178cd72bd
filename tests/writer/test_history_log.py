"""The agent-history log keeps every run's prompt, so it is rotated: bounded, never lost mid-line."""

from __future__ import annotations

import json
from pathlib import Path

from scriptorium.core.paths import StatePaths
from scriptorium.core.writer_status import HISTORY_FILE, HISTORY_KEPT, append_history


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_full_log_moves_aside_and_the_one_before_it_goes(tmp_path: Path) -> None:
    paths = StatePaths(tmp_path / "state")
    for n in range(30):
        append_history(paths, {"stage": "write", "prompt": "x" * 100, "n": n}, max_bytes=1000)
    current, kept = lines(paths.runtime / HISTORY_FILE), lines(paths.runtime / HISTORY_KEPT)
    assert current and kept
    assert [e["n"] for e in kept + current] == list(range(30))[-len(kept + current):]  # newest runs, in order
    assert current[-1]["n"] == 29
    assert (paths.runtime / HISTORY_FILE).stat().st_size < 1000 + 200
    assert (paths.runtime / HISTORY_KEPT).stat().st_size < 1000 + 200
    assert sorted(p.name for p in paths.runtime.iterdir() if "agent-history" in p.name and p.suffix == ".jsonl") \
        == [HISTORY_KEPT, HISTORY_FILE]


def test_below_the_limit_nothing_moves(tmp_path: Path) -> None:
    paths = StatePaths(tmp_path / "state")
    for n in range(5):
        append_history(paths, {"stage": "write", "n": n})
    assert [e["n"] for e in lines(paths.runtime / HISTORY_FILE)] == list(range(5))
    assert not (paths.runtime / HISTORY_KEPT).exists()
