"""CLI cold-start benchmark (issue 13, item 8: the CLI starts instantly).

Builds the demo state (core/demo.py: five sessions, a written core), then runs each command
in a fresh process several times (`pending` on a session whose token counts the index holds:
an append leaves its turn's count to the first reader, which loads the tokenizer once) and measures its CPU time (user + system, from
`resource.getrusage(RUSAGE_CHILDREN)` around the run) against `python -c pass` in the same
interpreter, interleaved so a busy machine slows both alike. Ratios are medians over the runs.
Both run with a byte-code cache (`PYTHONPYCACHEPREFIX` in the bench's temporary folder, even
under `PYTHONDONTWRITEBYTECODE`), warmed by the first run, as a user's installed copy has one;
`--compile` keeps the inherited environment instead, so that with `PYTHONDONTWRITEBYTECODE`
every run also compiles every project module it imports from source.
Targets: `--help` and `session list` <= 3x, `session append`, `pending`, `core --json` <= 5x,
`search` <= 8x. Last line: one JSON object of the ratios.
Usage: python bench/cli_startup.py [--runs N] [--compile]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scriptorium.core.demo import build_demo

APPENDED = "demo-onboarding"  # `session append` adds to this one
PENDING = "demo-checkout"  # `pending` reads this one (the demo's longest): its counts are in the index
TARGETS = {"help": 3, "session_list": 3, "append": 5, "pending": 5, "core": 5, "search": 8}


def entry_point() -> list[str]:
    """The console script as a user runs it (or the same entry through -m)."""
    script = Path(sys.executable).with_name("scriptorium")
    return [sys.executable, str(script)] if script.exists() else [sys.executable, "-m", "scriptorium.tui.entry"]


def commands(state: Path) -> dict[str, list[str]]:
    s = ["--state", str(state)]
    return {
        "help": ["--help"],
        "session_list": [*s, "session", "list"],
        "append": [*s, "session", "append", APPENDED, "--role", "user", "--text", "one more question about the cache"],
        "pending": [*s, "pending", PENDING],
        "core": [*s, "core", "--json"],
        "search": [*s, "search", "build cache size"],
    }


def cached_env(pycache: Path) -> dict[str, str]:
    """The environment with byte code cached under `pycache`, whatever the caller's settings."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def cpu_of(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of one run of `argv` to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compile", action="store_true", help="no byte-code cache of our own (see above)")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cli-startup-"))
    try:
        state = work / "state"
        build_demo(state)
        base = [sys.executable, "-c", "pass"]
        entry = entry_point()
        cmds = commands(state)
        env = None if opts.compile else cached_env(work / "pycache")
        cpu_of(base, env)
        for argv in cmds.values():  # warm the byte-code caches and the OS's file cache
            cpu_of(entry + argv, env)
        times: dict[str, list[float]] = {name: [] for name in ["baseline", *cmds]}
        ratios: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(opts.runs):
            for name, argv in cmds.items():
                pass_cpu = cpu_of(base, env)
                cpu = cpu_of(entry + argv, env)
                times["baseline"].append(pass_cpu)
                times[name].append(cpu)
                ratios[name].append(cpu / max(pass_cpu, 1e-3))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {name: round(statistics.median(values), 2) for name, values in ratios.items()}
    cache = "compiled from source when PYTHONDONTWRITEBYTECODE is set" if opts.compile else "byte code cached"
    print(f"CLI cold start, CPU time, median of {opts.runs} runs (entry: {' '.join(Path(p).name for p in entry)}; {cache})")
    print(f"{'command':<14} {'cpu ms':>8} {'ratio':>7} {'target':>7}")
    print(f"{'python -c pass':<14} {statistics.median(times['baseline']) * 1000:>8.1f} {'1.00':>7} {'':>7}")
    for name in cmds:
        verdict = "ok" if result[name] <= TARGETS[name] else "OVER"
        print(f"{name:<14} {statistics.median(times[name]) * 1000:>8.1f} {result[name]:>7.2f} "
              f"{'<=' + str(TARGETS[name]):>7} {verdict}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
