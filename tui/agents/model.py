"""What the Agents screen shows: the doctor's facts, the last session start's injection, the
last recalls with their hits, and the plans that install / uninstall an agent — all read
through `scriptorium.core.agents`. No Textual here; loading runs in a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scriptorium.core.agents.doctor import Report
    from scriptorium.core.agents.install import Plan

RECALLS_SHOWN = 5
START_EVENTS = ("session-start", "before-agent-start")
RECALL_EVENTS = ("user-prompt-submit", "before-agent-start")


@dataclass(frozen=True)
class Injection:
    agent: str
    time: float
    text: str  # untrusted: memory quotes conversations
    tokens: int | None
    reason: str  # "injected", "off", "empty", ... as the hook logged it


@dataclass(frozen=True)
class RecallHit:
    block_id: str
    path: str
    score: float


@dataclass(frozen=True)
class Recall:
    agent: str
    event: str
    time: float
    reason: str
    hits: list[RecallHit]


@dataclass
class AgentsView:
    report: Report
    injections: dict[str, Injection] = field(default_factory=dict)  # agent -> its last session start
    recalls: dict[str, list[Recall]] = field(default_factory=dict)  # agent -> its last recalls, newest first


def load_agents(state_dir: Path) -> AgentsView:
    from scriptorium.core.agents import hook_log
    from scriptorium.core.agents.doctor import diagnose

    view = AgentsView(diagnose(state_dir))
    for call in hook_log.recent(state_dir):  # newest first
        detail = call.detail or {}
        if call.agent not in view.injections and call.event in START_EVENTS and "injected" in detail:
            tokens = detail.get("tokens")
            view.injections[call.agent] = Injection(call.agent, call.time, str(detail.get("text") or ""),
                                                    tokens if isinstance(tokens, int) else None,
                                                    str(detail.get("injected")))
        recalls = view.recalls.setdefault(call.agent, [])
        if len(recalls) < RECALLS_SHOWN and call.event in RECALL_EVENTS and "recall" in detail:
            recalls.append(Recall(call.agent, call.event, call.time, str(detail.get("recall")), _hits(detail)))
    return view


def _hits(detail: dict[str, Any]) -> list[RecallHit]:
    hits = detail.get("hits")
    out = []
    for hit in hits if isinstance(hits, list) else []:
        if isinstance(hit, dict):
            score = hit.get("score")
            out.append(RecallHit(str(hit.get("block_id", "")), str(hit.get("path", "")),
                                 float(score) if isinstance(score, (int, float)) else 0.0))
    return out


class ChangeRefused(Exception):
    """Install / uninstall cannot go ahead: a file it must not touch, or one it cannot write."""


class DemoState(ChangeRefused):
    """Install was pointed at a demo state: the agent's real sessions would go into the demo's
    memory (and the demo's into the agent). The screen asks; `force=True` plans it anyway."""


def plan_change(state_dir: Path, agent: str, action: str, scope: str = "user", *, force: bool = False) -> Plan:
    """What install / uninstall would write (nothing is written yet)."""
    from scriptorium.core.agents import install
    from scriptorium.core.agents.config_json import ConfigError

    try:
        return install.plan(install.make_target(agent, scope, state_dir), action, force=force)
    except install.DemoStateError as exc:
        raise DemoState(str(exc)) from exc
    except (ConfigError, OSError) as exc:
        raise ChangeRefused(str(exc)) from exc


def apply_plan(plan: Plan) -> None:
    from scriptorium.core.agents import install

    try:
        install.apply(plan)
    except OSError as exc:
        raise ChangeRefused(f"cannot write {exc.filename or 'the configuration'}: {exc.strerror}") from exc


def short_path(path: str) -> str:
    """`~/…` for paths under the home directory, `./…` under the current one."""
    for base, short in sorted(((str(Path.home()), "~/"), (str(Path.cwd()), "./")), key=lambda b: -len(b[0])):
        if path.startswith(base + "/"):
            return short + path[len(base) + 1:]
    return path
