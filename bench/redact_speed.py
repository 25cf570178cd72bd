"""Redaction throughput against another revision's rules (issue 28: not lower than before).

bench/import.py's corpus (~100 MB of real-shaped Claude Code JSONL) is planned once per
process, then this checkout's redactor and the redactor of git revision REV (its `core/`
tree extracted and imported beside this one) redact every planned node's text, input and
metadata (bench/import.py's `redact_cpu`, the work the store's door does), alternating
over `--rounds` rounds so a change of load falls on both. Each of `--processes` fresh
processes gives the two medians of CPU seconds; the result is the median of the
processes' ratios, which a shared machine moves far less than either figure.
Usage: python bench/redact_speed.py [--against REV] [--mb 100] [--rounds 7] [--processes 5]
Last line: {"against": …, "mb": …, "mb_per_s": …, "against_mb_per_s": …, "speed_vs_against": …, …}
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE_ISSUE_28 = "6e24916"  # the redactor before issue 28's rules (placeholders, command lines)


def bench_import() -> Any:
    spec = importlib.util.spec_from_file_location("bench_import", ROOT / "bench" / "import.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def baseline_redactor(rev: str, where: Path) -> Callable[[Path], Any]:
    """`for_state` of revision `rev`'s redactor: its `core/` extracted under `where` as the
    package `redact_baseline.core` (its relative imports find that revision's modules)."""
    tree = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "core"], capture_output=True,
                          check=True).stdout
    package = where / "redact_baseline"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    with tarfile.open(fileobj=io.BytesIO(tree)) as tar:
        tar.extractall(package, filter="data")
    sys.path.insert(0, str(where))
    return importlib.import_module("redact_baseline.core.redact").for_state


def child(rev: str, mb: float, rounds: int) -> dict[str, Any]:
    from scriptorium.core.importers import claude_code
    from scriptorium.core.redact import for_state

    bi = bench_import()
    with tempfile.TemporaryDirectory(prefix="scriptorium-bench-redact-") as tmp:
        root = Path(tmp)
        _files, nbytes = bi.build_corpus(root / "projects", mb, 10.0)
        plans = list(claude_code.plan_sessions(claude_code.discover([root / "projects"])))
        redactors = {"ours": for_state(root / "state"), "against": baseline_redactor(rev, root / "baseline")(
            root / "baseline-state")}
        runs: dict[str, list[float]] = {"ours": [], "against": []}
        for i in range(rounds):
            for name in (("ours", "against") if i % 2 == 0 else ("against", "ours")):
                runs[name].append(bi.redact_cpu(redactors[name], plans))
    return {"mb": nbytes / 1e6, "ours_s": statistics.median(runs["ours"]),
            "against_s": statistics.median(runs["against"]), "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="REV", default=BEFORE_ISSUE_28)
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--processes", type=int, default=5)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.against, args.mb, args.rounds)))
        return
    load = [os.getloadavg()[0]]
    results = []
    for _ in range(args.processes):
        done = subprocess.run([sys.executable, __file__, "--child", "--against", args.against, "--mb", str(args.mb),
                               "--rounds", str(args.rounds)], capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.splitlines()[-1]))
    load.append(os.getloadavg()[0])
    mb = results[0]["mb"]
    print(f"corpus: {mb:.1f} MB (bench/import.py's), {args.processes} processes x {args.rounds} alternating rounds, "
          f"load {load[0]:.1f} -> {load[1]:.1f}")
    print(f"{'process':<9}{'ours s':>9}{args.against + ' s':>13}{'speed':>9}")
    ratios = []
    for i, r in enumerate(results, 1):
        ratios.append(r["against_s"] / r["ours_s"])
        print(f"{i:<9}{r['ours_s']:>9.3f}{r['against_s']:>13.3f}{ratios[-1]:>8.2f}x")
    ours, theirs = statistics.median(r["ours_s"] for r in results), statistics.median(r["against_s"] for r in results)
    speed = statistics.median(ratios)
    print(f"median: ours {mb / ours:.0f} MB/s, {args.against}'s {mb / theirs:.0f} MB/s; ours at {speed:.2f}x its "
          f"speed (the median of the processes' ratios; CPU time)")
    print(json.dumps({"against": args.against, "mb": round(mb, 1), "mb_per_s": round(mb / ours, 1),
                      "against_mb_per_s": round(mb / theirs, 1), "speed_vs_against": round(speed, 3),
                      "ratios": [round(x, 3) for x in ratios], "load": [round(x, 1) for x in load]}))


if __name__ == "__main__":
    main()
