"""`scriptorium watch [--finish] [--sleep] [--import KIND [PATH ...]]`: a long-running
process with duties.

A duty is anything with `name`, `start()` (returns at once, work happens in its own
threads) and `stop()` (waits for its threads). `build_duties` is the one place that
turns options into duties: live import, finishing idle sessions (watch/idle.py)
and the nightly sleep (watch/scheduler.py). SIGINT and SIGTERM stop every duty, newest first, and
the command exits 0.
"""

from __future__ import annotations

import argparse
import functools
import json
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..importers import KINDS
from ..sanitize import sanitize_line
from .common import CliContext, CliError, add_json_flag

if TYPE_CHECKING:
    from ..importers.run import ImportReport


class Duty(Protocol):
    name: str

    def start(self) -> None: ...

    def stop(self) -> None: ...


Emit = Callable[[dict[str, Any]], None]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch",
                       description="Run until interrupted (Ctrl-C / SIGTERM). By default it finishes sessions once "
                                   "idle and runs the nightly sleep; --import KIND also follows an agent's transcripts.")
    p.add_argument("--import", dest="import_kinds", action="append", choices=KINDS, default=[], metavar="KIND",
                   help=f"follow an agent's transcripts and import new turns as they are written ({', '.join(KINDS)}); "
                        "repeatable")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="files or directories to follow (only with a single --import; default: the agent's own store)")
    p.add_argument("--finish", action=argparse.BooleanOptionalAction, default=True,
                   help="write sessions into memory once idle for --idle minutes (default: on)")
    p.add_argument("--sleep", action=argparse.BooleanOptionalAction, default=True,
                   help="reorganize memory every night at --sleep-at (default: on)")
    p.add_argument("--idle", type=float, metavar="MINUTES", help="idle time before a session is finished "
                                                                   "(default: config watch.idle_minutes, else 30)")
    p.add_argument("--scan", type=float, metavar="SECONDS", help="periodic full scan, a fallback to file "
                                                                  "notifications (default: config watch.scan_seconds, else 300)")
    p.add_argument("--sync", action=argparse.BooleanOptionalAction, default=True,
                   help="sync memory with its remote every --sync-every minutes, when one is set (default: on)")
    p.add_argument("--sync-every", type=float, metavar="MINUTES",
                   help="minutes between syncs (default: config sync.interval_minutes, else 15)")
    p.add_argument("--sleep-at", default="03:00", metavar="HH:MM", help="local time of the nightly sleep (default 03:00)")
    p.add_argument("--model", metavar="M", help="litellm model for writing and sleep (default as for write)")
    add_json_flag(p)
    p.set_defaults(func=cmd_watch)


def build_duties(args: argparse.Namespace, ctx: CliContext, emit: Emit) -> list[Duty]:
    from ..watch.follow import ImportFollower

    if args.paths and len(args.import_kinds) != 1:
        raise CliError("PATH arguments need exactly one --import KIND", 2)
    duties: list[Duty] = []
    for kind in args.import_kinds:
        duties.append(ImportFollower(ctx.state_dir, kind, args.paths or None,
                                     on_report=functools.partial(_report, emit, kind),
                                     on_error=functools.partial(_import_error, emit, kind)))
    if args.finish or args.sleep or args.sync:
        from ..watch.duties import memory_duties

        try:
            duties += memory_duties(ctx.state_dir, emit, finish_idle=args.finish, nightly_sleep=args.sleep,
                                    idle_minutes=args.idle, scan_seconds=args.scan, sleep_at=args.sleep_at,
                                    model=args.model, sync_remote=args.sync, sync_minutes=args.sync_every)
        except ValueError as exc:
            raise CliError(str(exc), 2) from exc
    return duties


def cmd_watch(args: argparse.Namespace, ctx: CliContext) -> int:
    emit = _emitter(args.json)
    duties = build_duties(args, ctx, emit)
    if not duties:
        raise CliError("nothing to watch: --no-finish and --no-sleep leave no duty; add --import KIND", 2)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    started: list[Duty] = []
    try:
        for duty in duties:
            try:
                duty.start()
            except FileNotFoundError as exc:
                raise CliError(str(exc)) from exc
            started.append(duty)
        emit({"event": "started", "duties": [d.name for d in started]})
        while not stop.wait(0.5):
            pass
    finally:
        for duty in reversed(started):
            duty.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    emit({"event": "stopped"})
    return 0


def _import_error(emit: Emit, kind: str, error: BaseException) -> None:
    emit({"event": "error", "duty": f"import {kind}", "message": str(error)})


def _report(emit: Emit, kind: str, report: ImportReport) -> None:
    doc = report.to_json()
    if doc["nodes_added"] or doc["sessions_created"] or doc["errors"]:
        emit({"event": "import", **doc})


def _emitter(as_json: bool) -> Emit:
    lock = threading.Lock()

    def emit(doc: dict[str, Any]) -> None:
        with lock:
            if as_json:
                sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
            else:
                sys.stdout.write(_line(doc) + "\n")
            sys.stdout.flush()

    return emit


def _line(doc: dict[str, Any]) -> str:
    """One plain-text line per event (no markup: reasons and ids come from transcripts)."""
    event = doc["event"]
    if event == "import":
        return (f"{doc['kind']}: {doc['nodes_added']} node(s) added to "
                f"{', '.join(sanitize_line(s) for s in doc['session_ids']) or 'no session'}"
                + (f"; {len(doc['errors'])} error(s)" if doc["errors"] else ""))
    if event == "error":
        return f"error in {doc['duty']}: {sanitize_line(doc['message'])}"
    if event in ("finish", "sleep", "sync"):
        from ..watch.duties import describe

        return describe(doc)
    if event == "started":
        return f"watching ({', '.join(doc['duties'])}); Ctrl-C to stop"
    return "stopped"
