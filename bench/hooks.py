"""Hooks benchmark (issue 14, item 7): the cost of the hooks an agent waits on.

* session start: CPU time of a cold `scriptorium hook claude-code session-start` on a
  state whose rendered core is full (2,000-token budget), as a ratio to `python -c pass`
  in the same environment, measured in the same run (target: at most 3×);
* recall: CPU time of a cold `scriptorium hook claude-code user-prompt-submit` over
  10,000 topic blocks (bench/search.py's workspace: 400 topics × 25 blocks, half English,
  half Chinese) once the saved index is in place (target: at most 0.3 s);
* every hook event the installed agents fire (Claude Code, Codex, pi), each in a fresh
  process: median CPU as a ratio to `python -c pass` (target: at most 3×) and median wall
  time (target: at most 100 ms on a quiet machine). The background events (stop, session
  end) are timed as the agent waits for them: checking the call and starting the
  detached job (a small real transcript), not the job;
* MCP start: CPU of `scriptorium mcp` from exec to its answers to `initialize` and
  `tools/list` (and exit at end of input) (target: at most 0.3 s);
* MCP: a warm `memory_search` through `scriptorium mcp` with the SDK's stdio client:
  the server's CPU per query (target under 5 ms; from /proc, over MCP_QUERIES queries)
  and the median round trip on the wall clock.

CPU time is the child's user + system time (`resource.getrusage`), median of several runs.
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

from search import SEED, make_blocks, make_queries, write_workspace  # noqa: E402

RUNS = 9
MCP_QUERIES = 100  # /proc counts CPU in clock ticks (10 ms): a hundred queries make that fine enough
CORE_FACTS = 60  # about 2,000 tokens of rendered core


def scriptorium() -> list[str]:
    exe = shutil.which("scriptorium", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "scriptorium.core.cli"]


def cpu_of(argv: list[str], stdin: bytes = b"") -> tuple[float, bytes]:
    return timed(argv, stdin)[:2]  # type: ignore[return-value]


def timed(argv: list[str], stdin: bytes = b"") -> tuple[float, bytes, float]:
    """(CPU seconds, stdout, wall seconds) of one fresh process."""
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
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


def hook_events(state: Path, queries: list[str], base_s: float) -> list[dict]:
    """Median CPU and wall of every hook event, in fresh processes, against `state`."""
    cmd = scriptorium()
    rows = []
    for agent, event, extra in EVENTS:
        cpu, wall = [], []
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
        rows.append({"agent": agent, "event": event, "cpu_s": statistics.median(cpu),
                     "wall_ms": statistics.median(wall) * 1000, "ratio": statistics.median(cpu) / base_s})
    return rows


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


def typical_state(memory: Path, state: Path) -> Path:
    """A state with the first TYPICAL_TOPICS topics of `memory`, its core and evidence, its index saved."""
    target = state / "memory"
    shutil.copytree(memory / "sources", target / "sources")
    shutil.copy2(memory / "core.md", target / "core.md")
    for path in sorted((memory / "topics").rglob("*.md"))[:TYPICAL_TOPICS]:
        dest = target / path.relative_to(memory)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
    build = "import sys; from scriptorium.core.search import SearchIndex; SearchIndex(sys.argv[1]).refresh()"
    subprocess.run([sys.executable, "-c", build, str(target)], check=True)
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
    rng = random.Random(SEED)
    blocks = make_blocks(rng)
    queries = [q for q in make_queries(rng, blocks) if q.strip()]
    cmd = scriptorium()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        memory = state / "memory"
        write_workspace(memory, blocks)
        write_core(memory, rng)
        hook = [*cmd, "--state", str(state), "hook", "claude-code"]

        # the saved index, as a hook's write job leaves it (a stale big index is rebuilt in the background)
        build = ("import sys; from scriptorium.core.search import SearchIndex; "
                 "SearchIndex(sys.argv[1]).refresh()")
        first_cpu, _ = cpu_of([sys.executable, "-c", build, str(memory)])
        base, start, recall, hits = [], [], [], 0  # recalled: a hit above the floor and within budget
        for n in range(RUNS):
            base.append(cpu_of([sys.executable, "-c", "pass"])[0])
            cpu, out = cpu_of([*hook, "session-start"], payload(f"s{n}", source="startup"))
            assert b"additionalContext" in out, out
            start.append(cpu)
            cpu, out = cpu_of([*hook, "user-prompt-submit"], payload(f"r{n}", prompt=queries[n % len(queries)]))
            hits += b"additionalContext" in out
            recall.append(cpu)
        mcp = mcp_search_ms(state)
        base_s = statistics.median(base)
        events = hook_events(state, queries, base_s)
        small = typical_state(memory, Path(tmp) / "typical")
        typical = hook_events(small, queries, base_s)
        mcp_start = mcp_start_cpu(state)

    start_s, recall_s = statistics.median(start), statistics.median(recall)
    ratio = start_s / base_s
    print(f"{len(blocks)} blocks, {RUNS} runs each (median CPU seconds, user + system)")
    print(f"  {'python -c pass':<44} {base_s:8.3f}")
    print(f"  {'hook claude-code session-start':<44} {start_s:8.3f}   {ratio:.2f}x  (target <= 3x)")
    print(f"  {'hook claude-code user-prompt-submit (cold)':<44} {recall_s:8.3f}   target <= 0.3 s; {hits}/{RUNS} recalled")
    print(f"  {'building and saving the index (a write job)':<44} {first_cpu:8.3f}")
    if mcp is None:
        print(f"  {'mcp memory_search (warm, ms)':<44}     null   (no `scriptorium mcp` yet)")
    else:
        print(f"  {'mcp memory_search (warm, server CPU ms)':<44} {mcp[0]:8.3f}   target < 5 ms")
        print(f"  {'mcp memory_search (warm, round trip ms)':<44} {mcp[1]:8.3f}   wall clock, client included")
    print(f"  {'mcp start: initialize + tools/list (CPU s)':<44} {mcp_start:8.3f}   target <= 0.3 s")
    load = os.getloadavg()[0]
    for title, rows in ((f"{len(blocks)} blocks", events), (f"typical: {TYPICAL_TOPICS * 25} blocks", typical)):
        print(f"every hook event, {title}, fresh process, median of {RUNS}:  CPU s   x bare   wall ms  "
              f"(targets: <= 3x, <= 100 ms; load average {load:.1f})")
        for row in rows:
            print(f"  {row['agent'] + ' ' + row['event']:<44} {row['cpu_s']:6.3f}  {row['ratio']:5.2f}x  {row['wall_ms']:7.1f}")
    worst_ratio = max(row["ratio"] for row in typical)
    worst_wall = max(row["wall_ms"] for row in typical)
    worst_ratio_10k = max(row["ratio"] for row in events)
    print(json.dumps({"session_start_ratio": round(ratio, 2), "recall_cold_cpu_s": round(recall_s, 3),
                      "mcp_search_ms": None if mcp is None else round(mcp[0], 3),
                      "mcp_search_wall_ms": None if mcp is None else round(mcp[1], 3),
                      "mcp_start_cpu_s": round(mcp_start, 3), "hook_worst_ratio": round(worst_ratio, 2),
                      "hook_worst_ratio_10k": round(worst_ratio_10k, 2),
                      "hook_worst_wall_ms": round(worst_wall, 1), "bare_cpu_s": round(base_s, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
