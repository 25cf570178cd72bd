"""`scriptorium topic save|retire`: a human's edit of memory, through the transaction.

Exit codes: 0 installed, 1 rejected (diagnostics printed) or not a topic path, 2 a
topic name that cannot be shown or stored (a control character, not UTF-8: a usage
error, refused before anything is read or written), 75 the workspace lock is busy
(retry later).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..outcome import EXIT_USAGE
from ..sanitize import sanitize_line
from .common import CliContext, CliError, add_json_flag, emit_json, nonempty

if TYPE_CHECKING:
    from ..memory import TransactionResult

def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("topic")
    ts = p.add_subparsers(dest="topic_command", metavar="ACTION", required=True)

    save = ts.add_parser("save", help="replace a topic's text (a new path creates the topic)")
    save.add_argument("topic", help="path under topics/, e.g. people/ada.md (core.md is the canonical core)")
    save.add_argument("--from", dest="source", required=True, metavar="FILE", help="the new text ('-' reads stdin)")
    add_json_flag(save)
    save.set_defaults(func=cmd_save)

    retire = ts.add_parser("retire", help="take a block out of memory, recording why")
    retire.add_argument("topic", help="path under topics/ holding the block")
    retire.add_argument("block_id")
    retire.add_argument("--reason", required=True, type=nonempty, help="why the block leaves (recorded in the audit log)")
    add_json_flag(retire)
    retire.set_defaults(func=cmd_retire)


def report(result: TransactionResult, as_json: bool) -> int:

    if as_json:
        emit_json(result.to_json())
    elif result.outcome == "installed":
        print(f"installed {result.commit or '(no change)'}")
        for path in result.changed_files:
            print(f"  {sanitize_line(path)}")
        if result.redactions:
            print(f"redacted {sum(result.redactions.values())} secret(s): "
                  + ", ".join(f"{kind} {n}" for kind, n in result.redactions.items()))
    else:
        print("rejected:")
        for d in result.diagnostics:  # messages quote topic text: never raw to the terminal
            where = f"{d.file}:{d.line}" if d.line else (d.file or "workspace")
            block = f" ^{d.block_id}" if d.block_id else ""
            print("  " + sanitize_line(f"{where}: [{d.rule}]{block} {d.message}"))
            print("    fix: " + sanitize_line(d.hint))
    if not as_json:
        for skipped in result.skipped:  # left alone, never changed: said so the person can rename them
            print(f"skipped {sanitize_line(str(skipped))}")
    return 0 if result.outcome == "installed" else 1


def checked_name(topic: str) -> None:
    """Refuse a path that is no topic's before anything is read or written (exit 1, as
    always), and an unsafe name as the usage error it is (exit 2)."""
    from ..memory import TopicNameError, topic_rel

    try:
        topic_rel(topic)
    except TopicNameError as exc:
        raise CliError(str(exc), EXIT_USAGE, exc.code) from None


def cmd_save(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import Workspace, save_topic

    checked_name(args.topic)
    try:
        data = sys.stdin.buffer.read() if args.source == "-" else Path(args.source).read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {args.source}: {exc.strerror}") from exc
    ws = Workspace.open(ctx.state_dir)
    return report(save_topic(ws, args.topic, data), args.json)  # a busy lock ends with 75 (cli.main)


def cmd_retire(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import Workspace, retire_block

    checked_name(args.topic)
    ws = Workspace.open(ctx.state_dir)
    return report(retire_block(ws, args.topic, args.block_id, args.reason), args.json)
