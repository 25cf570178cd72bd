"""Fork-stress and fault-injection benchmark (issue 9).

Seeded random operations on several sessions — append, tool call, retry (fork at the
head), re-ask (fork anywhere), rewind, compaction, sub-agent spawn, per-turn write,
finish, sleep — run through the real engine, with crashes injected at every step
boundary of a write (after the evidence archive, at each step of any install, after
the install before marking, halfway through the marks). Invariants are checked after
every operation; at the end every session is finished. The machinery is
tests/stress/world.py (shared with the CI tests, which run a short seeded version).

Kills inside git (issue 19): some operations — imports of 30 to 1,200 nodes (new
sessions and existing ones), appends, writes, finishes, sleeps — run in a worker
process that is SIGKILLed, with its git, while git runs a planned command in a session
(fast-import, update-index, commit, status, init, config) or in the memory's install
(read-tree, update-index, write-tree, commit-tree, update-ref, status); tests/stress/gitkill.py. After each kill the next operation on
that session (an append) or on the memory (a sleep) must succeed with git in step with
the files, else the run counts it "wedged".

"Handed to the writer" is counted at the model boundary by a scripted instant model.
Two baselines run on the same operation sequence and the same crashes, over a
pure-Python mirror of the same DAG: a position cursor per session, and a per-thread
watermark that re-extracts a fork from scratch.

Usage: python bench/stress.py [--operations N] [--seed S] [--kill-weight W]   (default: 10,000 operations)
Last line: {"operations":…,"crashes":…,"missed":…,"duplicates":…,
            "baselines":{"cursor":{"missed":…,"duplicates":…},"watermark":{…}},
            "git_kills":{"total":…,"inside":…,"wedged":…}}
Exit status 1 when an invariant failed or Scriptorium missed a turn.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
SHM = "/dev/shm"


def load_world():
    """tests/stress/world.py, as the tests import it (`stress.world`); tests/ goes first
    on the path so that `stress` is that package, not this script."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from stress import world

    return world


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kill-weight", type=float, default=None,
                        help="weight of the operations killed inside git, against 93 for the others "
                             "(default: the world's KILL_WEIGHT; 0: none)")
    parser.add_argument("--tmp", default=SHM if os.access(SHM, os.W_OK) else None,
                        help="where the state directory goes (default: /dev/shm when there is one: the run "
                             "measures correctness; fsync costs are bench/write.py's and bench/transaction.py's)")
    args = parser.parse_args(argv)
    world = load_world()
    started = time.perf_counter()

    def progress(done: int, w) -> None:
        if done % 500 == 0:
            elapsed = time.perf_counter() - started
            print(f"  {done} operations, {w.crashes} crashes, {elapsed:.0f} s ({done / elapsed:.1f} ops/s)",
                  file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="scriptorium-stress-", dir=args.tmp) as tmp:
        f = world.run(args.operations, args.seed, Path(tmp) / "state", progress=progress,
                      kill_weight=world.KILL_WEIGHT if args.kill_weight is None else args.kill_weight)
    seconds = time.perf_counter() - started

    mix = ", ".join(f"{name} {count}" for name, count in sorted(f.ops.items(), key=lambda kv: -kv[1]))
    print(f"seed {args.seed}: {f.operations} operations in {seconds:.0f} s ({f.operations / seconds:.1f} ops/s, "
          f"final finish included; state in {args.tmp or tempfile.gettempdir()}) over {f.sessions} sessions, "
          f"{f.nodes} nodes, {f.reachable} recorded turns reachable from a live tip")
    print(f"operations: {mix}")
    print(f"crashes injected: {f.crashes} ({f.exposing_crashes} between an install and its marks, "
          f"exposing {f.exposed} turn(s) to a redo)")
    kills = f.line()["git_kills"]
    where = ", ".join(f"{k} {v}" for k, v in sorted(f.git_kills.items()) if ":" in k)
    print(f"kills inside git: {kills['total']} ({kills['inside']} while git still ran; {where or 'none'}); "
          f"wedged afterwards: {kills['wedged']}")
    print(f"writer runs: {f.handovers} hand-overs, {f.landed_handovers} landed in memory; "
          f"{f.deferred} turn(s) of short abandoned branches left pending by finish, written by the final drain")
    print()
    print(f"{'mechanism':<34}{'missed':>8}{'duplicates':>12}")
    print(f"{'scriptorium (marker on the turn)':<34}{f.missed:>8}{f.duplicates:>12}")
    print(f"{'baseline: cursor per session':<34}{f.cursor['missed']:>8}{f.cursor['duplicates']:>12}")
    print(f"{'baseline: watermark per thread':<34}{f.watermark['missed']:>8}{f.watermark['duplicates']:>12}")
    print()
    print(f"duplicates within the crash bound: {'yes' if not f.bound_violations else f'NO ({f.bound_violations} turns)'} "
          f"({f.duplicates} turns handed over again <= {f.exposed} turns a crash left installed but unmarked)")
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(f.outcomes.items()))
    print(f"write outcomes (crashed calls excluded): {outcomes}")
    print(f"invariant violations: {len(f.violations)}")
    for problem in f.violations[:10]:
        print(f"  {problem}")
    print(json.dumps(f.line()))
    return 1 if f.violations or f.missed else 0


if __name__ == "__main__":
    sys.exit(main())
