"""Hooks benchmark (issue 14, item 7): the cost of the hooks an agent waits on.

* session start: CPU time of a cold `scriptorium hook claude-code session-start` on a
  state whose rendered core is full (2,000-token budget), as a ratio to `python -c pass`
  in the same environment, measured in the same run (target: at most 3×);
* recall: CPU time of a cold `scriptorium hook claude-code user-prompt-submit` over
  10,000 topic blocks (bench/search.py's workspace: 400 topics × 25 blocks, half English,
  half Chinese) once the saved index is in place (target: at most 0.3 s);
* MCP: a warm `memory_search` through `scriptorium mcp` with the SDK's stdio client:
  the server's CPU per query (target under 5 ms; from /proc, over MCP_QUERIES queries)
  and the median round trip on the wall clock — null until that command exists.

CPU time is the child's user + system time (`resource.getrusage`), median of several runs.
Last line: one JSON object of the key figures.
"""

from __future__ import annotations

import json
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
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


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

    base_s, start_s, recall_s = statistics.median(base), statistics.median(start), statistics.median(recall)
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
    print(json.dumps({"session_start_ratio": round(ratio, 2), "recall_cold_cpu_s": round(recall_s, 3),
                      "mcp_search_ms": None if mcp is None else round(mcp[0], 3),
                      "mcp_search_wall_ms": None if mcp is None else round(mcp[1], 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
