"""`scriptorium doctor`: is memory wired into the agents, and is it working?

For each agent: whether its configuration holds our hooks and MCP server (user and project
scope, and where), the last hook call of each kind with its outcome and time, recent hook
errors (from the hook log). For the installation: whether the state directory, git and
the writer's model are usable, and (`validate`) whether memory validates as a whole —
every topic parsing, ids unique, links and citations resolving (memory/check.py, what a
purge checks too). Healthy means all of them are, no install is half done, and no kind
of hook call failed the last time it ran.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import hook_log
from ..paths import StatePaths
from .hook_log import HookCall
from .config_json import ConfigError
from .install import AGENTS, SCOPES, Status, make_target, status

if TYPE_CHECKING:
    from ..memory.names import Skipped

RECENT_ERRORS = 5
LOG_WINDOW = 500
SHOWN_PROBLEMS = 10


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    facts: dict[str, Any] = field(default_factory=dict)  # the model check's probe: answered_by, latency_s, ...

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail, **self.facts}


@dataclass
class AgentReport:
    agent: str
    scopes: list[Status]
    last_calls: dict[str, HookCall]  # event -> its newest call
    errors: list[HookCall]  # newest first
    untrusted: list[str] = field(default_factory=list)  # Codex: our hook events it will not run until trusted

    @property
    def installed(self) -> bool:
        return any(s.installed for s in self.scopes)

    @property
    def partial(self) -> bool:
        return any(s.partial for s in self.scopes)

    @property
    def failing(self) -> list[str]:
        return [event for event, call in self.last_calls.items() if call.outcome == "error"]

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "installed": self.installed, "partial": self.partial,
            "scopes": [s.to_json() for s in self.scopes],
            "last_calls": {event: call.to_json() for event, call in self.last_calls.items()},
            "errors": [call.to_json() for call in self.errors],
            **({"untrusted_hooks": self.untrusted} if self.untrusted else {}),
        }


@dataclass
class Report:
    state_dir: Path
    checks: list[Check]
    agents: list[AgentReport]
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # not unhealthy, but a person should act (skipped topic files)

    @property
    def healthy(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"healthy": self.healthy, "problems": self.problems, "state_dir": str(self.state_dir),
                "checks": [c.to_json() for c in self.checks], "agents": [a.to_json() for a in self.agents],
                **({"warnings": self.warnings} if self.warnings else {})}


def diagnose(state_dir: Path, *, home: Path | None = None, project: Path | None = None,
             command: str | None = None, check_model: bool = True, call_model: bool = False,
             validate: bool = False, warm: bool = False) -> Report:
    """`call_model`: the model check sends one tiny request through the configured model;
    `validate`: every topic and archive is read; `warm`: the warm recall process is reported
    (`doctor` does all three; the TUI, which diagnoses on every visit, none)."""
    state_dir = Path(state_dir)
    checks = [check_state(state_dir), check_git()]
    if validate and checks[0].ok:
        checks.append(check_memory(state_dir))
    if check_model:
        checks.append(check_model_usable(state_dir, call=call_model))
    calls = hook_log.recent(state_dir, LOG_WINDOW)
    if warm:
        checks.append(check_warm_recall(state_dir, calls))
    skipped = skipped_topics(state_dir)
    agents = [agent_report(agent, state_dir, calls, home=home, project=project, command=command) for agent in AGENTS]
    report = Report(state_dir, checks, agents, warnings=[str(s) for s in skipped])
    report.problems += [f"{c.name}: {c.detail}" for c in checks if not c.ok]
    for a in agents:
        if a.partial:
            where = ", ".join(w for s in a.scopes if s.partial for w in s.where)
            report.problems.append(f"{a.agent}: only partly installed ({where}); run `scriptorium install {a.agent}`")
        for scope in a.scopes:
            for path, other in scope.elsewhere.items():
                report.problems.append(f"{a.agent}: {path} points at another state ({other}), not {state_dir}; "
                                       f"run `scriptorium --state {state_dir} install {a.agent}` to point it here")
        if a.untrusted:
            from .codex_trust import TRUST_HOWTO

            report.problems.append(f"{a.agent}: Codex has not trusted {len(a.untrusted)} of our hooks "
                                   f"({', '.join(a.untrusted)}), so it skips them; {TRUST_HOWTO}, or run "
                                   f"`scriptorium install {a.agent}` again")
        for event in a.failing:
            report.problems.append(f"{a.agent}: the last {event} hook failed: {a.last_calls[event].error or 'error'}")
    return report


def agent_report(agent: str, state_dir: Path, calls: list[HookCall], *, home: Path | None = None,
                 project: Path | None = None, command: str | None = None) -> AgentReport:
    scopes = [status(make_target(agent, scope, state_dir, home=home, project=project, command=command or "scriptorium"))
              for scope in SCOPES]
    mine = [c for c in calls if c.agent == agent]
    last: dict[str, HookCall] = {}
    for call in mine:  # newest first
        last.setdefault(call.event, call)
    errors = [c for c in mine if c.outcome == "error"][:RECENT_ERRORS]
    untrusted: list[str] = []
    if agent == "codex":
        from .install_codex import untrusted_hooks

        for scope in (s for s in scopes if s.where):
            target = make_target(agent, scope.scope, state_dir, home=home, project=project, command=command or "scriptorium")
            try:
                untrusted += [hook.key.rsplit(":", 3)[1] for hook in untrusted_hooks(target)]
            except ConfigError:
                pass
    return AgentReport(agent, scopes, last, errors, untrusted)


def check_state(state_dir: Path) -> Check:
    if not state_dir.exists():
        return Check("state", True, f"{state_dir} (not created yet: the first import or hook creates it)")
    if not state_dir.is_dir():
        return Check("state", False, f"{state_dir} is not a directory")
    if not os.access(state_dir, os.R_OK | os.W_OK | os.X_OK):
        return Check("state", False, f"{state_dir} is not readable and writable")
    paths = StatePaths(state_dir)
    memory = paths.memory
    if memory.exists():
        runtime = paths.runtime
        if runtime.exists() and not os.access(runtime, os.W_OK):
            return Check("state", False, f"{runtime} is not writable")
        if not paths.memory_git.exists():
            return Check("state", False, f"{memory} is not a git repository (a damaged state directory?)")
    return Check("state", True, str(state_dir))


def check_warm_recall(state_dir: Path, calls: list[HookCall]) -> Check:
    """The warm recall process (recall_server.py): which one serves this state, if one runs, and
    how the last recall went. None running is no problem: a session start starts one."""
    from .recall_server import idle_seconds, pid

    last = next((c.detail["recall_via"] for c in calls if "recall_via" in c.detail), None)
    facts: dict[str, Any] = {"warm_pid": None, "last_recall_via": last}
    said = f"; the last recall: {last}" if last else ""
    idle = idle_seconds(state_dir)
    if idle <= 0:
        return Check("recall", True, "no warm process ([recall] warm_minutes = 0): each prompt recalls in its hook"
                     + said, facts)
    facts["idle_minutes"] = round(idle / 60, 2)
    process = pid(state_dir)
    if process is None:
        return Check("recall", True, f"no warm process running (the next session start starts one){said}", facts)
    facts["warm_pid"] = process
    return Check("recall", True, f"warm process {process} serves this state (it ends after {idle / 60:g} idle "
                                 f"minutes){said}", facts)


def check_memory(state_dir: Path) -> Check:
    """The workspace as a whole validates: what a transaction checks of what it installs,
    checked of everything there (a hand edit, an interrupted install, a purge gone wrong)."""
    from ..memory.check import edits_in_progress, workspace_problems

    if not StatePaths(state_dir).memory_git.is_dir():
        return Check("memory", True, "no memory yet")
    edits = edits_in_progress(state_dir)
    problems = workspace_problems(state_dir, edits_in_progress=edits)
    if not problems:
        pending = (f"; edits in progress, not saved yet (checked when saved: `scriptorium topic save` or "
                   f"ctrl+s in the app): {', '.join(edits[:SHOWN_PROBLEMS])}" if edits else "")
        return Check("memory", True, "validates: every topic parses, ids are unique, links and citations resolve"
                     + pending, {"edits_in_progress": edits} if edits else {})
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    more = f"; and {len(problems) - SHOWN_PROBLEMS} more" if len(problems) > SHOWN_PROBLEMS else ""
    return Check("memory", False, f"{len(problems)} problem(s): {shown}{more}", {"problems": problems})


def skipped_topics(state_dir: Path) -> list[Skipped]:
    """The `.md` files memory leaves out for their names (names.py): warnings, not problems —
    memory works without them, but a person meant them to be topics and can rename them."""
    from ..memory.names import list_topic_files
    from ..paths import StatePaths

    topics = StatePaths(state_dir).topics
    return list_topic_files(topics).skipped if topics.is_dir() else []


def check_git() -> Check:
    exe = shutil.which("git")
    if exe is None:
        return Check("git", False, "git is not on PATH (memory is a git repository)")
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return Check("git", False, f"{exe} does not run: {exc}")
    if done.returncode != 0:
        return Check("git", False, f"{exe} --version failed")
    return Check("git", True, done.stdout.strip())


# Where the usual providers read their key (litellm's own names); anything else is reported unverified.
_PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY",), "anthropic": ("ANTHROPIC_API_KEY",), "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",), "groq": ("GROQ_API_KEY",), "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",), "ollama": (), "ollama_chat": (),
}
_BARE_PREFIXES = {"gpt-": "openai", "o1": "openai", "o3": "openai", "o4": "openai", "claude-": "anthropic"}


def check_model_usable(state_dir: Path, *, call: bool = False) -> Check:
    """The writer's model: the offline one always works; any other needs litellm installed and
    a key where its provider reads one (`[model] api_key_env` when set; none asked of a server
    at `[model] api_base`). Checked without importing litellm (seconds, and the TUI shows this
    too); with `call`, one tiny request then says what answered (`core/writer/probe.py`)."""
    from ..writer.model import OFFLINE_MODEL, model_endpoint, resolve_model

    try:
        model = resolve_model(state_dir)
        endpoint = model_endpoint(state_dir)
    except Exception as exc:  # an unreadable config.toml
        return Check("model", False, f"cannot read the model setting: {exc}")
    if model == OFFLINE_MODEL:
        return Check("model", True, f"{model} (no language model configured: memory is written offline)")
    if model.split("/", 1)[0] == "scriptorium":
        return Check("model", True, model)
    if importlib.util.find_spec("litellm") is None:
        return Check("model", False, f"{model} needs litellm, which is not installed: "
                                      "pip install 'scriptorium-memory[models]'")
    missing = _missing_key(model, endpoint.api_key_env, endpoint.api_base)
    if missing:
        return Check("model", False, f"{model}: {missing}")
    if not call:
        return Check("model", True, model)
    from ..writer.probe import probe_model

    probe = probe_model(state_dir, model)
    return Check("model", probe.ok, probe.detail, {k: v for k, v in probe.to_json().items() if k not in
                                                    ("ok", "detail")})


def _missing_key(model: str, key_env: str | None, api_base: str | None) -> str | None:
    """What key is missing for the model, if one is; None when it is there or not checkable."""
    if key_env:
        return None if os.environ.get(key_env) else f"{key_env} is not set ([model] api_key_env)"
    if api_base:
        return None  # a local server usually needs no key; one that does says so when called
    provider = model.split("/", 1)[0] if "/" in model else next(
        (p for prefix, p in _BARE_PREFIXES.items() if model.startswith(prefix)), None)
    keys = _PROVIDER_KEYS.get(provider or "")
    if keys and not any(os.environ.get(k) for k in keys):
        return f"{' or '.join(keys)} is not set"
    return None
