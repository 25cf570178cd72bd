"""`scriptorium migrate` (position cursors -> node marks) and `scriptorium backfill`
(uncited archived sources -> topics)."""

from __future__ import annotations

import argparse
from typing import Any

from ..outcome import EXIT_OK, EXIT_RETRYABLE
from ..sanitize import sanitize_line
from .common import CliContext, add_json_flag, emit_json
from .write import report


def register(sub: argparse._SubParsersAction) -> None:
    m = sub.add_parser("migrate")
    add_json_flag(m)
    m.set_defaults(func=cmd_migrate)

    b = sub.add_parser("backfill")
    b.add_argument("--model", metavar="M", help="litellm model name (default as for write)")
    add_json_flag(b)
    b.set_defaults(func=cmd_backfill)


def cmd_migrate(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import LockBusy
    from ..writer import migrate

    try:
        result = migrate(ctx.store)
    except LockBusy as exc:
        doc: dict[str, Any] = {"outcome": "failed", "message": str(exc), "cursors_removed": False, "sessions": [],
                               "failures": []}
        code = EXIT_RETRYABLE
    else:
        doc, code = result.to_json(), (EXIT_RETRYABLE if result.outcome == "failed" else EXIT_OK)
    if args.json:
        emit_json(doc)
    else:
        print(f"{doc['outcome']}: {sanitize_line(doc['message'])}")
    return code


def cmd_backfill(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..writer import backfill

    return report(backfill(ctx.state_dir, model=args.model), args.json)
