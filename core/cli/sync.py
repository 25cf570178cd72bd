"""`scriptorium remote add|list|remove`, `sync [NAME]`, `conflicts`, `resolve BLOCK_ID`.

Memory travels through ordinary git remotes (DESIGN §17). `sync` exits 0 when memory is in
step with the remote (merged, pushed or already the same), 75 when it will heal by itself
(the remote is unreachable, memory is busy, the remote kept moving), 1 when what arrived
was refused (the diagnostics say why; nothing changed here). Conflicts are not failures:
both texts are kept, `conflicts` lists them and `resolve` settles one.
"""

from __future__ import annotations

import argparse
import sys

from ..sanitize import sanitize_line
from .common import CliContext, CliError, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("remote")
    rsub = p.add_subparsers(dest="remote_command", metavar="ACTION", required=True)
    a = rsub.add_parser("add", help="add a remote (any git URL or path; a bare repository works)")
    a.add_argument("name", metavar="NAME")
    a.add_argument("url", metavar="URL")
    add_json_flag(a)
    a.set_defaults(func=cmd_remote_add)
    ls = rsub.add_parser("list", help="list remotes with ahead/behind and the last sync")
    add_json_flag(ls)
    ls.set_defaults(func=cmd_remote_list)
    rm = rsub.add_parser("remove", help="forget a remote (nothing on it is touched)")
    rm.add_argument("name", metavar="NAME")
    add_json_flag(rm)
    rm.set_defaults(func=cmd_remote_remove)

    s = sub.add_parser("sync")
    s.add_argument("name", metavar="NAME", nargs="?", help="the remote (default: the only one, or origin)")
    add_json_flag(s)
    s.set_defaults(func=cmd_sync)

    c = sub.add_parser("conflicts")
    add_json_flag(c)
    c.set_defaults(func=cmd_conflicts)

    r = sub.add_parser("resolve")
    r.add_argument("block_id", metavar="BLOCK_ID", help="the local block of the conflict")
    how = r.add_mutually_exclusive_group(required=True)
    how.add_argument("--keep", choices=("local", "incoming", "both"), help="which text stays")
    how.add_argument("--text", help="replace both with this text (the local block's citations stay)")
    add_json_flag(r)
    r.set_defaults(func=cmd_resolve)


def _root(ctx: CliContext):
    from ..memory.workspace import Workspace

    return Workspace.open(ctx.state_dir).root


def _fail(message: str, as_json: bool, code: str = "REMOTE_ERROR", exit_code: int = 1) -> int:
    if as_json:
        emit_json({"outcome": "permanent" if exit_code == 1 else "retryable", "code": code, "message": message})
    print(f"scriptorium: {sanitize_line(message)}", file=sys.stderr)
    return exit_code


def cmd_remote_add(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sync.remote import RemoteError, add_remote

    try:
        remote = add_remote(_root(ctx), args.name, args.url)
    except RemoteError as e:
        return _fail(str(e), args.json, e.code)
    if args.json:
        emit_json(remote.to_json())
    else:
        print(f"added remote {remote.name}: {sanitize_line(remote.url)}")
    return 0


def cmd_remote_list(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sync.status import sync_status

    status = sync_status(ctx.state_dir)
    if args.json:
        emit_json(status.to_json())
        return 0
    if not status.remotes:
        print("no remotes (scriptorium remote add NAME URL)")
    for r in status.remotes:
        where = "never fetched" if r.ahead is None else f"{r.ahead} ahead, {r.behind} behind"
        print(f"{r.name}\t{sanitize_line(r.url)}\t{where}")
    if status.last:
        print(f"last sync: {status.last.get('at', '?')} {status.last.get('remote')}: "
              f"{status.last.get('outcome')} ({sanitize_line(str(status.last.get('message', '')))})")
    return 0


def cmd_remote_remove(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sync.remote import RemoteError, remove_remote

    try:
        remove_remote(_root(ctx), args.name)
    except RemoteError as e:
        return _fail(str(e), args.json)
    if args.json:
        emit_json({"removed": args.name})
    else:
        print(f"removed remote {args.name}")
    return 0


def cmd_sync(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sync.run import sync

    result = sync(ctx.state_dir, args.name)
    if args.json:
        emit_json(result.to_json())
    elif result.outcome == "ok":
        print(sanitize_line(result.message))
        for c in result.conflicts:
            print(f"conflict ^{c['block_id']} in topics/{sanitize_line(c['topic'])}: scriptorium resolve "
                  f"{c['block_id']} --keep local|incoming|both")
        for line in result.reports:
            print(sanitize_line(line))
    if result.outcome != "ok":
        print(f"scriptorium: {sanitize_line(result.message)}", file=sys.stderr)
        for d in result.diagnostics[:5]:
            print(f"  {sanitize_line(str(d.get('file')))}: {sanitize_line(str(d.get('message')))}", file=sys.stderr)
    return result.exit_code


def cmd_conflicts(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sync.conflicts import list_conflicts

    found = list_conflicts(ctx.state_dir)
    if args.json:
        emit_json({"conflicts": [c.to_json() for c in found]})
        return 0
    if not found:
        print("no conflicts")
    for c in found:
        print(f"^{c.block_id} topics/{sanitize_line(c.topic)} (from {sanitize_line(c.remote)})")
        print(f"  local:    {sanitize_line(c.local)}")
        print(f"  incoming: {sanitize_line(c.incoming)}")
    return 0


def cmd_resolve(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sync.conflicts import resolve_conflict
    from .topic import report

    try:  # a WorkspaceError (a busy lock: 75) reaches cli.main
        result = resolve_conflict(ctx.state_dir, args.block_id, keep=args.keep, text=args.text)
    except LookupError as e:
        raise CliError(str(e)) from e
    return report(result, args.json)
