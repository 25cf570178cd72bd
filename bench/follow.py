"""Live-follow benchmark (issue 15 item 9): appending 1 MB to a 100 MB live transcript.

The live session is built like bench/import.py's corpus (real Claude Code fixtures
replicated with fresh ids, chained into one conversation), cut at a line boundary
about `--append-mb` before its end. The follower's path is timed: the first import
with a planner cache (what `watch --import` does at start), then the rest of the
file appended and imported again with the same planners. For scale, in the same run:
the same appended bytes imported from scratch as a file of their own (what 1 MB costs
on its own), and the old way, a re-import of the whole grown file without planners.
The incremental import should cost about what the appended megabyte costs alone.
Usage: python bench/follow.py [--mb 100] [--append-mb 1] [--runs 3] [--tmp DIR]
Last line: {"live_mb": …, "append_mb": …, "incremental_s": …, "alone_s": …, "ratio": …, …}
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from scriptorium.core.importers import claude_code
from scriptorium.core.importers.apply import apply_plan
from scriptorium.core.importers.resume import PlannerCache
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

_spec = importlib.util.spec_from_file_location("bench_import", Path(__file__).with_name("import.py"))
assert _spec is not None and _spec.loader is not None
bench_import = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_import)


def cut_at_line(data: bytes, keep: int) -> int:
    """The offset of the first line boundary at or after `keep` bytes."""
    return data.index(b"\n", keep) + 1


def one_run(root: Path, live_mb: float, append_mb: float) -> dict[str, Any]:
    corpus = root / "projects"
    total = (live_mb + append_mb) / 0.9  # about a tenth of the corpus is sub-agent files beside the main one
    bench_import.build_corpus(corpus, total, total + 1)
    live = sorted(corpus.glob("*/*.jsonl"))[0]  # the main file (sub-agent files sit deeper)
    data = live.read_bytes()
    split = cut_at_line(data, len(data) - int(append_mb * 1e6))
    live.write_bytes(data[:split])
    planners, store = PlannerCache(), SessionStore(root / "state")
    t = time.perf_counter()
    first = import_sources(store, "claude-code", [live], planners=planners)
    initial_s = time.perf_counter() - t
    with open(live, "ab") as fh:
        fh.write(data[split:])
    incremental = timed_import(store, [live], planners)

    alone_file = root / "alone" / "-p" / "0a1b2c3d-0000-4000-8000-000000000000.jsonl"
    alone_file.parent.mkdir(parents=True)
    alone_file.write_bytes(data[split:])
    alone = timed_import(SessionStore(root / "alone-state"), [alone_file], None)

    t = time.perf_counter()  # the old way: the whole grown file re-read to find what is new
    full = import_sources(SessionStore(root / "state"), "claude-code", [live])
    reread_s = time.perf_counter() - t
    assert not (first.errors or full.errors)
    # what a whole re-read still adds: at most the calls left open at the very end of the file
    # (a whole read counts a sub-agent's turns, read after the main file, as "the conversation moved on")
    assert full.nodes_added <= 10, full.to_json()
    return {"live_mb": split / 1e6, "append_mb": (len(data) - split) / 1e6, "initial_s": initial_s,
            **{f"incremental_{k}": v for k, v in incremental.items()}, **{f"alone_{k}": v for k, v in alone.items()},
            "reread_s": reread_s, "reread_added": full.nodes_added}


def timed_import(store: SessionStore, files: list[Path], planners: PlannerCache | None) -> dict[str, float]:
    """What `import_sources` does for one session, its two halves timed: read+parse+fold
    (the importer's share), then the store's append and commit."""
    t = time.perf_counter()
    plans = list(claude_code.plan_sessions(claude_code.discover(files), planners))
    plan_s = time.perf_counter() - t
    t = time.perf_counter()
    added = sum(apply_plan(store, plan).added for plan in plans if plan.nodes)
    apply_s = time.perf_counter() - t
    return {"plan_s": plan_s, "apply_s": apply_s, "s": plan_s + apply_s, "nodes": added,
            "bytes": sum(plan.bytes_read for plan in plans)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0, help="size of the live transcript before the append")
    ap.add_argument("--append-mb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3, help="appends timed (medians are reported)")
    ap.add_argument("--tmp", type=Path, default=None, help="where to build corpus and state (default: system temp)")
    args = ap.parse_args()
    if args.tmp is not None:
        args.tmp.mkdir(parents=True, exist_ok=True)
    runs = []
    with tempfile.TemporaryDirectory(prefix="scriptorium-bench-follow-", dir=args.tmp) as tmp:
        for number in range(args.runs):
            runs.append(one_run(Path(tmp) / f"run{number}", args.mb, args.append_mb))
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    ratio = med["incremental_s"] / med["alone_s"]
    plan_ratio = med["incremental_plan_s"] / med["alone_plan_s"]
    rows = [
        ("live transcript", f"{med['live_mb']:,.1f} MB, first import {med['initial_s']:.2f} s"),
        ("appended", f"{med['append_mb']:.2f} MB, {med['incremental_nodes']:.0f} nodes"),
        ("incremental import (planners)", f"{med['incremental_s']:6.3f} s = read+plan {med['incremental_plan_s']:.3f} s"
                                          f" + store {med['incremental_apply_s']:.3f} s  "
                                          f"({med['incremental_bytes'] / 1e6:.2f} MB read)"),
        ("the appended MB imported alone", f"{med['alone_s']:6.3f} s = read+plan {med['alone_plan_s']:.3f} s"
                                           f" + store {med['alone_apply_s']:.3f} s"),
        ("ratio incremental / alone", f"{ratio:6.2f} overall, {plan_ratio:.2f} read+plan (target: about 1)"),
        ("whole-file re-import (before)", f"{med['reread_s']:6.3f} s"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    if ratio > 1.5 > plan_ratio:
        print("note: the store's share grows with the session (git add/commit and the index file of a session "
              "with this many nodes), not with the transcript: the importer reads only the appended bytes.")
    print(json.dumps({"live_mb": round(med["live_mb"], 2), "append_mb": round(med["append_mb"], 2),
                      "incremental_s": round(med["incremental_s"], 3),
                      "incremental_plan_s": round(med["incremental_plan_s"], 3),
                      "incremental_mb_read": round(med["incremental_bytes"] / 1e6, 3),
                      "alone_s": round(med["alone_s"], 3), "alone_plan_s": round(med["alone_plan_s"], 3),
                      "ratio": round(ratio, 2), "plan_ratio": round(plan_ratio, 2),
                      "reread_s": round(med["reread_s"], 3), "initial_s": round(med["initial_s"], 3),
                      "runs": args.runs}))


if __name__ == "__main__":
    main()
