"""`scriptorium sleep [--preview]`: reorganize memory now (or show the diff only)."""

from __future__ import annotations

import argparse

from ..sanitize import sanitize, sanitize_line
from .common import CliContext, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sleep")
    p.add_argument("--preview", action="store_true", help="show the diff, install nothing")
    p.add_argument("--due", action="store_true", help="only say whether sleep is due, and why")
    p.add_argument("--model", metavar="M", help="litellm model name (default as for write)")
    add_json_flag(p)
    p.set_defaults(func=cmd_sleep)


def cmd_sleep(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..writer import sleep, sleep_due

    if args.due:
        due = sleep_due(ctx.paths)
        doc = {"due": due.due, "reason": due.reason, "explanation": due.explain(), "local_batches": due.local_batches,
               "local_tokens": due.local_tokens, "write_commits_since_global": due.write_commits_since_global,
               "last_global_at": due.last_global_at}
        if args.json:
            emit_json(doc)
        else:
            print(("due: " if due.due else "") + due.explain())
        return 0
    result = sleep(ctx.state_dir, preview=args.preview, model=args.model)
    if args.json:
        emit_json(result.to_json())
    else:
        print(f"{result.outcome} ({result.code}): {sanitize_line(result.message)}")
        for path in result.changed_files:
            print(f"  {sanitize_line(path)}")
        if result.diff:
            diff = sanitize(result.diff)  # topics quote conversations: no terminal escapes
            print(diff, end="" if diff.endswith("\n") else "\n")
    return result.exit_code
