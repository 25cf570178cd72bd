"""The four paths of issue 30 against the reference's figures, with a bare interpreter as the floor.

The reference (OpenProgram's own memory code, AGPL) is not run here: its figures are the
ones the issue measured side by side (Scriptorium / reference, medians);
bench/reference_paths.py runs its own functions beside ours, pointed at a checkout. Each path here
is the median of RUNS fresh processes, and `python -c pass` is timed between them in the
same run, so a loaded machine shows as a high floor rather than as a regression:

  * mark20_ms        mark 20 turns of a 10,000-turn session, the first mark in a process:
                     wall ms inside the process from before the store's imports to the
                     mark's return (imports + call; a fresh set of turns each run)
  * mark20_call_ms   the same process's call alone: from after those imports (SessionStore
                     built, `mark_written` called: any import inside the call is counted);
                     both against the reference's one figure
  * mark20_ckpt_ms   the same, when the mark empties the marks' redo log first (its records
                     are old: core/sessions/redo.py): what one mark in ~ten pays for the
                     fsyncs the others leave to the log (here: the previous run's record)
  * io_floor_ms      the file system's part of that mark, measured beside it: the same durable
                     rewrite of 20 other node files of that session in bare os calls, no
                     project module (read each by its known name, write temps, one record
                     appended to a log and fdatasynced, rename over) — what this design
                     pays on this disk before any Python
  * io_fsync_ms      the design before it in bare os calls (list history/ to find the files,
                     read, write temps, fsync them in 4 threads, rename, fsync the directory)
  * ref_io_ms        the reference's file pattern for 20 node files on this disk, in bare os
                     calls (git_session.atomic_write_text per node: temp, fsync, rename, fsync
                     the directory, one file after another; names from its in-memory index,
                     so no listing): what the reference's 16.0 ms becomes on this disk,
                     before its Python
  * core_s           `scriptorium core` on a state whose core counts are cached, whole process
  * write_ms         write-pass overhead per batch with a scripted model (bench/write.py's
                     median over --batches batches, minus model time), one process per run
  * first_open_ms    `pending()` of a 10,000-turn session with no index, first call in a process

CPU seconds (ms) are printed beside the wall figures: on a loaded machine they move less.
Every child runs with a byte-code cache (`PYTHONPYCACHEPREFIX` in the bench's temporary
folder, even under `PYTHONDONTWRITEBYTECODE`), warmed before the first measured run, as an
installed copy has one (pip compiles at install). `--compile` keeps the inherited
environment: with `PYTHONDONTWRITEBYTECODE` set (this machine's default) and no
`__pycache__` in the checkout, every fresh process then compiles every project module it
imports from source, inside the figures.

Usage: python bench/store_paths.py [--compile]   (RUNS=N in the environment: runs, default 5)
Last line: {"floor_s": …, "mark20_ms": …, "mark20_call_ms": …, "mark20_ckpt_ms": …, "io_floor_ms": …, "io_fsync_ms": …,
            "ref_io_ms": …, "core_s": …, "write_ms": …,
            "first_open_ms": …, "ratio_mark20": …, "ratio_mark20_call": …, "ratio_core": …, "ratio_write": …,
            "ratio_first_open": …, "cpu_…": …}
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scriptorium.core.sessions.marker import workspace_id
from scriptorium.core.sessions.store import SessionStore

HERE = Path(__file__).resolve().parent
RUNS = int(os.environ.get("RUNS", "5"))
REFERENCE = {"mark20_ms": 16.0, "core_s": 0.66, "write_ms": 696.0, "first_open_ms": 1289.0}  # issue 30's table
TEXT = "lorem ipsum dolor sit amet " * 4
MEASURED = {  # printed in this order, with a note
    "mark20_ms": "imports + call",
    "mark20_call_ms": "the call alone, after the imports",
    "mark20_ckpt_ms": "imports + call, emptying the redo log first",
    "io_floor_ms": "the file system's part: the same rewrite of 20 node files in bare os calls",
    "io_fsync_ms": "the design before (list, fsync every temp, fsync the directory), bare os",
    "ref_io_ms": "the reference's file pattern for those 20 (fsync, rename, fsync dir, file by file), bare os",
    "core_s": "", "write_ms": "", "first_open_ms": "",
}
REFERENCE_OF = {"mark20_call_ms": "mark20_ms", "mark20_ckpt_ms": "mark20_ms"}  # the reference's one mark figure, beside both of ours


ENV: dict[str, str] | None = None  # the children's environment (main: the byte-code cache)


def cached_env(pycache: Path) -> dict[str, str]:
    """The environment with byte code cached under `pycache`, whatever the caller's settings."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def timed(cmd: list[str], env: dict[str, str] | None, timeout: float = 900) -> tuple[float, float, str]:
    """Wall and CPU seconds of one whole process, and its stdout (bench/reference_paths.py's too)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {out.stderr.strip()[-1500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out.stdout


def whole(cmd: list[str]) -> tuple[float, float, str]:
    """`timed` in this bench's children's environment."""
    return timed(cmd, ENV)


def child(code: str, *args: str) -> dict:
    return json.loads(whole([sys.executable, "-c", code, *args])[2].strip().splitlines()[-1])


def ten_thousand(root: Path) -> tuple[str, list[str]]:
    store = SessionStore(root)
    sid = store.create_session("store paths")
    with store.batch(sid, "bench build"):
        ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"{i} {TEXT}").id for i in range(10_000)]
    return sid, ids


# sys and time are loaded before any user code runs; json only after the clock stops.
MARK = """
import sys, time
t, c = time.perf_counter(), time.process_time()
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written
t1, c1 = time.perf_counter(), time.process_time()
mark_written(SessionStore(sys.argv[1]), sys.argv[2], sys.argv[3].split(","), sys.argv[4])
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000,
                  "call_ms": (t2 - t1) * 1000, "call_cpu_ms": (c2 - c1) * 1000}))
"""
# The file system's part of a mark: the same durable rewrite of 20 node files in bare os
# calls, no project module loaded: each read by its name (known: a mark finds them in the
# saved index), a temp written beside it, their bytes appended to a log as one record and
# that fdatasynced, the temps renamed over. Rewrites other turns than the marks (the same
# bytes: nothing changes).
IO_FLOOR = """
import os, sys, time
t, c = time.perf_counter(), time.process_time()
history, names = sys.argv[1], sys.argv[2].split(",")
hold = sys.argv[3:] == ["hold"]  # the old files held open through the renames, closed after the clock (as a mark does)
datas, held = [], []
for n in names:
    fd = os.open(f"{history}/{n}", os.O_RDONLY)
    datas.append(os.read(fd, 1 << 20))
    held.append(fd) if hold else os.close(fd)
for n, data in zip(names, datas):
    fd = os.open(f"{history}/{n}.floor.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    os.close(fd)
fd = os.open(f"{history}/../.scriptorium/floor.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
os.write(fd, b"".join(datas))
os.fdatasync(fd)
os.close(fd)
for n in names:
    os.replace(f"{history}/{n}.floor.tmp", f"{history}/{n}")
t2, c2 = time.perf_counter(), time.process_time()
for fd in held:
    os.close(fd)
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000, "files": len(names)}))
"""
# The design before it (every temp fsynced, four threads; history/ listed to find them).
IO_FSYNC = """
import os, sys, time, _thread
t, c = time.perf_counter(), time.process_time()
history, wanted = sys.argv[1], {f"-{i}.json" for i in sys.argv[2].split(",")}
listed = os.listdir(history)
names = [n for size in {len(w) for w in wanted} for n in listed if n[-size:] in wanted]
datas = []
for n in names:
    fd = os.open(f"{history}/{n}", os.O_RDONLY)
    datas.append(os.read(fd, 1 << 20))
    os.close(fd)
fds = []
for n, data in zip(names, datas):
    fd = os.open(f"{history}/{n}.floor.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    fds.append(fd)
def run(share, done):
    for fd in share:
        os.fsync(fd)
    done.release()
joins = []
for share in [fds[i::4] for i in range(1, 4)]:
    done = _thread.allocate_lock()
    done.acquire()
    _thread.start_new_thread(run, (share, done))
    joins.append(done)
for fd in fds[0::4]:
    os.fsync(fd)
for done in joins:
    done.acquire()
for fd in fds:
    os.close(fd)
for n in names:
    os.replace(f"{history}/{n}.floor.tmp", f"{history}/{n}")
fd = os.open(history, os.O_RDONLY)
os.fsync(fd)
os.close(fd)
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000, "files": len(names)}))
"""
# The reference's way of writing those files (OpenProgram's git_session.atomic_write_text,
# called once per node by merge_node_metadata_batch: temp, fsync, rename, fsync the
# directory, one file after another), in the same bare os calls; names known from its index.
REF_IO = """
import os, sys, time
t, c = time.perf_counter(), time.process_time()
history, names = sys.argv[1], sys.argv[2].split(",")
for n in names:
    fd = os.open(f"{history}/{n}", os.O_RDONLY)
    data = os.read(fd, 1 << 20)
    os.close(fd)
    fd = os.open(f"{history}/{n}.ref.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    os.replace(f"{history}/{n}.ref.tmp", f"{history}/{n}")
    fd = os.open(history, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000}))
"""
OPEN = """
import json, sys, time
t, c = time.perf_counter(), time.process_time()
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import pending
pending(SessionStore(sys.argv[1]), sys.argv[2])
print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "cpu_ms": (time.process_time() - c) * 1000}))
"""


def main() -> None:
    global ENV
    tmp = Path(tempfile.mkdtemp(prefix="store-paths-"))
    if "--compile" not in sys.argv[1:]:
        ENV = cached_env(tmp / "pycache")
    try:
        root = tmp / "big"
        sid, ids = ten_thousand(root)
        wid = workspace_id(root)
        index = SessionStore(root).session_paths(sid).index
        demo = tmp / "demo"
        whole([sys.executable, "-m", "scriptorium.core.cli", "--state", str(demo), "demo", "--no-tui"])
        core_cmd = [sys.executable, "-m", "scriptorium.core.cli", "--state", str(demo), "core"]
        whole(core_cmd)  # counts cached from here on
        # Each child once, unmeasured: the byte-code cache holds every module they import
        # (the build ran in this process, not through the cache).
        child(MARK, str(root), sid, ids[0], wid)
        index.unlink(missing_ok=True)
        child(OPEN, str(root), sid)
        whole([sys.executable, str(HERE / "write.py"), "--batches", "5"])  # (its fewest)
        history = str(SessionStore(root).session_paths(sid).history)
        filenames = {e.id: e.filename for e in SessionStore(root).index(sid).entries.values()}
        walls: dict[str, list[float]] = {k: [] for k in ("floor_s", *MEASURED)}
        cpu: dict[str, list[float]] = {k: [] for k in ("floor_s", *MEASURED) if k != "write_ms"}

        def bare() -> None:
            wall, used, _ = whole([sys.executable, "-c", "pass"])
            walls["floor_s"].append(wall)
            cpu["floor_s"].append(used)

        for run in range(RUNS):
            bare()
            os.sync()  # the build's files are not the marks' fsyncs to pay for
            chosen = ids[1000 + run * 40: 1020 + run * 40]  # never marked before: a real first mark
            got = child(MARK, str(root), sid, ",".join(chosen), wid)
            for key, wall_of, cpu_of in (("mark20_ms", "ms", "cpu_ms"), ("mark20_call_ms", "call_ms", "call_cpu_ms")):
                walls[key].append(got[wall_of])
                cpu[key].append(got[cpu_of])
            os.sync()
            redo_log = SessionStore(root).session_paths(sid).marks_redo
            if redo_log.exists():
                os.utime(redo_log, (time.time() - 7200, time.time() - 7200))  # its records are old: checkpoint
            got = child(MARK, str(root), sid, ",".join(ids[3000 + run * 40: 3020 + run * 40]), wid)
            walls["mark20_ckpt_ms"].append(got["ms"])
            cpu["mark20_ckpt_ms"].append(got["cpu_ms"])
            os.sync()
            got = child(IO_FLOOR, history, ",".join(filenames[n] for n in ids[5000 + run * 40: 5020 + run * 40]))
            assert got["files"] == 20, got
            walls["io_floor_ms"].append(got["ms"])
            cpu["io_floor_ms"].append(got["cpu_ms"])
            os.sync()
            got = child(IO_FSYNC, history, ",".join(ids[7000 + run * 40: 7020 + run * 40]))
            assert got["files"] == 20, got
            walls["io_fsync_ms"].append(got["ms"])
            cpu["io_fsync_ms"].append(got["cpu_ms"])
            os.sync()
            got = child(REF_IO, history, ",".join(filenames[n] for n in ids[6000 + run * 40: 6020 + run * 40]))
            walls["ref_io_ms"].append(got["ms"])
            cpu["ref_io_ms"].append(got["cpu_ms"])
            bare()
            wall, used, _ = whole(core_cmd)
            walls["core_s"].append(wall)
            cpu["core_s"].append(used)
            index.unlink(missing_ok=True)
            got = child(OPEN, str(root), sid)
            walls["first_open_ms"].append(got["ms"])
            cpu["first_open_ms"].append(got["cpu_ms"])
            bare()
            out = whole([sys.executable, str(HERE / "write.py"), "--batches", "20"])[2]
            walls["write_ms"].append(json.loads(out.strip().splitlines()[-1])["overhead_ms"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = statistics.median
    figures: dict[str, float] = {"floor_s": round(med(walls["floor_s"]), 4)}
    print(f"{'path':<16}{'median':>10}{'CPU':>10}{'reference':>11}{'ratio':>8}   wall, runs (fresh processes)")
    for key, note in MEASURED.items():
        figures[key] = round(med(walls[key]), 3)
        ref = REFERENCE.get(REFERENCE_OF.get(key, key))
        shown_cpu = f"{med(cpu[key]):.4g}" if key in cpu else "—"
        ratio = "—"
        if ref is not None:
            figures[f"ratio_{key.rsplit('_', 1)[0]}"] = round(figures[key] / ref, 3)
            ratio = f"{figures[key] / ref:.3f}"
        print(f"{key:<16}{figures[key]:>10}{shown_cpu:>10}{ref if ref is not None else '—':>11}{ratio:>8}   "
              + ", ".join(f"{x:.4g}" for x in walls[key]) + (f"   ({note})" if note else ""))
    for key, xs in cpu.items():
        figures[f"cpu_{key}"] = round(med(xs), 4)
    cache = "compiled from source when PYTHONDONTWRITEBYTECODE is set" if ENV is None else "byte code cached"
    print(f"floor: bare interpreter {figures['floor_s'] * 1000:.1f} ms wall, {figures['cpu_floor_s'] * 1000:.1f} ms CPU "
          f"(median of {len(walls['floor_s'])}, same run); {cache}; load average {os.getloadavg()[0]:.1f}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
