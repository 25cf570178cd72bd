"""Pending-walk benchmark (issue: foundation).

Builds a 10,000-turn session with 50 live branches, each with a 20-turn backlog,
then times, in one run:
  * the marker walk (`marker.pending`), per branch, on a warm store;
  * the set-difference approach the design rejected: materialise the whole branch,
    keep its records, subtract the set of written ids;
  * the walk at 1,000 turns, to show its cost follows the backlog, not the session;
  * opening a 289-turn, ~4.2 MB session cold (new process state, index file on disk),
    rebuilt (no index file: every node read) and warm.
Last line: one JSON object of the key figures.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scriptorium.core.sessions.marker import MARK_KEY, mark_written, pending, workspace_id
from scriptorium.core.sessions.store import SessionStore

BRANCHES = 50
BACKLOG = 20


def build(store: SessionStore, wid: str, turns: int) -> str:
    """A main line whose written prefix is marked, plus forks with unwritten backlogs."""
    sid = store.create_session(title=f"bench {turns}")
    main_len = turns - BRANCHES * BACKLOG
    with store.batch(sid, "bench build"):
        main: list[str] = []
        for i in range(main_len):
            main.append(store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i} " + "lorem ipsum " * 8).id)
        mark_written(store, sid, main[: main_len - BACKLOG], wid)
        step = max(1, (main_len - BACKLOG) // BRANCHES)
        for b in range(BRANCHES - 1):
            prev = main[min(b * step + 1, main_len - BACKLOG - 1)]
            for j in range(BACKLOG):
                prev = store.append(sid, "assistant" if j % 2 == 0 else "user", f"branch {b} turn {j} " + "dolor " * 8,
                                    predecessor=prev, move_head=False).id
    return sid


def time_walks(store: SessionStore, sid: str, wid: str, tips: list[str], repeat: int = 5) -> float:
    for tip in tips:  # warm: token counts cached, index loaded
        pending(store, sid, tip, wid)
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        for tip in tips:
            got = pending(store, sid, tip, wid)
            assert len(got) == BACKLOG, len(got)
        samples.append((time.perf_counter() - t) / len(tips))
    return statistics.median(samples) * 1000


def set_difference(store: SessionStore, sid: str, tip: str) -> list[str]:
    branch = store.get_branch(sid, tip)
    records = [n for n in branch if n.is_record]
    written = {n.id for n in records if n.metadata.get(MARK_KEY)}
    return [n.id for n in records if n.id not in written]


def time_set(store: SessionStore, sid: str, tips: list[str]) -> float:
    samples = []
    for tip in tips:
        t = time.perf_counter()
        got = set_difference(store, sid, tip)
        samples.append(time.perf_counter() - t)
        assert len(got) == BACKLOG, len(got)
    return statistics.median(samples) * 1000


def open_times(root: Path) -> tuple[float, float, float, float]:
    """A 289-turn session of ~4.2 MB: cold (index file present), rebuilt, warm."""
    store = SessionStore(root)
    sid = store.create_session(title="big")
    body = "x" * 14_500
    with store.batch(sid, "bench big"):
        for i in range(289):
            store.append(sid, "user" if i % 2 == 0 else "assistant", f"{i} {body}")
    size = sum(p.stat().st_size for p in store.session_paths(sid).history.iterdir()) / 1e6
    cold, rebuilt, warm = [], [], []
    for _ in range(7):
        s = SessionStore(root)
        t = time.perf_counter()
        s.branch_entries(sid)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        s.branch_entries(sid)
        warm.append(time.perf_counter() - t)
        store.session_paths(sid).index.unlink()
        s = SessionStore(root)
        t = time.perf_counter()
        s.branch_entries(sid)
        rebuilt.append(time.perf_counter() - t)
    return size, *(statistics.median(x) * 1000 for x in (cold, rebuilt, warm))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = SessionStore(root / "s")
        wid = workspace_id(store.state_dir)
        t = time.perf_counter()
        sid10k = build(store, wid, 10_000)
        sid1k = build(store, wid, 1_000 + BRANCHES * BACKLOG)
        print(f"built sessions in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        tips10k = store.list_branches(sid10k)
        tips1k = store.list_branches(sid1k)
        assert len(tips10k) == BRANCHES and len(tips1k) == BRANCHES
        walk10k = time_walks(store, sid10k, wid, tips10k)
        walk1k = time_walks(store, sid1k, wid, tips1k)
        set10k = time_set(store, sid10k, tips10k[:5])
        size, cold, rebuilt, warm = open_times(root / "big")
    ratio = set10k / walk10k
    print(f"{'measure':<44}{'value':>12}")
    print(f"{'walk per branch, 10,000 turns (ms)':<44}{walk10k:>12.3f}")
    print(f"{'set difference per branch, 10,000 turns (ms)':<44}{set10k:>12.1f}")
    print(f"{'ratio set / walk':<44}{ratio:>12.0f}x")
    print(f"{'walk per branch, 1,000 turns (ms)':<44}{walk1k:>12.3f}")
    print(f"{'walk 10k / walk 1k':<44}{walk10k / walk1k:>12.2f}")
    print(f"{f'open 289 turns ({size:.1f} MB) cold (ms)':<44}{cold:>12.2f}")
    print(f"{'open 289 turns, index rebuilt (ms)':<44}{rebuilt:>12.2f}")
    print(f"{'open 289 turns warm (ms)':<44}{warm:>12.3f}")
    print(json.dumps({"turns": 10000, "walk_ms": round(walk10k, 4), "set_ms": round(set10k, 2), "ratio": round(ratio, 1),
                      "walk_10k_over_1k": round(walk10k / walk1k, 2), "open_cold_ms": round(cold, 2),
                      "open_warm_ms": round(warm, 3), "open_rebuild_ms": round(rebuilt, 2)}))


if __name__ == "__main__":
    main()
