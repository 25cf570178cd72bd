"""`scriptorium purge --text STRING | --pattern REGEX [--dry-run] [--yes] [--json]`: find a
secret that got into the state directory before redaction, show where, and on
confirmation rewrite it out of every file and every git history (core/purge/purge.py).

Exit codes: 0 done (or nothing found, or a dry run), 1 declined, a name holding it left as
it is (only topic files are renamed), or the workspace does not validate afterwards,
2 usage (including: no --yes and stdin is not a terminal; BLOCK_ID: the text or pattern
matches an id — a block's, a footnote's, a cited source's or an evidence record's —
and ids are never purged), 75 busy.
"""

from __future__ import annotations

import argparse
import sys

from ..memory.errors import LockBusy
from ..outcome import EXIT_RETRYABLE
from .common import CliContext, CliError, add_json_flag, emit_json

SHOWN_IDS = 5


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("purge")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--text", metavar="STRING", help="the secret, literally ('-' reads it from stdin's first line, "
                                                        "keeping it out of shell history)")
    what.add_argument("--pattern", metavar="REGEX", help="a Python regular expression for the secret(s)")
    p.add_argument("--dry-run", action="store_true", help="only show where it is; change nothing")
    p.add_argument("--yes", action="store_true", help="confirm the rewrite (needed when stdin is not a terminal)")
    add_json_flag(p)
    p.set_defaults(func=cmd_purge)


def cmd_purge(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..purge import purge as op

    text = args.text
    if text == "-":
        text = sys.stdin.readline().rstrip("\r\n")
    try:
        scrub = op.scrubber(ctx.state_dir, text=text, pattern=args.pattern if text is None else None)
    except ValueError as exc:
        raise CliError(str(exc), 2) from exc
    if held := op.ids_held(ctx.state_dir, scrub):
        what = "--text" if text is not None else "--pattern"
        shown = "; ".join(held[:SHOWN_IDS]) + (f"; and {len(held) - SHOWN_IDS} more" if len(held) > SHOWN_IDS else "")
        raise CliError(f"{what} matches {len(held)} id(s), {shown}: ids are never purged (an id is no secret, "
                       "and a rewritten one breaks its topic); nothing changed: purge the text that holds the "
                       "secret, or narrow the pattern", 2, "BLOCK_ID")
    report = op.find(ctx.state_dir, scrub)
    if not report.found or args.dry_run:
        return _print(report, args.json, dry_run=args.dry_run)
    if not args.yes:
        if not sys.stdin.isatty() or args.text == "-":
            raise CliError("purge rewrites files and git history: pass --yes to confirm "
                           "(stdin is not a terminal to ask on)", 2)
        print(f"found in {len(report.files)} file(s) and {len(report.repositories)} repository history(ies):")
        print(op.describe(report))
        answer = input("rewrite them all (a backup is made beside the state directory)? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            raise CliError("declined: nothing changed", 1)
    try:
        report = op.purge(ctx.state_dir, scrub, report)
    except LockBusy as exc:
        raise CliError(f"{exc}; nothing changed, retry later", EXIT_RETRYABLE) from exc
    code = _print(report, args.json, dry_run=False)
    return 1 if report.problems else code


def _print(report, as_json: bool, *, dry_run: bool) -> int:
    from ..purge.purge import describe

    if as_json:
        emit_json({**report.to_json(), "dry_run": dry_run})
        return 0
    if not report.found:
        print("not found: nothing to purge")
        return 0
    head = "would rewrite" if dry_run else "purged"
    print(f"{head}: {len(report.files)} file(s), {len(report.repositories)} repository history(ies)")
    print(describe(report))
    if report.backup:
        print(f"backup (it still holds the secret: delete it once you have checked): {report.backup}")
    for problem in report.problems:
        print(f"problem: {problem}")
    return 0
