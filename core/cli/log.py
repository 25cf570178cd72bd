"""`scriptorium log`: the memory workspace's audit records, newest first."""

from __future__ import annotations

import argparse

from ..sanitize import sanitize_line
from .common import CliContext, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("log", help="installed memory transactions, newest first")
    p.add_argument("--limit", type=int, metavar="N", help="only the newest N records")
    add_json_flag(p)
    p.set_defaults(func=cmd_log)


def cmd_log(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import Workspace

    records = Workspace(ctx.state_dir).audit_log()
    if args.limit is not None:
        records = records[: max(args.limit, 0)]
    if args.json:
        emit_json(records)
        return 0
    for r in records:
        commit = (r.get("commit") or "-")[:8]
        files = len(r.get("changed_files") or [])
        print(f"{r.get('at', '?')}  {r.get('kind', '?'):7}  {commit:8}  {sanitize_line(str(r.get('summary', '')))}  ({files} files)")
    return 0
