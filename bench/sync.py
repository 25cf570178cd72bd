"""Sync cost follows the change, not the memory (issue 18).

Two machines share a memory of N blocks (25 cited blocks per topic) through a bare
remote; each edits CHANGED blocks (different topics), then A pushes, B merges (fetch,
block merge, validated install, merge commit, push) and A pulls. Printed for two memory
sizes with the same change, CPU and wall time of B's merging sync (median of RUNS).

Usage: python bench/sync.py [--sizes 500,2000] [--changed 50] [--runs 3]
Last line: {"sizes":[…],"changed":…,"merge_wall_s":[…],"merge_cpu_s":[…],"pull_wall_s":[…],"ratio_wall":…}
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.sync.remote import add_remote
from scriptorium.core.sync.run import sync

PER_TOPIC = 25


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def build(root: Path, blocks: int) -> tuple[Path, Path]:
    bare = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a = root / "a"
    ws = Workspace.open(a)
    add_remote(ws.root, "origin", str(bare))
    for t in range(blocks // PER_TOPIC):
        text = f"# Topic {t}\n\n" + "\n\n".join(f"Fact {t}-{i} about the build cache." for i in range(PER_TOPIC)) + "\n"
        assert save_topic(ws, f"t{t:04d}.md", text).outcome == "installed"
    assert sync(a).outcome == "ok"
    b = root / "b"
    add_remote(Workspace.open(b).root, "origin", str(bare))
    assert sync(b).outcome == "ok"
    assert sync(a).outcome == "ok"  # A takes B's adoption (its workspace id joins the shared list)
    return a, b


def edit(state: Path, topics: range, tag: str, changed: int) -> None:
    ws = Workspace.open(state)
    per = max(1, changed // len(topics))
    for t in topics:
        text = ws.read_topic(f"t{t:04d}.md")
        for i in range(per):
            text = text.replace(f"Fact {t}-{i} about", f"Fact {t}-{i} ({tag}) about", 1)
        assert save_topic(ws, f"t{t:04d}.md", text).outcome == "installed"


def run(blocks: int, changed: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        a, b = build(Path(tmp), blocks)
        edit(a, range(0, 2), "a", changed)
        edit(b, range(2, 4), "b", changed)
        pushed = sync(a)
        assert pushed.code == "PUSHED", pushed.message
        c0, w0 = cpu(), time.perf_counter()
        merged = sync(b)
        merge_wall, merge_cpu = time.perf_counter() - w0, cpu() - c0
        assert merged.code == "MERGED" and not merged.conflicts, merged.message
        w0 = time.perf_counter()
        assert sync(a).code == "PULLED"
        return merge_wall, merge_cpu, time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="500,2000")
    ap.add_argument("--changed", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures = {}
    print(f"{'blocks':>7} {'changed/side':>12} {'merge wall s':>13} {'merge cpu s':>12} {'pull wall s':>12}")
    for n in sizes:
        runs = [run(n, args.changed) for _ in range(args.runs)]
        med = [statistics.median(r[i] for r in runs) for i in range(3)]
        figures[n] = med
        print(f"{n:>7} {args.changed:>12} {med[0]:>13.3f} {med[1]:>12.3f} {med[2]:>12.3f}", flush=True)
    small, large = figures[sizes[0]], figures[sizes[-1]]
    print(json.dumps({"sizes": sizes, "changed": args.changed,
                      "merge_wall_s": [round(figures[n][0], 3) for n in sizes],
                      "merge_cpu_s": [round(figures[n][1], 3) for n in sizes],
                      "pull_wall_s": [round(figures[n][2], 3) for n in sizes],
                      "ratio_wall": round(large[0] / small[0], 2)}))


if __name__ == "__main__":
    sys.exit(main())
