"""`scriptorium install|uninstall AGENT` and `scriptorium doctor`: Scriptorium inside agents.

install/uninstall exit 0 (done, or nothing to do), 1 (a configuration file we refuse to
touch: unparseable, or holding someone else's "scriptorium" entry). doctor exits 0 when
healthy, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys

from ..sanitize import sanitize_line
from .common import CliContext, CliError, add_json_flag, emit_json

AGENTS = ("claude-code", "codex", "pi")


def register(sub: argparse._SubParsersAction) -> None:
    for action in ("install", "uninstall"):
        p = sub.add_parser(action)
        p.add_argument("agent", choices=AGENTS)
        p.add_argument("--scope", choices=("user", "project"), default="user",
                       help="the user's configuration (default) or this project's (the current directory)")
        p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
        if action == "install":
            p.add_argument("--force", action="store_true", help="install even into the demo state")
            p.add_argument("--remember", choices=("ask", "allow"), default="ask",
                           help="may the agent's memory_remember tool run without asking you? (default: ask; "
                                "the read tools always run)")
        add_json_flag(p)
        p.set_defaults(func=cmd_wire, action=action)

    d = sub.add_parser("doctor", description="Checks the state directory, git, that memory validates (every "
                       "topic parses, ids unique, links and citations resolve) and the model, then each agent "
                       "memory can be wired into (Claude Code, Codex, pi): installed or not, and whether what "
                       "install put there is intact. The model check sends one tiny request through the "
                       "configured model (not the offline one) and says what answered. Exit 1 when something "
                       "needs a person.")
    d.add_argument("--no-model-call", action="store_true",
                   help="check the model's settings and key only, without sending it a request")
    add_json_flag(d)
    d.set_defaults(func=cmd_doctor)


def cmd_wire(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..agents import install
    from ..agents.config_json import ConfigError

    try:
        target = install.make_target(args.agent, args.scope, ctx.state_dir, remember=getattr(args, "remember", "ask"))
        plan = install.plan(target, args.action, force=getattr(args, "force", False))
        if not args.dry_run:
            install.apply(plan)
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    except OSError as exc:
        raise CliError(f"cannot write {getattr(exc, 'filename', '') or 'the configuration'}: {exc.strerror}") from exc
    if args.json:
        emit_json({**plan.to_json(), "dry_run": args.dry_run})
        return 0
    if args.dry_run:
        sys.stdout.write(plan.diff())
        print(f"dry run: {_summary(plan)}; nothing written")
        return 0
    print(_summary(plan))
    for note in plan.notes:
        print(f"  note: {note}")
    return 0


def _summary(plan) -> str:
    done = "installed" if plan.action == "install" else "uninstalled"
    if not plan.changed:
        state = "already installed" if plan.action == "install" else "not installed"
        return f"{plan.agent} ({plan.scope}): {state}, nothing to change"
    files = ", ".join(f"{c.kind} {c.path}" for c in plan.changes if c.kind != "unchanged")
    return f"{plan.agent} ({plan.scope}) {done}: {files}"


def cmd_doctor(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..agents.doctor import diagnose

    report = diagnose(ctx.state_dir, call_model=not args.no_model_call, validate=True, warm=True)
    if args.json:
        emit_json(report.to_json())
        return 0 if report.healthy else 1
    for check in report.checks:
        print(f"{check.name:<7}{'ok' if check.ok else 'FAIL':<6}{sanitize_line(check.detail)}")
    for agent in report.agents:
        where = "; ".join(f"{s.scope}: {', '.join(s.where)}" for s in agent.scopes if s.where)
        state = "installed" if agent.installed else ("partly installed" if agent.partial else "not installed")
        print(f"{agent.agent:<13}{state}" + (f" ({sanitize_line(where)})" if where else ""))
        for event, call in agent.last_calls.items():
            line = f"  {sanitize_line(event):<20}{sanitize_line(call.outcome):<8}{_when(call.time)}"
            if call.ms is not None:
                line += f"  {call.ms:.0f} ms"
            if call.error:
                line += f"  {sanitize_line(call.error)}"
            print(line)
        for call in agent.errors:
            if agent.last_calls.get(call.event) is not call:
                print(f"  earlier error: {sanitize_line(call.event)} {_when(call.time)}  {sanitize_line(call.error or '')}")
    for warning in report.warnings:
        print(f"warning: {sanitize_line(warning)}")
    if report.healthy:
        print("healthy")
        return 0
    print(f"{len(report.problems)} problem{'s' if len(report.problems) != 1 else ''}:")
    for problem in report.problems:
        print(f"  {sanitize_line(problem)}")
    return 1


def _when(epoch: float) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(epoch).astimezone().strftime("%Y-%m-%d %H:%M:%S")
