"""`scriptorium pending SID [--tip NODE]`: what the writer still owes, per live branch."""

from __future__ import annotations

import argparse

from .common import CliContext, CliError, session_cli_error, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pending")
    p.add_argument("sid")
    p.add_argument("--tip", metavar="NODE", help="only the branch ending at NODE")
    add_json_flag(p)
    p.set_defaults(func=cmd_pending)


def cmd_pending(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sessions.marker import BranchPending, counted_ids, pending, pending_branches
    from ..sessions.errors import SessionError

    store = ctx.store
    try:
        wid = counted_ids(ctx.state_dir)
        if args.tip:
            store.entry(args.sid, args.tip)
            branches = [BranchPending(args.tip, args.tip == store.head(args.sid), pending(store, args.sid, args.tip, wid))]
        else:
            branches = pending_branches(store, args.sid, wid)
    except SessionError as exc:
        raise session_cli_error(exc) from exc
    doc = {
        "session": args.sid,
        "branches": [
            {"tip": b.tip, "is_head": b.is_head,
             "pending": [{"id": t.id, "role": t.role, "tokens": t.tokens} for t in b.turns],
             "pending_tokens": b.tokens}
            for b in branches
        ],
    }
    store.save_index(args.sid)  # the counts just made, for the next command
    if args.json:
        emit_json(doc)
    else:
        for b in doc["branches"]:
            head = " (head)" if b["is_head"] else ""
            print(f"{b['tip']}{head}: {len(b['pending'])} pending turn(s), {b['pending_tokens']} tokens")
    return 0
