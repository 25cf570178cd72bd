"""`scriptorium session new|append|show|rewind|mark`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .common import CliContext, CliError, session_cli_error, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("session")
    ss = p.add_subparsers(dest="session_command", metavar="ACTION", required=True)

    new = ss.add_parser("new", help="create a session; prints its id")
    new.add_argument("--title", default="", help="session title")
    add_json_flag(new)
    new.set_defaults(func=cmd_new)

    app = ss.add_parser("append", help="append a turn; prints the new node id")
    app.add_argument("sid")
    app.add_argument("--role", required=True, choices=["user", "assistant", "tool", "system"])
    app.add_argument("--text", required=True, help="turn text ('-' reads stdin)")
    app.add_argument("--after", metavar="NODE", help="predecessor (default: the head)")
    app.add_argument("--meta", metavar="K=V", action="append", default=[], help="metadata; V parsed as JSON when it can be")
    add_json_flag(app)
    app.set_defaults(func=cmd_append)

    show = ss.add_parser("show", help="print a session with its tips and nodes")
    show.add_argument("sid")
    add_json_flag(show)
    show.set_defaults(func=cmd_show)

    rw = ss.add_parser("rewind", help="hide the head's turns back to NODE inclusive")
    rw.add_argument("sid")
    rw.add_argument("node")
    add_json_flag(rw)
    rw.set_defaults(func=cmd_rewind)

    mk = ss.add_parser("mark", help="mark nodes as written by this workspace (admin/repair)")
    mk.add_argument("sid")
    mk.add_argument("nodes", nargs="+", metavar="NODE")
    add_json_flag(mk)
    mk.set_defaults(func=cmd_mark)

    ls = ss.add_parser("list", help="list sessions, newest activity first")
    add_json_flag(ls)
    ls.set_defaults(func=cmd_list)


def parse_meta(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CliError(f"--meta expects K=V, got {pair!r}", 2)
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def cmd_new(args: argparse.Namespace, ctx: CliContext) -> int:
    sid = ctx.store.create_session(title=args.title)
    emit_json({"id": sid}) if args.json else print(sid)
    return 0


def cmd_append(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sessions.errors import SessionError
    text = sys.stdin.read() if args.text == "-" else args.text
    kwargs: dict[str, Any] = {"metadata": parse_meta(args.meta)}
    if args.after:
        kwargs["predecessor"] = args.after
    try:
        node = ctx.store.append(args.sid, args.role, text, **kwargs)
    except SessionError as exc:
        raise session_cli_error(exc) from exc
    emit_json({"id": node.id}) if args.json else print(node.id)
    return 0


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sessions.errors import SessionError
    store = ctx.store
    try:
        meta = store.meta(args.sid)
        nodes = store.nodes(args.sid)
        tips = store.list_branches(args.sid)
    except SessionError as exc:
        raise session_cli_error(exc) from exc
    doc = {
        "id": args.sid,
        "title": meta.get("title", ""),
        "head_id": meta.get("head_id"),
        "updated_at": meta.get("updated_at"),
        "tips": tips,
        "nodes": [
            {"id": n.id, "role": n.kind, "predecessor": n.predecessor, "metadata": n.metadata, "seq": n.seq,
             "caller": n.caller, "created_at": n.created_at, "text": n.text}
            for n in nodes if n.kind != "root"
        ],
    }
    if args.json:
        emit_json(doc)
    else:
        from ..sanitize import sanitize

        print(f"{args.sid}  {sanitize(doc['title'])}  head={doc['head_id']}  tips={len(tips)}")
        for n in doc["nodes"]:
            flag = " (rewound)" if n["metadata"].get("rewound") else ""
            first = sanitize(n["text"].strip().splitlines()[0] if n["text"].strip() else "")[:80]
            print(f"  {n['id']:<14} {n['role']:<9} {first}{flag}")
    return 0


def cmd_rewind(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sessions.errors import SessionError
    try:
        hidden = ctx.store.rewind(args.sid, args.node)
    except SessionError as exc:
        raise session_cli_error(exc) from exc
    if args.json:
        emit_json({"rewound": hidden, "head_id": ctx.store.head(args.sid)})
    else:
        print(f"rewound {len(hidden)} turn(s); head is now {ctx.store.head(args.sid)}")
    return 0


def cmd_mark(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..sessions.marker import mark_written, workspace_id
    from ..sessions.errors import SessionBusy, SessionError

    try:
        wid = workspace_id(ctx.state_dir)
        marked = mark_written(ctx.store, args.sid, args.nodes, wid)
    except SessionBusy:
        raise  # its own code (SESSION_BUSY) and exit 75: a stalled holder may yet let go
    except SessionError as exc:
        raise session_cli_error(exc) from exc
    emit_json({"marked": marked, "workspace": wid}) if args.json else print(f"marked {len(marked)} node(s) as written by {wid}")
    return 0


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    sessions, problems = ctx.store.list_sessions()
    if args.json:
        emit_json({"sessions": [s.as_dict() for s in sessions], "problems": [p.as_dict() for p in problems]})
        return 0
    from ..sanitize import sanitize

    for s in sessions:
        print(f"{s.id:<14} {s.node_count:>6} nodes  {sanitize(s.title)}")
    for p in problems:
        print(f"scriptorium: {p.message}", file=sys.stderr)
    return 0
