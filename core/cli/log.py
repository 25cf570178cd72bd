"""`scriptorium log`: the memory workspace's audit records, newest first; with `--block ID`,
the commits that created, edited, moved or removed one block (read from git through
`memory.log`, as the TUI's block inspector reads them). The audit log is read through
`read_consistent`: an install a crash left between its commit and its record is completed
(or read from a snapshot) first, so no installed transaction is missing from it."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..sanitize import sanitize_line
from .common import CliContext, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("log")
    p.add_argument("--limit", type=int, metavar="N", help="only the newest N records")
    p.add_argument("--block", metavar="BLOCK_ID", help="the commits that changed this block instead")
    add_json_flag(p)
    p.set_defaults(func=cmd_log)


def cmd_log(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import Workspace, read_consistent

    if args.block is not None:
        return _block_log(args, Workspace(ctx.state_dir).root)
    records = read_consistent(ctx.state_dir, lambda state: Workspace(state).audit_log())
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


def _block_log(args: argparse.Namespace, root: Path) -> int:
    from ..memory.log import block_history

    changes = block_history(root, args.block.removeprefix("^"))
    if args.limit is not None:
        changes = changes[: max(args.limit, 0)]
    if args.json:
        emit_json([change.to_json() for change in changes])
        return 0
    for c in changes:
        at = c.to_json()["at"]
        where = sanitize_line(c.path) if c.path else "-"
        print(f"{at}  {c.change:7}  {c.commit[:8]}  {where}  {sanitize_line(c.summary)}")
    return 0
