"""Hooks benchmark (issue 14, item 7): the cost of the hooks an agent waits on.

* session start: CPU time of a cold `scriptorium hook claude-code session-start` on a
  state whose rendered core is full (2,000-token budget), as a ratio to `python -c pass`
  in the same environment, measured in the same run (target: at most 3×);
* recall, cold: CPU time of `scriptorium hook claude-code user-prompt-submit` recalling in
  its own process (no warm process: `SCRIPTORIUM_RECALL_WARM=0`) over 10,000 topic blocks
  (bench/search.py's workspace: 400 topics × 25 blocks, half English, half Chinese), semantic
  search on, once the write job's saved models, vectors and token counts are in place
  (`count_ahead`, what every write leaves; target: at most 0.4 s);
* every hook event the installed agents fire (Claude Code, Codex, pi), each in a fresh
  process: median CPU as a ratio to `python -c pass` (target: at most 3×) and median wall
  time (target: at most 100 ms on a quiet machine). Recall goes to the state's warm process
  (core/agents/recall_server.py), as it does once a session has started; its CPU per
  recall is given beside (from /proc: it is not the hook's process). The background events
  (stop, session end) are timed as the agent waits for them: checking the call and
  starting the detached job (a small real transcript), not the job;
* the first prompt of a session: a session start and the prompt at once after it with no
  warm process yet (the prompt waits for the one the session start spawned);
* MCP start: CPU of `scriptorium mcp` from exec to its answers to `initialize` and
  `tools/list` (and exit at end of input) (target: at most 0.3 s);
* MCP: a warm `memory_search` through `scriptorium mcp` with the SDK's stdio client:
  the server's CPU per query (target under 5 ms; from /proc, over MCP_QUERIES queries)
  and the median round trip on the wall clock.

CPU time is the child's user + system time (`resource.getrusage`), median of several runs.
Every process runs with a byte-code cache (`PYTHONPYCACHEPREFIX` in the bench's temporary
folder, warmed by a first run, even under `PYTHONDONTWRITEBYTECODE`), as an installed copy
has one (pip compiles it); `--compile` keeps the inherited environment instead.
Last line: one JSON object of the key figures.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cli_startup import cached_env  # noqa: E402
from search import SEED, make_blocks, make_queries, write_workspace  # noqa: E402

from scriptorium.core.agents import recall_server  # noqa: E402

RUNS = 9
MCP_QUERIES = 100  # /proc counts CPU in clock ticks (10 ms): a hundred queries make that fine enough
CORE_FACTS = 60  # about 2,000 tokens of rendered core


def scriptorium() -> list[str]:
    exe = shutil.which("scriptorium", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "scriptorium.core.cli"]


ENV: dict[str, str] = dict(os.environ)  # main() sets the byte-code cache and the warm process
WARM = "600"  # seconds a warm recall process waits: longer than any part of this run


def cpu_of(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> tuple[float, bytes]:
    return timed(argv, stdin, env)[:2]  # type: ignore[return-value]


def timed(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> tuple[float, bytes, float]:
    """(CPU seconds, stdout, wall seconds) of one fresh process."""
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False,
                          env=ENV if env is None else env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout, wall


TRANSCRIPTS = HERE.parent.parent / "shared" / "fixtures" / "transcripts"
EVENTS = [  # (agent, event, extra payload); stop and session end need a transcript to queue
    ("claude-code", "session-start", {"source": "startup"}), ("claude-code", "user-prompt-submit", {"prompt": None}),
    ("claude-code", "stop", {"transcript": "claude-code__marot_spotter__tool_heavy.jsonl"}),
    ("claude-code", "session-end", {"transcript": "claude-code__marot_spotter__tool_heavy.jsonl"}),
    ("codex", "SessionStart", {"source": "startup"}), ("codex", "UserPromptSubmit", {"prompt": None}),
    ("codex", "SubagentStart", {"agent_id": "a1"}),
    ("codex", "Stop", {"transcript": "codex__jazzyalex_agent-sessions__small.jsonl"}),
    ("codex", "SessionEnd", {"transcript": "codex__jazzyalex_agent-sessions__small.jsonl"}),
    ("pi", "before-agent-start", {"prompt": None}),
    ("pi", "session-shutdown", {"transcript": "pi__jazzyalex_agent-sessions__small.jsonl", "reason": "quit"}),
]


def warm_process(state: Path) -> int:
    """Start `state`'s warm recall process and wait until it answers; its pid."""
    import time

    os.environ[recall_server.WARM_ENV] = WARM
    recall_server.ensure(state)
    deadline = time.time() + 120
    while recall_server.ask(state, "warm up", set())[1] != "warm":
        if time.time() > deadline:
            raise SystemExit("the warm recall process never answered")
        time.sleep(0.1)
    pid = recall_server.pid(state)
    assert pid is not None
    return pid


def end_warm(state: Path) -> None:
    import signal
    import time

    for _ in range(50):  # and a spare one still waiting for the lock
        pid = recall_server.pid(state)
        if pid is None:
            time.sleep(0.1)
            if recall_server.pid(state) is None:
                return
            continue
        os.kill(pid, signal.SIGTERM)
        time.sleep(0.2)


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def hook_events(state: Path, queries: list[str], base_s: float) -> list[dict]:
    """Median CPU and wall of every hook event, in fresh processes, against `state`; a recall
    goes to the state's warm process (started first), whose CPU per call is `server_cpu_s`."""
    cmd = scriptorium()
    server = warm_process(state)
    rows = []
    for agent, event, extra in EVENTS:
        cpu, wall = [], []
        server_before = process_cpu_s(server)
        for n in range(RUNS):
            doc: dict = {"session_id": f"{agent}-{event}-{n}", "cwd": "/tmp"}
            if "prompt" in extra:
                doc["prompt"] = queries[n % len(queries)]
            if "source" in extra:
                doc["source"] = extra["source"]
            if "agent_id" in extra:
                doc["agent_id"] = f"{extra['agent_id']}-{n}"
            if "transcript" in extra:
                doc["transcript_path" if agent != "pi" else "session_file"] = str(TRANSCRIPTS / extra["transcript"])
            if "reason" in extra:
                doc["reason"] = extra["reason"]
            c, _out, w = timed([*cmd, "--state", str(state), "hook", agent, event], json.dumps(doc).encode())
            cpu.append(c)
            wall.append(w)
            if "transcript" in extra:
                wait_for_job(state, doc["session_id"])  # its detached job must not load the next measurement
        row = {"agent": agent, "event": event, "cpu_s": statistics.median(cpu),
               "wall_ms": statistics.median(wall) * 1000, "ratio": statistics.median(cpu) / base_s}
        if "prompt" in extra:
            row["server_cpu_s"] = (process_cpu_s(server) - server_before) / RUNS
            row["via"] = sorted({c.get("detail", {}).get("recall_via", "?") for c in logged(state)[-RUNS:]})
        rows.append(row)
    end_warm(state)
    return rows


def logged(state: Path) -> list[dict]:
    log = state / "memory" / ".scriptorium" / "hooks.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def first_prompt(state: Path, queries: list[str]) -> tuple[float, float, list[str]]:
    """A session start, then at once its first prompt, with no warm process yet: the prompt's
    median wall seconds and CPU seconds (the hook's), and how its recalls went."""
    cmd = scriptorium()
    walls, cpus = [], []
    for n in range(max(3, RUNS // 2)):
        end_warm(state)
        session = f"first-{n}"
        timed([*cmd, "--state", str(state), "hook", "claude-code", "session-start"], payload(session, source="startup"))
        c, _out, w = timed([*cmd, "--state", str(state), "hook", "claude-code", "user-prompt-submit"],
                           payload(session, prompt=queries[n % len(queries)]))
        walls.append(w)
        cpus.append(c)
    prompts = [c for c in logged(state) if c.get("event") == "user-prompt-submit"][-len(walls):]
    via = sorted({c.get("detail", {}).get("recall_via", "?") for c in prompts})
    end_warm(state)
    return statistics.median(walls), statistics.median(cpus), via


def wait_for_job(state: Path, session_id: str, timeout: float = 180) -> None:
    import time

    log = state / "memory" / ".scriptorium" / "hooks.jsonl"
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            lines = log.read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        for line in reversed(lines):
            call = json.loads(line)
            if call.get("session_id") == session_id and call.get("detail", {}).get("phase") == "foreground":
                return
        time.sleep(0.2)
    raise SystemExit(f"the detached job of {session_id} never finished")


TYPICAL_TOPICS = 20  # 500 blocks: a user's memory after some weeks, not the 10,000-block stress case


def prepare(memory: Path) -> float:
    """What a write job leaves (`count_ahead`: both search models, their vectors, recall's
    token counts); the CPU seconds it took."""
    build = "import sys; from scriptorium.core.agents.recall_tokens import count_ahead; count_ahead(sys.argv[1])"
    return cpu_of([sys.executable, "-c", build, str(memory.parent)])[0]


def typical_state(memory: Path, state: Path) -> Path:
    """A state with the first TYPICAL_TOPICS topics of `memory`, its core and evidence, as a write leaves it."""
    target = state / "memory"
    shutil.copytree(memory / "sources", target / "sources")
    shutil.copy2(memory / "core.md", target / "core.md")
    for path in sorted((memory / "topics").rglob("*.md"))[:TYPICAL_TOPICS]:
        dest = target / path.relative_to(memory)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
    prepare(target)
    return state


def mcp_start_cpu(state: Path) -> float:
    """CPU seconds of `scriptorium mcp` answering initialize and tools/list, then ending."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    stdin = "".join(json.dumps(line) + "\n" for line in lines).encode()
    samples = []
    for _ in range(RUNS):
        cpu, out, _wall = timed([*scriptorium(), "--state", str(state), "mcp"], stdin)
        assert b"memory_search" in out, out
        samples.append(cpu)
    return statistics.median(samples)


def write_core(memory: Path, rng: random.Random) -> None:
    words = "cache runner bucket region eviction release hotfix deploy review branch build target lane".split()
    facts = [" ".join(rng.choices(words, k=22)).capitalize() + f". ^{n:08x}" for n in range(CORE_FACTS)]
    (memory / "core.md").write_text("# Core\n\n" + "\n\n".join(facts) + "\n", encoding="utf-8")


def payload(session: str, **fields: object) -> bytes:
    return json.dumps({"session_id": session, "transcript_path": "/nonexistent.jsonl", "cwd": "/tmp",
                       "permission_mode": "default", **fields}).encode("utf-8")


def _server_cpu_s(parent: int) -> float | None:
    """User + system CPU seconds so far of `parent`'s child (the stdio server), from /proc."""
    import os

    ticks = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:  # ppid
            return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return None


def mcp_search_ms(state: Path) -> tuple[float, float] | None:
    """A warm `memory_search` through `scriptorium mcp`: the server's CPU per query (what the
    query costs, like the other figures here) and the client's median round trip (which a
    busy machine's scheduling inflates); None while there is no such command."""
    probe = subprocess.run([*scriptorium(), "mcp", "--help"], capture_output=True, check=False)
    if probe.returncode != 0:
        return None
    try:
        import anyio
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        return None
    import os
    import time

    queries = ("sccache bucket region", "release hotfix", "的一是", "target directory cache")

    async def measure() -> tuple[float, float]:
        cmd = scriptorium()
        params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "--state", str(state), "mcp"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("memory_search", {"query": "warm up"})
            samples = []
            before = _server_cpu_s(os.getpid())
            for n in range(MCP_QUERIES):
                start = time.perf_counter()
                await session.call_tool("memory_search", {"query": queries[n % len(queries)], "top_k": 5})
                samples.append((time.perf_counter() - start) * 1000)
            after = _server_cpu_s(os.getpid())
            wall = statistics.median(samples)
            cpu = (after - before) * 1000 / MCP_QUERIES if before is not None and after is not None else wall
            return cpu, wall

    return anyio.run(measure)


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compile", action="store_true", help="keep the inherited environment (no byte-code cache)")
    opts = parser.parse_args()
    rng = random.Random(SEED)
    blocks = make_blocks(rng)
    queries = [q for q in make_queries(rng, blocks) if q.strip()]
    cmd = scriptorium()
    with tempfile.TemporaryDirectory() as tmp:
        if not opts.compile:
            ENV.clear()
            ENV.update(cached_env(Path(tmp) / "pycache"))
        ENV[recall_server.WARM_ENV] = WARM
        os.environ.clear()
        os.environ.update(ENV)  # this process starts warm processes and the MCP server too
        cold = {**ENV, recall_server.WARM_ENV: "0"}
        state = Path(tmp) / "state"
        memory = state / "memory"
        write_workspace(memory, blocks)
        write_core(memory, rng)
        hook = [*cmd, "--state", str(state), "hook", "claude-code"]

        first_cpu = prepare(memory)  # the saved models, vectors and counts, as a hook's write job leaves them
        for warm_up in ([sys.executable, "-c", "pass"], [*hook, "session-start"], [*hook, "user-prompt-submit"]):
            cpu_of(warm_up, payload("warm-up", source="startup", prompt=queries[0]), cold)  # fills the byte-code cache
        base, start, recall, reasons = [], [], [], []
        for n in range(RUNS):
            base.append(cpu_of([sys.executable, "-c", "pass"])[0])
            cpu, out = cpu_of([*hook, "session-start"], payload(f"s{n}", source="startup"), cold)
            assert b"additionalContext" in out, out
            start.append(cpu)
            cpu, out = cpu_of([*hook, "user-prompt-submit"], payload(f"r{n}", prompt=queries[n % len(queries)]), cold)
            reasons.append(logged(state)[-1].get("detail", {}).get("recall", "?"))
            recall.append(cpu)
        mcp = mcp_search_ms(state)
        base_s = statistics.median(base)
        events = hook_events(state, queries, base_s)
        small = typical_state(memory, Path(tmp) / "typical")
        typical = hook_events(small, queries, base_s)
        first_wall, first_cpu_s, first_via = first_prompt(small, queries)
        mcp_start = mcp_start_cpu(state)

    start_s, recall_s = statistics.median(start), statistics.median(recall)
    ratio = start_s / base_s
    load = os.getloadavg()[0]
    recalled = sum(r == "recalled" for r in reasons)
    cache = "compiled from source when PYTHONDONTWRITEBYTECODE is set" if opts.compile else "byte code cached"
    print(f"{len(blocks)} blocks, {RUNS} runs each (median CPU seconds, user + system; {cache})")
    print(f"  {'python -c pass':<44} {base_s:8.3f}")
    print(f"  {'hook claude-code session-start':<44} {start_s:8.3f}   {ratio:.2f}x  (target <= 3x)")
    print(f"  {'hook claude-code user-prompt-submit (cold)':<44} {recall_s:8.3f}   target <= 0.4 s; "
          f"{recalled}/{RUNS} recalled ({', '.join(sorted(set(reasons)))})")
    print(f"  {'a write job: models, vectors, counts':<44} {first_cpu:8.3f}")
    if mcp is None:
        print(f"  {'mcp memory_search (warm, ms)':<44}     null   (no `scriptorium mcp` yet)")
    else:
        print(f"  {'mcp memory_search (warm, server CPU ms)':<44} {mcp[0]:8.3f}   target < 5 ms")
        print(f"  {'mcp memory_search (warm, round trip ms)':<44} {mcp[1]:8.3f}   wall clock, client included")
    print(f"  {'mcp start: initialize + tools/list (CPU s)':<44} {mcp_start:8.3f}   target <= 0.3 s")
    for title, rows in ((f"{len(blocks)} blocks", events), (f"typical: {TYPICAL_TOPICS * 25} blocks", typical)):
        print(f"every hook event, {title}, fresh process, median of {RUNS}:  CPU s   x bare   wall ms  "
              f"(targets: <= 3x, <= 100 ms; load average {load:.1f})")
        for row in rows:
            extra = ""
            if "server_cpu_s" in row:
                extra = f"   + warm process {row['server_cpu_s'] * 1000:.1f} ms CPU a recall ({', '.join(row['via'])})"
            print(f"  {row['agent'] + ' ' + row['event']:<44} {row['cpu_s']:6.3f}  {row['ratio']:5.2f}x  "
                  f"{row['wall_ms']:7.1f}{extra}")
    print(f"first prompt of a session, no warm process yet (typical): {first_wall * 1000:.0f} ms wall, "
          f"{first_cpu_s:.3f} s CPU in the hook ({', '.join(first_via)}); load average {load:.1f}")
    worst_ratio = max(row["ratio"] for row in typical)
    worst_wall = max(row["wall_ms"] for row in typical)
    worst_ratio_10k = max(row["ratio"] for row in events)
    print(json.dumps({"session_start_ratio": round(ratio, 2), "recall_cold_cpu_s": round(recall_s, 3),
                      "recall_cold_recalled": recalled,
                      "mcp_search_ms": None if mcp is None else round(mcp[0], 3),
                      "mcp_search_wall_ms": None if mcp is None else round(mcp[1], 3),
                      "mcp_start_cpu_s": round(mcp_start, 3), "hook_worst_ratio": round(worst_ratio, 2),
                      "hook_worst_ratio_10k": round(worst_ratio_10k, 2),
                      "hook_worst_wall_ms": round(worst_wall, 1),
                      "hook_worst_wall_ms_10k": round(max(row["wall_ms"] for row in events), 1),
                      "warm_recall_server_cpu_ms": round(max(r.get("server_cpu_s", 0) for r in events) * 1000, 2),
                      "first_prompt_wall_ms": round(first_wall * 1000, 1),
                      "bare_cpu_s": round(base_s, 4), "load": round(load, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
