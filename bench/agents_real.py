"""The agents as installed, with the real clients (issue 27): Claude Code, Codex and pi from
npm, driven non-interactively against a bounded scripted model server on 127.0.0.1
(tests/wire/servers.py: Anthropic Messages with SSE for Claude Code, OpenAI Responses for
Codex, chat completions for pi), each in a private $HOME with `scriptorium install AGENT`
and nothing else.

Checked per client: the core is injected (the model's request carries the core's fact),
recall is injected (and the deploy fact the prompt asks about), the session end is written
(the hook log's finish wrote the session), the MCP tools are called (Claude Code, Codex:
the scripted model calls memory_search and the answer carries the fact; pi has no MCP),
and install + uninstall gives back the agent's files byte for byte. Then the cost: a
one-prompt `claude -p` with Scriptorium installed and without (median wall time of
RUNS alternating runs; target: at most 0.5 s slower), with Scriptorium twice: as a day's
first session (no warm recall process yet: the session start starts one, the prompt waits
for it) and as a later one (the warm process is up; the first run's write jobs done). Scriptorium runs with a byte-code
cache (`PYTHONPYCACHEPREFIX` in the run's folder, even under `PYTHONDONTWRITEBYTECODE`),
as an installed copy has one; `--compile` keeps the inherited environment.

The clients are installed with npm into CLIENTS_DIR (default ~/.cache/scriptorium-agents)
the first time; without npm the run is skipped, saying why. Not part of the test suite
(minutes, and npm): run `python bench/agents_real.py`. Last line: one JSON object.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from wire.servers import Request, Response, ScriptedServer, Turn, anthropic_messages, openai_chat, openai_responses  # noqa: E402

PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex", "pi": "@mariozechner/pi-coding-agent"}
CLIENTS_DIR = Path(os.environ.get("SCRIPTORIUM_AGENTS_DIR") or Path.home() / ".cache" / "scriptorium-agents")
CORE_FACT = "The user is called Ada and drinks green tea."
DEPLOY_FACT = "Production deploys run on Tuesday evenings, never on Fridays."
PROMPT = "When do production deploys run?"
ANSWER = "Deploys run on Tuesday evenings."
RUNS = int(os.environ.get("AGENTS_BENCH_RUNS", "7"))
CLIENT_TIMEOUT_S = 120
COMPILE = "--compile" in sys.argv[1:]


def scriptorium() -> str:
    exe = shutil.which("scriptorium", path=str(Path(sys.executable).parent))
    if exe is None:
        raise SystemExit("no scriptorium beside this interpreter: pip install -e . first")
    return exe


def install_clients() -> dict[str, Path] | str:
    """The three clients' executables, installed with npm when missing; or why not."""
    bins = {name: CLIENTS_DIR / "node_modules" / ".bin" / name for name in PACKAGES}
    if all(b.exists() for b in bins.values()):
        return bins
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on PATH (the real clients come from npm)"
    CLIENTS_DIR.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(CLIENTS_DIR), *PACKAGES.values()],
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 or not all(b.exists() for b in bins.values()):
        return f"npm install failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"
    return bins


def version(exe: Path) -> str:
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60, check=False)
    return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr).strip() else "?"


# -- one private world per client ------------------------------------------------------------


class World:
    """A private $HOME, project folder and Scriptorium state with a core and a deploy topic."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.state = root / "state"
        self.home.mkdir(parents=True)
        self.project.mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE_",
                                                                              "CODEX_", "PI_", "SCRIPTORIUM_"))}
        if not COMPILE:
            self.env.pop("PYTHONDONTWRITEBYTECODE", None)
            self.env["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
        self.env.update(HOME=str(self.home), GIT_CONFIG_GLOBAL=str(self.home / ".gitconfig"),
                        DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        seed = ("import sys\nfrom scriptorium.core.memory import Workspace, save_topic\n"
                "ws = Workspace.open(sys.argv[1])\n"
                f"assert save_topic(ws, 'core.md', '# Core\\n\\n{CORE_FACT}\\n').outcome == 'installed'\n"
                f"assert save_topic(ws, 'infra/deploys.md', '# Deploys\\n\\n{DEPLOY_FACT}\\n').outcome == 'installed'\n")
        subprocess.run([sys.executable, "-c", seed, str(self.state)], env=self.env, check=True)

    def scriptorium(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([scriptorium(), "--state", str(self.state), *args], env=self.env, capture_output=True,
                              text=True, timeout=120, check=False)

    def snapshot(self, paths: list[Path]) -> dict[str, bytes | None]:
        return {str(p): p.read_bytes() if p.is_file() else None for p in paths}

    def hook_calls(self) -> list[dict[str, Any]]:
        log = self.state / "memory" / ".scriptorium" / "hooks.jsonl"
        try:
            return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
        except OSError:
            return []

    def finished(self, timeout: float = 60) -> bool:
        """Whether the session-end job ran and wrote the session (it runs detached)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for call in self.hook_calls():
                steps = call.get("detail", {}).get("steps", [])
                if any(s.get("event") == "session-end" and isinstance(s.get("write"), dict)
                       and s["write"].get("outcome") == "ok" for s in steps):
                    return True
            time.sleep(0.3)
        return False


class Model:
    """The scripted model's policy: answer the prompt by calling memory_search once (when the
    client offers it), then with the fact; any other request gets a plain answer."""

    def __init__(self, tool_name: Callable[[dict[str, Any]], str | None], answer: Callable[..., Response],
                 text_of: Callable[[dict[str, Any]], str], result_marker: str) -> None:
        self.tool_name, self.answer, self.text_of, self.marker = tool_name, answer, text_of, result_marker
        self.saw_core = self.saw_recall = self.tool_result_has_fact = False
        self.called_tool = False

    def __call__(self, request: Request) -> Response:
        body = request.body or {}
        text = self.text_of(body)
        stream = bool(body.get("stream", False))
        if PROMPT in text and self.marker not in text:  # the prompt's first request: before any tool result
            self.saw_core |= CORE_FACT in text
            self.saw_recall |= DEPLOY_FACT in text
        tool = self.tool_name(body)
        if PROMPT in text and tool and self.marker not in text:
            self.called_tool = True
            return self.answer(Turn(calls=[(tool, {"query": "production deploys"})]), stream=stream)
        if self.marker in text:
            self.tool_result_has_fact |= "Tuesday evenings" in text.split(self.marker, 1)[1]
        return self.answer(Turn(text=ANSWER), stream=stream)


def _claude_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("system"), ensure_ascii=False) + json.dumps(body.get("messages"), ensure_ascii=False)


def _claude_tool(body: dict[str, Any]) -> str | None:
    names = [t.get("name", "") for t in body.get("tools", []) if isinstance(t, dict)]
    return next((n for n in names if n == "mcp__scriptorium__memory_search"), None)


def _codex_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("instructions"), ensure_ascii=False) + json.dumps(body.get("input"), ensure_ascii=False)


def _codex_tool(body: dict[str, Any]) -> str | None:
    for tool in body.get("tools", []):
        if isinstance(tool, dict) and tool.get("type") == "namespace" and tool.get("name") == "mcp__scriptorium":
            if any(t.get("name") == "memory_search" for t in tool.get("tools", [])):
                return "mcp__scriptorium/memory_search"
    return None


def _pi_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("messages"), ensure_ascii=False)


def run_client(argv: list[str], world: World, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    return timed_client(argv, world, env)[:2]  # type: ignore[return-value]


def timed_client(argv: list[str], world: World,
                 env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str], float]:
    """(wall s, the run, CPU s of the client and every process it waited for: its hooks, its
    MCP servers; not the detached write jobs, which nobody waits for)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=world.project, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S,
                          stdin=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, done, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def round_trip(world: World, agent: str, files: list[Path], *extra: str) -> bool:
    before = world.snapshot(files)
    ok = world.scriptorium("install", agent, *extra).returncode == 0
    ok &= world.scriptorium("uninstall", agent).returncode == 0
    return ok and world.snapshot(files) == before


def claude_code(exe: Path, root: Path) -> dict[str, Any]:
    world = World(root)
    (world.home / ".claude").mkdir()
    settings = world.home / ".claude" / "settings.json"
    settings.write_text('{\n  "permissions": {\n    "allow": [\n      "Bash(npm run lint)"\n    ]\n  },\n'
                        '  "model": "sonnet"\n}\n', encoding="utf-8")
    files = [settings, world.home / ".claude.json"]
    result: dict[str, Any] = {"client": version(exe)}
    result["round_trip"] = round_trip(world, "claude-code", files)
    assert world.scriptorium("install", "claude-code").returncode == 0
    model = Model(_claude_tool, anthropic_messages, _claude_text, '"tool_result"')
    with ScriptedServer([model], repeat_last=True, max_requests=40, lifetime_s=300) as server:
        env = {**world.env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-scripted"}
        wall, done = run_client([str(exe), "-p", PROMPT, "--output-format", "json"], world, env)
    result.update(_verdicts(model, world, done, wall, mcp=True))
    uninstalled = world.scriptorium("uninstall", "claude-code").returncode == 0
    result["uninstalled"] = uninstalled and not any("scriptorium" in (p.read_text() if p.is_file() else "")
                                                    for p in files)
    return result


def codex(exe: Path, root: Path) -> dict[str, Any]:
    world = World(root)
    codex_home = world.home / ".codex"
    codex_home.mkdir()
    world.env["CODEX_HOME"] = str(codex_home)
    config = codex_home / "config.toml"
    files = [config, codex_home / "hooks.json"]
    result: dict[str, Any] = {"client": version(exe)}
    model = Model(_codex_tool, openai_responses, _codex_text, '"function_call_output"')
    with ScriptedServer([model], repeat_last=True, max_requests=40, lifetime_s=300) as server:
        config.write_text(f'# my Codex\nmodel = "scripted-model"\nmodel_provider = "scripted"\napproval_policy = "never"\n\n'
                          f'[model_providers.scripted]\nname = "Scripted"\nbase_url = "{server.url}/v1"\n'
                          f'wire_api = "responses"\nenv_key = "SCRIPTED_API_KEY"\n', encoding="utf-8")
        result["round_trip"] = round_trip(world, "codex", files, "--remember", "allow")
        assert world.scriptorium("install", "codex").returncode == 0
        env = {**world.env, "SCRIPTED_API_KEY": "sk-scripted"}
        wall, done = run_client([str(exe), "exec", "--skip-git-repo-check", PROMPT], world, env)
    result.update(_verdicts(model, world, done, wall, mcp=True))
    result["hooks_ran"] = sorted({c["event"] for c in world.hook_calls() if c.get("agent") == "codex"})
    uninstalled = world.scriptorium("uninstall", "codex").returncode == 0
    result["uninstalled"] = uninstalled and "scriptorium" not in config.read_text() and not (codex_home / "hooks.json").exists()
    return result


def pi(exe: Path, root: Path) -> dict[str, Any]:
    world = World(root)
    agent_dir = world.home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    extension = agent_dir / "extensions" / "scriptorium.ts"
    result: dict[str, Any] = {"client": version(exe)}
    result["round_trip"] = round_trip(world, "pi", [extension]) and not (agent_dir / "extensions").exists()
    assert world.scriptorium("install", "pi").returncode == 0
    model = Model(lambda body: None, openai_chat, _pi_text, "\0")
    with ScriptedServer([model], repeat_last=True, max_requests=40, lifetime_s=300) as server:
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"scripted": {
            "baseUrl": server.url + "/v1", "api": "openai-completions", "apiKey": "sk-scripted",
            "models": [{"id": "scripted-model"}]}}}, indent=2), encoding="utf-8")
        wall, done = run_client([str(exe), "--provider", "scripted", "--model", "scripted-model", "-p", PROMPT],
                                world, world.env)
    result.update(_verdicts(model, world, done, wall, mcp=False))
    result["uninstalled"] = world.scriptorium("uninstall", "pi").returncode == 0 and not extension.exists()
    return result


def _verdicts(model: Model, world: World, done: subprocess.CompletedProcess[str], wall: float, *, mcp: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"exit": done.returncode, "wall_s": round(wall, 2), "answered": ANSWER in done.stdout,
                           "core_injected": model.saw_core, "recall_injected": model.saw_recall,
                           "session_end_written": world.finished()}
    if mcp:
        out["mcp_tool_called"] = model.called_tool and model.tool_result_has_fact
    if done.returncode != 0:
        out["stderr"] = done.stderr.strip().splitlines()[-3:]
    return out


# -- the cost: claude -p with and without ------------------------------------------------------


def claude_cost(exe: Path, root: Path) -> dict[str, Any]:
    """Median wall time of a one-prompt `claude -p`, without Scriptorium and with it (a first
    session, no warm recall process; a later one, the process up), runs alternating so the
    machine's load falls on all alike."""
    world = World(root)
    answer = lambda request: anthropic_messages(Turn(text=ANSWER), stream=bool((request.body or {}).get("stream")))  # noqa: E731
    walls: dict[str, list[float]] = {"bare": [], "first": [], "later": []}
    cpus: dict[str, list[float]] = {"bare": [], "first": [], "later": []}
    with ScriptedServer([answer], repeat_last=True, max_requests=30 * RUNS + 30, lifetime_s=1200) as server:
        env = {**world.env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-scripted"}
        argv = [str(exe), "-p", "hello", "--output-format", "json"]
        run_client(argv, world, env)  # warm the file cache once
        assert world.scriptorium("install", "claude-code").returncode == 0
        run_client(argv, world, env)  # and Scriptorium's byte-code cache
        assert world.scriptorium("uninstall", "claude-code").returncode == 0
        for _ in range(RUNS):
            for kind in ("bare", "first", "later"):
                if kind == "first":
                    assert world.scriptorium("install", "claude-code").returncode == 0
                    end_warm(world.state)
                wall, _done, cpu = timed_client(argv, world, env)
                walls[kind].append(wall)
                cpus[kind].append(cpu)
                if kind == "first":  # its write jobs must not load the later run; its warm process stays
                    from scriptorium.core.agents.recall_server import pid

                    wait_for_jobs(root, keep=pid(world.state))
            assert world.scriptorium("uninstall", "claude-code").returncode == 0
            end_warm(world.state)
            wait_for_jobs(root)  # the detached write jobs must not load the next run
    wall = {k: statistics.median(v) for k, v in walls.items()}
    cpu = {k: statistics.median(v) for k, v in cpus.items()}
    return {"runs": RUNS, "without_s": round(wall["bare"], 3), "with_s": round(wall["first"], 3),
            "delta_s": round(wall["first"] - wall["bare"], 3), "with_warm_s": round(wall["later"], 3),
            "delta_warm_s": round(wall["later"] - wall["bare"], 3),
            "cpu_without_s": round(cpu["bare"], 3), "cpu_with_s": round(cpu["first"], 3),
            "cpu_delta_s": round(cpu["first"] - cpu["bare"], 3), "cpu_delta_warm_s": round(cpu["later"] - cpu["bare"], 3),
            "load": round(os.getloadavg()[0], 1)}


def end_warm(state: Path) -> None:
    """End the state's warm recall process (and a spare one waiting for its lock), by its pid."""
    import signal

    from scriptorium.core.agents.recall_server import pid

    quiet = 0
    while quiet < 3:
        process = pid(state)
        if process is None:
            quiet += 1
        else:
            os.kill(process, signal.SIGTERM)
            quiet = 0
        time.sleep(0.1)


def wait_for_jobs(root: Path, timeout: float = 180, keep: int | None = None) -> None:
    """Until no process runs with `root` on its command line (the detached write jobs), but
    this one and `keep` (a warm recall process left up)."""
    deadline = time.time() + timeout
    mine = {str(os.getpid()), str(keep)}
    while time.time() < deadline:
        busy = False
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                busy = cmdline.parent.name not in mine and str(root).encode() in cmdline.read_bytes()
            except OSError:
                continue
            if busy:
                break
        if not busy:
            return
        time.sleep(0.5)


def main() -> int:
    clients = install_clients()
    if isinstance(clients, str):
        print(f"skipped: {clients}")
        print(json.dumps({"skipped": clients}))
        return 0
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="agents-real-", ignore_cleanup_errors=True) as tmp:
        for name, runner in (("claude-code", lambda r: claude_code(clients["claude"], r)),
                             ("codex", lambda r: codex(clients["codex"], r)), ("pi", lambda r: pi(clients["pi"], r))):
            results[name] = runner(Path(tmp) / name)
        for name in results:
            end_warm(Path(tmp) / name / "state")
        wait_for_jobs(Path(tmp))
        cost = claude_cost(clients["claude"], Path(tmp) / "cost")
        wait_for_jobs(Path(tmp))
    failed = []
    for name, result in results.items():
        checks = {k: v for k, v in result.items() if isinstance(v, bool)}
        print(f"{name} ({result['client']}): exit {result['exit']}, {result['wall_s']} s")
        for check, ok in checks.items():
            print(f"  {'PASS' if ok else 'FAIL'}  {check}")
            if not ok:
                failed.append(f"{name}.{check}")
        if "hooks_ran" in result:
            print(f"  hooks Codex ran: {', '.join(result['hooks_ran'])}")
        if "stderr" in result:
            print(f"  stderr: {result['stderr']}")
    print(f"claude -p, one prompt, median of {cost['runs']}: without {cost['without_s']:.3f} s, "
          f"with Scriptorium {cost['with_s']:.3f} s as the first session (no warm recall process yet), "
          f"difference {cost['delta_s']:+.3f} s, {cost['with_warm_s']:.3f} s as a later one "
          f"({cost['delta_warm_s']:+.3f} s) (target <= +0.5 s); CPU (the client, its hooks and MCP server) "
          f"{cost['cpu_without_s']:.3f} -> {cost['cpu_with_s']:.3f} s, {cost['cpu_delta_s']:+.3f} s "
          f"(later: {cost['cpu_delta_warm_s']:+.3f} s); load average {cost['load']}")
    print(f"{sum(1 for r in results.values() for v in r.values() if v is True)} passed, {len(failed)} failed")
    print(json.dumps({"failed": failed, "claude_p": cost,
                      "clients": {name: r["client"] for name, r in results.items()}}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
