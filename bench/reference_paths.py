"""Issue 30's four paths side by side with the reference, on the same on-disk states.

The reference is OpenProgram's own code (github.com/Fzkuji/OpenProgram, AGPL-3.0). None of
it lives here: point this bench at a checkout of it outside this repository,

    python bench/reference_paths.py --reference /work/ref/openprogram
    (or SCRIPTORIUM_REFERENCE=/work/ref/openprogram python bench/reference_paths.py)

and its children import it from there (PYTHONPATH) and call its own functions. Without a
checkout the bench says so and stops (exit 0, last line {"skipped": …}).

The states are built once with our store, in OpenProgram's format (formats §1), and both
sides read them: a 10,000-turn session (mark, first open), bench/write.py's 2,120-turn
session with forks (write pass; every process gets its own copy) and the demo state's
memory (core). Each figure is the median of RUNS fresh processes (default 5), ours and the
reference's alternating in one run, a bare interpreter (`python -c pass`) timed between
them as the floor. Every child has a byte-code cache (both sides, as an install has one).
The reference runs with HOME in the bench's temporary folder (its state is
~/.openprogram), tiktoken's o200k_base from the copy we ship (no network) and, for its
writer's file tools, claude_agent_sdk importable (`--site DIR` adds a folder to its
PYTHONPATH: `pip install --target DIR claude-agent-sdk`).

  mark        mark 20 turns of the 10,000 as written. The reference can only mark through
              a session it has read (merge_node_metadata_batch looks nodes up in the index
              its first open builds from every node file), so it has two figures:
                ref_mark_call_ms   the call, after get_branch in the same process (what
                                   its write pass pays; the issue's 16.0 ms)
                ref_mark_whole_ms  imports + get_branch + the call, a fresh process
              and ours three:
                mark_ms            imports + the call, a fresh process that read nothing
                mark_call_ms       that process's call alone
                mark_after_read_ms the call after pending() in the same process (the
                                   write pass's case, like ref_mark_call_ms)
  core        `scriptorium core` (counts cached) / render_core_block of topics/core.md
              under the 2,000-token budget: whole process
  write       overhead per batch of an unforced write pass with a scripted model that
              answers at once (one cited block in a new topic per batch; the organizer
              runs answer "nothing"): the pass minus the model's time, median over
              --batches batches in one process (ours: bench/write.py --state)
  first_open  a fresh process's first look at the 10,000-turn session, no index: ours
              pending(); the reference's get_branch (which any pending walk of it needs)
              with the marked ids taken from it, imports included
  floors      open_floor_ms: every node file of that session read by bare os calls and
              parsed by orjson (its import included), nothing else — what one open per
              file costs on this disk; open_floor_2t_ms / open_floor_4t_ms: the same in 2 / 4
              threads (bare _thread, each over its share, parsing what it read);
              mark_io_floor_ms: a mark's file pattern for 20 other turns in bare os calls
              (bench/store_paths.py's io_floor_ms: read, temps, one fdatasynced log record,
              renames); mark_io_held_floor_ms: the same with the old files held open
              through the renames and closed after the clock stops, as a mark now does.
              Beside the reference's figures they say how far below 0.2 the disk alone
              allows. mark_process_ms: our fresh mark's whole process (start, imports, call,
              exit: the held files' closes that a thread has not done by then are the
              kernel's at exit), beside floor_ms
  --only      a comma list of mark, core, write, first_open: only those paths (default all)

Ratios are ours / the reference's (≤ 0.2 is issue 30's target), wall time; CPU beside.
Usage: python bench/reference_paths.py --reference DIR [--site DIR] [--batches N] [--only PATHS]
Last line: {"floor_ms": …, "<figure>": …, "cpu_<figure>": …, "ratio_<path>": …, "load": …}
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from scriptorium.core.sessions.marker import workspace_id
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.tokens import _bundled_tokenizer_dir

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import store_paths  # noqa: E402  (bench/store_paths.py: its fresh-mark child)
import write as write_bench  # noqa: E402  (bench/write.py: its session and scripted model)

RUNS = int(os.environ.get("RUNS", "5"))
PATHS = {"mark", "core", "write", "first_open"}  # --only a,b: fewer paths, for a focused rerun
TEXT = "lorem ipsum dolor sit amet " * 4
RATIOS = {  # ratio name -> (ours, reference's)
    "mark": ("mark_ms", "ref_mark_call_ms"),  # the table: a fresh mark against the reference's call
    "mark_after_read": ("mark_after_read_ms", "ref_mark_call_ms"),
    "mark_whole": ("mark_ms", "ref_mark_whole_ms"),
    "core": ("core_ms", "ref_core_ms"),
    "write": ("write_ms", "ref_write_ms"),
    "first_open": ("first_open_ms", "ref_first_open_ms"),
    "open_floor": ("open_floor_ms", "ref_first_open_ms"),  # the best any one-open-per-file reader can do here
    "mark_io_floor": ("mark_io_floor_ms", "ref_mark_call_ms"),  # a mark's file pattern alone, no Python of ours
    "mark_io_held_floor": ("mark_io_held_floor_ms", "ref_mark_call_ms"),  # the same, old files held open (closed after)
    "open_floor_2t": ("open_floor_2t_ms", "ref_first_open_ms"),  # the reading floor in 2 threads
    "open_floor_4t": ("open_floor_4t_ms", "ref_first_open_ms"),
}

# --- our children (sys and time are loaded before user code; json after the clock stops) ---
MARK = store_paths.MARK  # a fresh mark, imports included: the same child as bench/store_paths.py's
MARK_AFTER_READ = """
import sys, time
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written, pending
store = SessionStore(sys.argv[1])
pending(store, sys.argv[2], workspace=sys.argv[4])
t, c = time.perf_counter(), time.process_time()
mark_written(store, sys.argv[2], sys.argv[3].split(","), sys.argv[4])
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000}))
"""
OPEN = """
import sys, time
t, c = time.perf_counter(), time.process_time()
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import pending
pending(SessionStore(sys.argv[1]), sys.argv[2], workspace=sys.argv[3])
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000}))
"""
# The floor of a first open on this disk: every node file of the session read once by
# bare os calls (open, fstat, read, close) and parsed by orjson, its import included — no
# project module, no entry built, nothing saved. What any one-open-per-file reader pays.
OPEN_FLOOR = """
import sys, time
t, c = time.perf_counter(), time.process_time()
import os, orjson
history = sys.argv[1]
n = 0
for name in os.listdir(history):
    fd = os.open(f"{history}/{name}", os.O_RDONLY)
    st = os.fstat(fd)
    orjson.loads(os.read(fd, st.st_size + 1))
    os.close(fd)
    n += 1
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000, "files": n}))
"""
# The same floor read by THREADS threads (bare _thread, each over its share of the names, each
# parsing what it read): open, fstat, read and close release the interpreter's lock, so on
# free cores the system calls of one thread overlap another's (orjson.loads does not release
# it). What one open per file costs here at best with threads.
OPEN_FLOOR_THREADS = """
import sys, time
t, c = time.perf_counter(), time.process_time()
import os, orjson, _thread
history, threads = sys.argv[1], int(sys.argv[2])
names = os.listdir(history)
shares = [names[i::threads] for i in range(threads)]
counts = [0] * threads

def read(i, done):
    try:
        for name in shares[i]:
            fd = os.open(f"{history}/{name}", os.O_RDONLY)
            st = os.fstat(fd)
            orjson.loads(os.read(fd, st.st_size + 1))
            os.close(fd)
            counts[i] += 1
    finally:
        if done is not None:
            done.release()

joins = []
for i in range(1, threads):
    done = _thread.allocate_lock()
    done.acquire()
    _thread.start_new_thread(read, (i, done))
    joins.append(done)
read(0, None)
for done in joins:
    done.acquire()
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000, "files": sum(counts)}))
"""
# --- the reference's children: its own functions, called as its callers call them ---
REF_MARK = """
import sys, time
t, c = time.perf_counter(), time.process_time()
from openprogram.store.session.session_store import SessionStore
store = SessionStore(sys.argv[1])
store.get_branch(sys.argv[2])
t1, c1 = time.perf_counter(), time.process_time()
store.merge_node_metadata_batch(sys.argv[2], {n: {"memory_written_scriptorium": sys.argv[4]}
                                             for n in sys.argv[3].split(",")})
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000,
                  "call_ms": (t2 - t1) * 1000, "call_cpu_ms": (c2 - c1) * 1000}))
"""
REF_OPEN = """
import sys, time
t, c = time.perf_counter(), time.process_time()
from openprogram.store.session.session_store import SessionStore
rows = SessionStore(sys.argv[1]).get_branch(sys.argv[2])
marked = {m["id"] for m in rows if m.get("memory_written_scriptorium") == sys.argv[3]}
t2, c2 = time.perf_counter(), time.process_time()
import json
print(json.dumps({"ms": (t2 - t) * 1000, "cpu_ms": (c2 - c) * 1000, "rows": len(rows)}))
"""
REF_CORE = """
import sys
from pathlib import Path
from openprogram.memory.runtime.derived_views import render_core_block
print(render_core_block(Path(sys.argv[1]), budget_tokens=2000))
"""
# The reference's write pass (openprogram.memory.writing.write, unforced, as its dispatcher
# calls it after a turn) with its writer agent replaced by a scripted one that does what
# bench/write.py's model does, through the writer's own Write tool.
REF_WRITE = """
import asyncio, json, statistics, sys, time
from openprogram.memory import writing
from openprogram.memory.agent_runtime.claude_code import AgentResult

sid, threshold, batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


class Instant:
    def __init__(self):
        self.batch, self.model_s = 0, 0.0

    def run(self, *, prompt, system_prompt, cwd, tools=None, **_options):
        t0 = time.perf_counter()
        try:
            refs = [json.loads(line)["ref"] for line in prompt.splitlines() if line.startswith('{"ref"')]
            if refs:
                self.batch += 1
                content = (f"# Batch {self.batch}\\n\\nThe runner cache discussion, part {self.batch}.[^e1]\\n\\n"
                           f"[^e1]: Time: `2026-01-02`; Sources: [cache]({refs[0]})\\n")
                tool = next(t for t in tools if t.name == "Write")
                out = asyncio.run(tool.handler({"file_path": f"topics/bench/b{self.batch:03d}.md", "content": content}))
                assert not out.get("is_error"), out
            return AgentResult(text="done", structured_output=None, num_turns=1, input_tokens=0, output_tokens=0,
                               cache_creation_input_tokens=0, cache_read_input_tokens=0,
                               anthropic_equivalent_cost_usd=None, duration_ms=0, duration_api_ms=0,
                               stop_reason="end_turn", session_id="bench", prompt=prompt,
                               system_prompt=system_prompt, reply="done")
        finally:
            self.model_s += time.perf_counter() - t0


agent = Instant()
writing._agent = lambda model=None: agent
writing.write(sid, token_threshold=threshold)  # warm-up: imports, the first organize
assert agent.batch == 1, agent.batch
overhead = []
for _ in range(batches):
    agent.model_s, before = 0.0, agent.batch
    t0 = time.perf_counter()
    writing.write(sid, token_threshold=threshold)
    total = time.perf_counter() - t0
    assert agent.batch == before + 1, "no batch written"
    overhead.append((total - agent.model_s) * 1000)
print(json.dumps({"overhead_ms": round(statistics.median(overhead), 1)}))
"""


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one whole process, and its stdout (the reference's write pass
    can take minutes)."""
    return store_paths.timed(cmd, env, timeout=1800)


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def environments(tmp: Path, reference: Path, site: Path | None) -> tuple[dict[str, str], dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    ours = {**base, "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    path = os.pathsep.join(str(p) for p in (reference, site) if p is not None)
    ref = {**base, "PYTHONPYCACHEPREFIX": str(tmp / "pycache-ref"), "PYTHONPATH": path,
           "HOME": str(tmp / "ref-home"), "TIKTOKEN_CACHE_DIR": str(_bundled_tokenizer_dir()),
           "OPENPROGRAM_NO_SESSION_END": "1", "OPENPROGRAM_NO_SLEEP": "1"}
    (tmp / "ref-home").mkdir()
    return ours, ref


def skipped(reason: str) -> None:
    print(f"skipped: {reason}")
    print("  (clone github.com/Fzkuji/OpenProgram outside this repository and pass --reference DIR "
          "or set SCRIPTORIUM_REFERENCE; see this file's docstring)")
    print(json.dumps({"skipped": reason}))


def arg(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[1:-1] else None


def main() -> None:
    where = arg("--reference") or os.environ.get("SCRIPTORIUM_REFERENCE")
    if not where:
        return skipped("no reference checkout given")
    reference = Path(where).resolve()
    if not (reference / "openprogram" / "store" / "session" / "session_store.py").is_file():
        return skipped(f"{reference} is not an OpenProgram checkout (no openprogram/store/session/session_store.py)")
    site = Path(arg("--site")).resolve() if arg("--site") else None
    batches = int(arg("--batches") or "20")
    global PATHS
    PATHS = set((arg("--only") or "mark,core,write,first_open").split(","))
    tmp = Path(tempfile.mkdtemp(prefix="reference-paths-"))
    try:
        figures = measure(tmp, reference, site, batches)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(figures)


def measure(tmp: Path, reference: Path, site: Path | None, batches: int) -> dict[str, dict[str, list[float]]]:
    ours_env, ref_env = environments(tmp, reference, site)
    py = sys.executable
    # The 10,000-turn session.
    big = tmp / "big"
    store = SessionStore(big)
    sid = store.create_session("reference paths")
    with store.batch(sid, "bench build"):
        ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"{i} {TEXT}").id for i in range(10_000)]
    wid = workspace_id(big)
    index = store.session_paths(sid).index
    history = str(store.session_paths(sid).history)
    names = [store.entry(sid, n).filename for n in ids]  # the mark's io floor rewrites files by name
    sessions = str(big / "sessions")
    # The demo state's memory (core), and a copy the reference renders into (it writes core.md).
    demo = tmp / "demo"
    run([py, "-m", "scriptorium.core.cli", "--state", str(demo), "demo", "--no-tui"], ours_env)
    core_cmd = [py, "-m", "scriptorium.core.cli", "--state", str(demo), "core"]
    ref_memory = tmp / "ref-memory"
    shutil.copytree(demo / "memory", ref_memory, symlinks=True)
    # bench/write.py's session, built once; each write process gets a copy.
    written = tmp / "write-state"
    wstore = SessionStore(written)
    wsid = write_bench.build(wstore)
    threshold = write_bench.count_tokens(write_bench.TEXT.format(i=1000)) * write_bench.BATCH_TURNS

    def write_copy(n: int, ref: bool) -> Path:
        target = tmp / ("ref-home" if ref else f"write-{n}") / (".openprogram" if ref else "state")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(written, target, symlinks=True)
        return target

    def ours_write(n: int) -> float:
        state = write_copy(n, ref=False)
        out = run([py, str(HERE / "write.py"), "--state", str(state), "--batches", str(batches)], ours_env)[2]
        shutil.rmtree(state.parent, ignore_errors=True)
        return last_json(out)["overhead_ms"]

    def ref_write(n: int) -> float:
        state = write_copy(n, ref=True)
        out = run([py, "-c", REF_WRITE, wsid, str(threshold), str(batches)], ref_env)[2]
        shutil.rmtree(state, ignore_errors=True)
        return last_json(out)["overhead_ms"]

    # Each child once, unmeasured: both byte-code caches hold every module their figures import.
    if "mark" in PATHS:
        run([py, "-c", MARK, str(big), sid, ids[0], wid], ours_env)
        run([py, "-c", REF_MARK, sessions, sid, ids[1], wid], ref_env)
        run([py, "-c", MARK_AFTER_READ, str(big), sid, ids[2], wid], ours_env)
    if "core" in PATHS:
        run(core_cmd, ours_env)  # counts cached from here on
        run([py, "-c", REF_CORE, str(ref_memory)], ref_env)
    if "first_open" in PATHS:
        index.unlink(missing_ok=True)
        run([py, "-c", OPEN, str(big), sid, wid], ours_env)
        run([py, "-c", REF_OPEN, sessions, sid, wid], ref_env)
        run([py, "-c", OPEN_FLOOR_THREADS, history, "2"], ours_env)
    if "write" in PATHS:
        ours_write(0)
        ref_write(0)

    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}

    def note(key: str, wall_ms: float, cpu_ms: float | None = None) -> None:
        walls.setdefault(key, []).append(wall_ms)
        if cpu_ms is not None:
            cpus.setdefault(key, []).append(cpu_ms)

    def bare() -> None:
        wall, used, _ = run([py, "-c", "pass"], ours_env)
        note("floor_ms", wall * 1000, used * 1000)

    def child(code: str, env: dict[str, str], *args: str) -> dict:
        return last_json(run([py, "-c", code, *args], env)[2])

    def mark_run(base: int) -> None:
        os.sync()  # the build's files are not the marks' fsyncs to pay for
        wall, used, out = run([py, "-c", MARK, str(big), sid, ",".join(ids[base:base + 20]), wid], ours_env)
        got = last_json(out)
        note("mark_ms", got["ms"], got["cpu_ms"])
        note("mark_call_ms", got["call_ms"], got["call_cpu_ms"])
        note("mark_process_ms", wall * 1000, used * 1000)  # the whole process: start, imports, call, exit
        os.sync()
        got = child(REF_MARK, ref_env, sessions, sid, ",".join(ids[base + 40:base + 60]), wid)
        note("ref_mark_call_ms", got["call_ms"], got["call_cpu_ms"])
        note("ref_mark_whole_ms", got["ms"], got["cpu_ms"])
        os.sync()
        got = child(MARK_AFTER_READ, ours_env, str(big), sid, ",".join(ids[base + 80:base + 100]), wid)
        note("mark_after_read_ms", got["ms"], got["cpu_ms"])
        os.sync()
        got = child(store_paths.IO_FLOOR, ours_env, history, ",".join(names[base + 100:base + 120]))
        note("mark_io_floor_ms", got["ms"], got["cpu_ms"])
        os.sync()
        got = child(store_paths.IO_FLOOR, ours_env, history, ",".join(names[base + 20:base + 40]), "hold")
        note("mark_io_held_floor_ms", got["ms"], got["cpu_ms"])

    def core_run() -> None:
        wall, used, _ = run(core_cmd, ours_env)
        note("core_ms", wall * 1000, used * 1000)
        wall, used, _ = run([py, "-c", REF_CORE, str(ref_memory)], ref_env)
        note("ref_core_ms", wall * 1000, used * 1000)

    def open_run() -> None:
        index.unlink(missing_ok=True)
        got = child(OPEN, ours_env, str(big), sid, wid)
        note("first_open_ms", got["ms"], got["cpu_ms"])
        got = child(REF_OPEN, ref_env, sessions, sid, wid)
        assert got["rows"] > 10_000 - 10, got
        note("ref_first_open_ms", got["ms"], got["cpu_ms"])
        got = child(OPEN_FLOOR, ours_env, history)
        assert got["files"] > 10_000, got
        note("open_floor_ms", got["ms"], got["cpu_ms"])
        for threads in (2, 4):
            got = child(OPEN_FLOOR_THREADS, ours_env, history, str(threads))
            assert got["files"] > 10_000, got
            note(f"open_floor_{threads}t_ms", got["ms"], got["cpu_ms"])

    for r in range(RUNS):
        base = 1000 + r * 120  # turns never marked before: each mark is a real first mark
        bare()
        if "mark" in PATHS:
            mark_run(base)
        bare()
        if "core" in PATHS:
            core_run()
        if "first_open" in PATHS:
            open_run()
        bare()
        if "write" in PATHS:
            note("write_ms", ours_write(r + 1))
            note("ref_write_ms", ref_write(r + 1))
    return {"walls": walls, "cpus": cpus}


def report(measured: dict[str, dict[str, list[float]]]) -> None:
    walls, cpus = measured["walls"], measured["cpus"]
    med = statistics.median
    figures: dict[str, float] = {}
    print(f"{'figure':<20}{'wall ms':>10}{'CPU ms':>10}   wall of each run (fresh processes)")
    for key, xs in walls.items():
        figures[key] = round(med(xs), 2)
        shown = f"{med(cpus[key]):.4g}" if key in cpus else "—"
        print(f"{key:<20}{figures[key]:>10.4g}{shown:>10}   " + ", ".join(f"{x:.4g}" for x in xs))
    for key, xs in cpus.items():
        figures[f"cpu_{key}"] = round(med(xs), 2)
    print(f"\n{'ratio (ours / ref)':<20}{'wall':>8}{'CPU':>8}")
    for name, (ours, ref) in RATIOS.items():
        if ours not in figures or ref not in figures:
            continue  # a path left out (--only)
        figures[f"ratio_{name}"] = round(figures[ours] / figures[ref], 3)
        cpu = f"{figures[f'cpu_{ours}'] / figures[f'cpu_{ref}']:.3f}" if f"cpu_{ours}" in figures else "—"
        print(f"{name:<20}{figures[f'ratio_{name}']:>8.3f}{cpu:>8}   ({ours} / {ref})")
    figures["load"] = round(os.getloadavg()[0], 2)
    print(f"\nfloor: bare interpreter, median of {len(walls['floor_ms'])} in the same run; RUNS={RUNS}; "
          f"load average {figures['load']}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
