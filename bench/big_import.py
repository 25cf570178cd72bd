"""Big import benchmark (issue 19): one session of 10k, 20k and 40k turns, imported the
way the importers do it (a session created without its commit, then one batch), so the
node files go to git as one `git fast-import` pack and git's index is then brought in
step for every path.

Printed per size: the whole import, the index sync alone (inside it), and the recovery
after a kill in the window between the packed commit and the index sync — the flag is
up and every path of the import is a leftover, which the next writer commits (before
issue 19 that `git add` of 40k paths died with E2BIG). Linear means the 20k/10k ratio
stays near 2 (the old `git reset --pathspec-from-file` sync was ~4: quadratic).
`--legacy` times that old sync instead, for comparison (slow: minutes at 40k).

Usage: python bench/big_import.py [--sizes 10000,20000,40000] [--tmp DIR] [--legacy]
Last line: {"import_10000_s": …, "sync_10000_s": …, "sync_cpu_10000_s": …, "recover_10000_s": …, …,
            "ratio_20k_10k": …, "sync_ratio_20k_10k": …, "sync_cpu_ratio_20k_10k": …}
Wall times swing with the machine's load; the sync's CPU seconds (git's, as a child) do not.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from scriptorium.core.sessions import pack
from scriptorium.core.sessions import repo as session_git
from scriptorium.core.sessions.store import SessionStore

REAL_SYNC = pack.sync_index
TEXT = ("We measured the cache eviction under the nightly load and decided to keep the LRU budget; "
        "the runner's disk filled twice, so the next step is a quota per shard. ") * 3


def children_cpu() -> float:
    """CPU seconds of finished child processes (git): the sync's cost, whatever else the machine runs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def legacy_sync(workdir: Path, paths: list[str]) -> bool:
    """The index sync before issue 19: every path a pathspec, each matched against every entry."""
    listing = b"\0".join(p.encode("utf-8") for p in paths) + b"\0"
    return subprocess.run(["git", "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"], cwd=workdir,
                          input=listing, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def one(size: int, root: Path, legacy: bool) -> dict[str, float]:
    state = root / f"state-{size}"
    store = SessionStore(state)
    real_sync = legacy_sync if legacy else REAL_SYNC
    synced: list[float] = []
    synced_cpu: list[float] = []

    def timed_sync(workdir: Path, paths: list[str]) -> bool:
        started, cpu = time.perf_counter(), children_cpu()
        ok = real_sync(workdir, paths)
        synced.append(time.perf_counter() - started)
        synced_cpu.append(children_cpu() - cpu)
        return ok

    pack.sync_index = timed_sync
    try:
        started = time.perf_counter()
        sid = store.create_session("big import", session_id=f"big-{size}", commit=False)
        with store.registry_deferred(), store.batch(sid, message=f"import: {size} node(s)"):
            for i in range(size):
                store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}: {TEXT}")
        seconds = time.perf_counter() - started
    finally:
        pack.sync_index = REAL_SYNC
    d = store.session_dir(sid)
    if subprocess.run(["git", "status", "--porcelain"], cwd=d, capture_output=True).stdout:
        raise SystemExit(f"{size}: git disagrees with the files after the import")
    # the kill between the packed commit and the index sync: HEAD has every file, the
    # index none (a session created without its commit), and the flag is up
    subprocess.run(["git", "read-tree", "--empty"], cwd=d, check=True)
    session_git.set_flag(d, True)
    started = time.perf_counter()
    SessionStore(state).append(sid, "user", "the next turn, after the kill")
    recover = time.perf_counter() - started
    if subprocess.run(["git", "status", "--porcelain"], cwd=d, capture_output=True).stdout:
        raise SystemExit(f"{size}: git disagrees with the files after the recovery")
    shutil.rmtree(state)
    return {"import": seconds, "sync": sum(synced), "sync_cpu": sum(synced_cpu), "recover": recover}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,20000,40000")
    ap.add_argument("--tmp", default=None, help="where the state directories go (default: the system temp dir)")
    ap.add_argument("--legacy", action="store_true", help="time the old `git reset --pathspec-from-file` sync")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    line: dict[str, float] = {}
    print(f"{'turns':>8}{'import s':>10}{'index sync s':>14}{'sync cpu s':>12}{'recovery s':>12}{'us/turn':>9}"
          + ("   (legacy sync)" if args.legacy else ""))
    with tempfile.TemporaryDirectory(prefix="scriptorium-bigimport-", dir=args.tmp) as tmp:
        for size in sizes:
            r = one(size, Path(tmp), args.legacy)
            print(f"{size:>8}{r['import']:>10.2f}{r['sync']:>14.3f}{r['sync_cpu']:>12.3f}{r['recover']:>12.2f}"
                  f"{r['import'] / size * 1e6:>9.0f}", flush=True)
            for key, value in r.items():
                line[f"{key}_{size}_s"] = round(value, 3)
    if 10000 in sizes and 20000 in sizes:
        line["ratio_20k_10k"] = round(line["import_20000_s"] / line["import_10000_s"], 2)
        line["sync_ratio_20k_10k"] = round(line["sync_20000_s"] / max(line["sync_10000_s"], 1e-6), 2)
        line["sync_cpu_ratio_20k_10k"] = round(line["sync_cpu_20000_s"] / max(line["sync_cpu_10000_s"], 1e-6), 2)
        print(f"20k/10k: import x{line['ratio_20k_10k']}, index sync x{line['sync_ratio_20k_10k']} "
              f"(git's CPU x{line['sync_cpu_ratio_20k_10k']}; linear: ~2, quadratic: ~4)")
    print(json.dumps(line))


if __name__ == "__main__":
    main()
