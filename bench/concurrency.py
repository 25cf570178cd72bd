"""Concurrency benchmark (issue 9): several processes on one state directory at once.

Two per-turn writers (each appending to its own session and writing after every
exchange), a finisher (appending to its own session and finishing it and a writer's
session in turn), a sleeper (reorganizing in a loop) and a human (saving a topic
against the text it read) start together and run for a bounded time; then every
session is finished and everything is checked: each refused lock was reported
retryable, every appended turn landed in memory once, every installed human note is
still there, the workspace validates, and every install has its commit and audit
record. The machinery is tests/stress/concurrency.py (the CI test runs it briefly).

Usage: python bench/concurrency.py [--seconds S]          (default 30 s)
Last line: {"processes_ops": {…}, "turns": …, "handovers": …, "missed": …, "duplicates": …,
            "human_notes": …, "lost_updates": …, "commits": …, "problems": …}
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))  # first: `stress` is tests/stress, not bench/stress.py
    from stress.concurrency import run

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="scriptorium-concurrency-") as tmp:
        report = run(Path(tmp) / "state", args.seconds)
    seconds = time.perf_counter() - started
    by_role: dict[str, Counter[str]] = {}
    for key, count in report.operations.items():
        role, outcome, code = key.split(":", 2)
        by_role.setdefault(role, Counter())[outcome if outcome != "ok" else f"ok {code}"] += count
    print(f"5 processes for {args.seconds:.0f} s ({seconds:.0f} s with start-up and the final finish)")
    print(f"{'process':<10}{'calls':>7}  outcomes")
    for role, outcomes in sorted(by_role.items()):
        detail = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        print(f"{role:<10}{sum(outcomes.values()):>7}  {detail}")
    print(f"turns appended {report.turns}, writer hand-overs {report.handovers}, missed {report.missed}, "
          f"duplicates {report.duplicates}")
    print(f"human notes installed {report.human_notes}, lost updates {report.lost_updates}; "
          f"workspace commits {report.commits}")
    print(f"problems: {len(report.problems)}")
    for problem in report.problems[:10]:
        print(f"  {problem}")
    print(json.dumps(report.line()))
    return 1 if report.problems or report.missed or report.lost_updates else 0


if __name__ == "__main__":
    sys.exit(main())
