"""`scriptorium write SID` and `scriptorium finish SID`: conversations into memory.

Exit codes follow the write outcome: 0 ok, 75 retryable (try again later: lock busy,
model or network trouble), 1 permanent (the same input gives the same answer).
"""

from __future__ import annotations

import argparse

from ..sanitize import sanitize_line
from .common import CliContext, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("write",
                       description="Write pending turns of the branch ending at --tip (default: the head). Without "
                                   "--force, one batch and only if the pending turns reach the threshold.")
    p.add_argument("sid", metavar="SID")
    p.add_argument("--force", action="store_true", help="write everything pending, batch after batch")
    p.add_argument("--tip", metavar="NODE", help="the branch ending at NODE (default: the head)")
    _model_flag(p)
    add_json_flag(p)
    p.set_defaults(func=cmd_write)

    f = sub.add_parser("finish")
    f.add_argument("sid", metavar="SID")
    _model_flag(f)
    add_json_flag(f)
    f.set_defaults(func=cmd_finish)


def _model_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", metavar="M", help="litellm model name (default: $SCRIPTORIUM_MODEL, config "
                                                "writer.model, else the offline model scriptorium/offline)")


def cmd_write(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..writer import write

    return report(write(ctx.store, args.sid, force=args.force, tip=args.tip, model=args.model), args.json)


def cmd_finish(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..writer import finish

    return report(finish(ctx.store, args.sid, model=args.model), args.json)


def report(result, as_json: bool) -> int:
    """Print a write result (JSON document, or plain lines) and return its exit code."""
    if as_json:
        emit_json(result.to_json())
    else:
        print(f"{result.outcome} ({result.code}): {sanitize_line(result.message)}")
        for batch in result.to_json()["batches"]:
            items = batch.get("turns") or batch.get("sources") or []
            files = ", ".join(sanitize_line(f) for f in batch["changed_files"])
            print(f"  {len(items)} item(s) -> {files} [{(batch['commit'] or '')[:10]}]")
        for skipped in getattr(result, "skipped", []):
            print(f"skipped {sanitize_line(str(skipped))}")
    return result.exit_code
