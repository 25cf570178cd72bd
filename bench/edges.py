"""Speed at the edges (issue 20): what a user meets first, or at scale.

Each figure is measured in a fresh process (the first call in a process is the one a CLI
command or a hook pays; the interpreter and module imports are bench/cli_startup.py's),
median of RUNS, wall time unless named otherwise:

* mark20_10k_ms      mark 20 turns written in a 10,000-turn session (target ≤ 20 ms)
* first_open_10k_s   head pending of a 10,000-turn session with no index yet (≤ 0.4 s): the
                     walk; a turn's tokens are counted when read (the writer reads a batch's)
* first_open_289_ms  the same for 289 turns / 4.7 MB (≤ 25 ms)
* first_edit_ms      first hand edit in a fresh process, 20 topics × 25 cited blocks,
                     one 500-record archive, after an earlier install (≤ 300 ms)
* branches2000_s     list_branches + pending of every branch of a 2,000-branch session (≤ 1 s)
* pending_50mb_s/_mb pending on a session holding one 50 MB message, its tokens counted: time and
                     the child's peak RSS, VmHWM (ru_maxrss survives exec: it reported the bench's) (≤ 5 s, 200 MB)
* tui_branches2000_s  the app opened on that 2,000-branch session: from starting the app (its
                     modules imported) until the session list, every branch and the graph are drawn (≤ 2 s)
* tui_1mb_turn_s     the graph's cursor moved onto a 1 MB turn (70,000 short lines) until its
                     preview is drawn in the detail pane (≤ 0.5 s); both also print their CPU time

Children run with a byte-code cache (`PYTHONPYCACHEPREFIX` in a temporary folder, even under
`PYTHONDONTWRITEBYTECODE`), filled before the first measured run (every project module
compiled, the modules the children use imported once), as an installed copy has one: an
import inside a measured call (the mark's `marks` module, say) is then a load, not a compile
from source. `--compile` keeps the inherited environment instead.

Usage: python bench/edges.py [--runs 3] [--compile]
Last line: {"mark20_10k_ms":…,"first_open_10k_s":…,"first_open_289_ms":…,"first_edit_ms":…,
            "branches2000_s":…,"tui_branches2000_s":…,"tui_1mb_turn_s":…,"pending_50mb_s":…,"pending_50mb_mb":…}
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scriptorium.core.sessions.marker import workspace_id
from scriptorium.core.sessions.store import SessionStore

HERE = Path(__file__).resolve().parent
TARGETS = {"mark20_10k_ms": 20, "first_open_10k_s": 0.4, "first_open_289_ms": 25, "first_edit_ms": 300,
           "branches2000_s": 1.0, "tui_branches2000_s": 2.0, "tui_1mb_turn_s": 0.5,
           "pending_50mb_s": 5.0, "pending_50mb_mb": 200}


ENV: dict[str, str] | None = None  # the children's environment (main: the byte-code cache)
WARM = ("import asyncio, importlib.util, json, orjson, scriptorium.tui.app, scriptorium.core.memory, "
        "scriptorium.core.sessions.marks, scriptorium.core.sessions.marker, scriptorium.core.tokens; print('{}')")


def cached_env(pycache: Path) -> dict[str, str]:
    """The environment with byte code cached under `pycache`, whatever the caller's settings."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def fill_cache() -> None:
    """Every project module compiled into the cache, and the modules the children use loaded once."""
    import scriptorium.core
    import scriptorium.themes
    import scriptorium.tui

    dirs = [str(Path(m.__file__).parent) for m in (scriptorium.core, scriptorium.themes, scriptorium.tui)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], check=True, env=ENV, capture_output=True)
    child(WARM)


def child(code: str) -> dict:
    """Run `code` in a fresh interpreter; it prints one JSON object."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=ENV)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "child failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def line_session(store: SessionStore, turns: int, text: str = "lorem ipsum dolor sit amet " * 4) -> tuple[str, list[str]]:
    sid = store.create_session(title=f"edges {turns}")
    ids = []
    with store.batch(sid, "bench build"):
        for i in range(turns):
            ids.append(store.append(sid, "user" if i % 2 == 0 else "assistant", f"{i} {text}").id)
    return sid, ids


def mark20(root: Path) -> float:
    store = SessionStore(root)
    sid, ids = line_session(store, 10_000)
    wid = workspace_id(root)
    # The build's 10,000 files are still dirty in the page cache: without this, the marks'
    # fsyncs would pay for writing them back (a journal commit flushes what is pending)
    # and the figure would measure the build, not the marks.
    os.sync()
    code = f"""
import json, time
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written
t = time.perf_counter()
mark_written(SessionStore({str(root)!r}), {sid!r}, {ids[5000:5020]!r}, {wid!r})
print(json.dumps({{"ms": (time.perf_counter() - t) * 1000}}))
"""
    return child(code)["ms"]


def first_open(root: Path, turns: int, text: str) -> float:
    store = SessionStore(root)
    sid, _ids = line_session(store, turns, text)
    index = store.session_paths(sid).index
    code = f"""
import json, time
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import pending
t = time.perf_counter()
pending(SessionStore({str(root)!r}), {sid!r})
print(json.dumps({{"s": time.perf_counter() - t}}))
"""
    index.unlink(missing_ok=True)
    return child(code)["s"]


def first_edit(root: Path) -> float:
    code = f"""
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("bench_transaction", {str(HERE / "transaction.py")!r})
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
from pathlib import Path
ws = mod.build(Path({str(root)!r}), 20)
mod.one_edit(ws, 0, 20)  # the last install: views built, the core's counts kept
print(json.dumps({{}}))
"""
    child(code)
    edit = f"""
import importlib.util, json, time
spec = importlib.util.spec_from_file_location("bench_transaction", {str(HERE / "transaction.py")!r})
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
from scriptorium.core.memory import Workspace
ws = Workspace.open({str(root)!r})
t = time.perf_counter()
mod.one_edit(ws, 1, 20)
print(json.dumps({{"ms": (time.perf_counter() - t) * 1000}}))
"""
    return child(edit)["ms"]


def branches(root: Path) -> float:
    sid = branch_forest(root)
    code = f"""
import json, time
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import pending_branches
t = time.perf_counter()
n = len(pending_branches(SessionStore({str(root)!r}), {sid!r}))
print(json.dumps({{"s": time.perf_counter() - t, "branches": n}}))
"""
    return child(code)["s"]


def branch_forest(root: Path) -> str:
    """A 2,000-turn line with 1,999 retries forking off it at random turns."""
    store = SessionStore(root)
    sid, main = line_session(store, 2_000)
    rng = random.Random(3)
    with store.batch(sid, "bench forks"):
        for b in range(1_999):
            prev = main[rng.randrange(len(main) - 1)]
            store.append(sid, "assistant", f"retry {b}", predecessor=prev, move_head=False)
    return sid


# The app in a fresh process (headless, as tests drive it); `opened` is how long it took.
TUI_CHILD = """
import asyncio, json, time
from scriptorium.tui.app import ScriptoriumApp
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.branch_list import BranchList
from scriptorium.tui.sessions.detail_pane import DetailPane

async def main():
    app = ScriptoriumApp({root!r})
    started, cpu = time.perf_counter(), time.process_time()
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        while (screen.graph is None or screen.query_one(BranchList).option_count < {branches}
               or screen.query_one(BranchGraph).graph is None):
            await asyncio.sleep(0.002)
        await pilot.pause()  # drawn
        out = {{"opened": time.perf_counter() - started, "opened_cpu": time.process_time() - cpu}}
        {then}
    print(json.dumps(out))

asyncio.run(main())
"""

ONTO_TURN = """
        graph = screen.query_one(BranchGraph)
        graph.focus()
        await pilot.pause()
        started, cpu = time.perf_counter(), time.process_time()
        graph.move_to({turn!r})
        while "press o to open the whole turn" not in screen.query_one(DetailPane).plain:
            await asyncio.sleep(0.002)
        await pilot.pause()  # drawn
        out["turn"], out["turn_cpu"] = time.perf_counter() - started, time.process_time() - cpu
"""


def tui_branches(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the CPU time tells a loaded machine from a slow app)."""
    branch_forest(root)
    out = child(TUI_CHILD.format(root=str(root), branches=2_000, then=""))
    return out["opened"], out["opened_cpu"]


def tui_1mb_turn(root: Path) -> tuple[float, float]:
    store = SessionStore(root)
    sid = store.create_session(title="one huge turn")
    store.append(sid, "user", "what does the log say?")
    big = store.append(sid, "assistant", "\n".join(f"log line {i}" for i in range(70_000)) + "\nTHE END").id
    store.append(sid, "user", "thanks")
    out = child(TUI_CHILD.format(root=str(root), branches=1, then=ONTO_TURN.format(turn=big).strip()))
    return out["turn"], out["turn_cpu"]


def huge(root: Path) -> tuple[float, float]:
    store = SessionStore(root)
    sid = store.create_session(title="huge")
    rng = random.Random(1)
    words = ["error:", "at", "module", "line", "42", "Traceback", "file.py", "x=1"]
    big = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(50_000_000 // 70))
    store.append(sid, "user", big)
    del big
    code = f"""
import json, resource, time
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import pending
t = time.perf_counter()
sum(turn.tokens for turn in pending(SessionStore({str(root)!r}), {sid!r}))  # counted, as the writer's batch counts it
try:  # this process's peak: ru_maxrss survives exec, so it would report the bench's own (forked) peak
    mb = int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) / 1024
except (OSError, StopIteration):
    mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"s": time.perf_counter() - t, "mb": mb}}))
"""
    out = child(code)
    return out["s"], out["mb"]


def fresh(fn, *args):
    root = Path(tempfile.mkdtemp(prefix="edges-"))
    try:
        return fn(root, *args)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    global ENV
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compile", action="store_true", help="no byte-code cache of our own (see above)")
    args = ap.parse_args()
    pycache = Path(tempfile.mkdtemp(prefix="edges-pycache-"))
    try:
        if not args.compile:
            ENV = cached_env(pycache)
            fill_cache()
        measure(args.runs)
    finally:
        shutil.rmtree(pycache, ignore_errors=True)


def measure(runs: int) -> None:
    med = lambda xs: statistics.median(xs)
    figures: dict[str, float | None] = {}
    figures["mark20_10k_ms"] = med([fresh(mark20) for _ in range(runs)])
    figures["first_open_10k_s"] = med([fresh(first_open, 10_000, "lorem ipsum dolor sit amet " * 4)
                                       for _ in range(runs)])
    figures["first_open_289_ms"] = med([fresh(first_open, 289, "x" * 16_200) for _ in range(runs)]) * 1000
    figures["first_edit_ms"] = med([fresh(first_edit) for _ in range(runs)])
    figures["branches2000_s"] = med([fresh(branches) for _ in range(runs)])
    tui = {"tui_branches2000_s": [fresh(tui_branches) for _ in range(runs)],
           "tui_1mb_turn_s": [fresh(tui_1mb_turn) for _ in range(runs)]}
    for key, runs_ in tui.items():
        figures[key] = med([wall for wall, _cpu in runs_])
    huges = [fresh(huge) for _ in range(max(1, runs // 2))]
    figures["pending_50mb_s"] = med([r[0] for r in huges])
    figures["pending_50mb_mb"] = med([r[1] for r in huges])
    print(f"{'figure':<20} {'now':>10} {'target':>8}")
    for key, value in figures.items():
        shown = "—" if value is None else f"{value:.3f}"
        print(f"{key:<20} {shown:>10} {TARGETS.get(key, '—')!s:>8}")
    cache = "compiled from source when PYTHONDONTWRITEBYTECODE is set" if ENV is None else "byte code cached"
    print("tui cpu s (median): " + ", ".join(f"{key} {med([c for _w, c in runs_]):.3f}" for key, runs_ in tui.items())
          + f"  ({cache}; load average {os.getloadavg()[0]:.1f})")
    print(json.dumps({k: (None if v is None else round(v, 3)) for k, v in figures.items()}))


if __name__ == "__main__":
    main()
