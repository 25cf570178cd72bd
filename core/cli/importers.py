"""`scriptorium import claude-code|pi|codex [PATH ...] [--json]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..importers import KINDS, importer
from ..sanitize import sanitize_line
from .common import CliContext, CliError, add_json_flag, emit_json

if TYPE_CHECKING:
    from ..importers.run import ImportReport, Progress

DEFAULT_HELP = {"claude-code": "~/.claude/projects/", "pi": "~/.pi/agent/sessions/", "codex": "~/.codex/sessions/"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import",
                       description="Import real agent transcripts as sessions. Re-running adds only what is new; "
                                   "source files are only read.")
    p.add_argument("kind", choices=KINDS, help="which agent wrote the transcripts")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="files or directories (default: " + ", ".join(f"{k}: {v}" for k, v in DEFAULT_HELP.items()) + ")")
    p.add_argument("--dry-run", action="store_true",
                   help="plan only: report what an import would add; write nothing")
    add_json_flag(p)
    p.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..importers.run import import_sources

    try:
        with progress_bar(enabled=not args.json) as progress:
            report = import_sources(ctx.store, args.kind, args.paths or None, progress=progress,
                                    dry_run=args.dry_run)
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        emit_json(report.to_json())
    else:
        print_report(report)
    wrong = wrong_kind(report, [p for p in args.paths if p.is_file()])
    if wrong:
        print(f"scriptorium: {wrong}", file=sys.stderr)
    return 1 if report.errors or wrong else 0


def wrong_kind(report: ImportReport, given: list[Path]) -> str:
    """One line when a file was not of the asked kind: one of another known kind, or a file
    named on the command line (a stray file met while scanning a directory is no error)."""
    given_set = {p.expanduser().resolve() for p in given}
    bad = [(path, other) for path, other in report.refused if other or path.expanduser().resolve() in given_set]
    if not bad:
        return ""
    path, other = next(((p, o) for p, o in bad if o), bad[0])
    label = importer(report.kind).LABEL
    hint = (f"it looks like a {importer(other).LABEL} (try: scriptorium import {other} PATH)" if other
            else "nor any kind this version imports")
    more = f" ({len(bad) - 1} more file(s) like it)" if len(bad) > 1 else ""
    return sanitize_line(f"{path} is not a {label}: {hint}{more}")


@contextmanager
def progress_bar(*, enabled: bool) -> Iterator[Progress | None]:
    """A rich progress bar on stderr (bytes imported), only when stderr is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress as RichProgress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield None
        return
    with RichProgress(TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn(),
                      TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("importing", total=None)

        def update(done: int, total: int, label: str) -> None:
            bar.update(task, completed=done, total=total, description=sanitize_line(label)[:40])

        yield update


def print_report(report: ImportReport) -> None:
    """Plain text (never markup: titles and reasons come from the transcripts)."""
    created = sum(1 for s in report.sessions if s.created)
    rate = f", {report.bytes / 1e6 / report.seconds:.1f} MB/s" if report.seconds > 0 and report.bytes > 1e6 else ""
    added = "would be added (dry run: nothing written)" if report.dry_run else "added"
    print(f"{report.kind}: {report.files} file(s), {len(report.sessions)} session(s) ({created} new), "
          f"{report.nodes_added} node(s) {added}, {report.nodes_unchanged} unchanged, in {report.seconds:.1f} s{rate}")
    if redactions := report.redactions:
        print(f"redacted {sum(redactions.values())} secret(s): "
              + ", ".join(f"{kind} {n}" for kind, n in redactions.most_common()))
    for title, counter in (("skipped", report.skipped), ("folded", report.folded), ("notes", report.notes)):
        if counter:
            print(f"{title}:")
            for reason, count in counter.most_common():
                print(f"  {count:>7}  {sanitize_line(reason)}")
    for session in report.sessions:
        if session.created or session.added:
            state = "new" if session.created else f"+{session.added}"
            print(f"  {sanitize_line(session.session_id)}  {state:>5}  {sanitize_line(session.title)[:60]}")
    for error in report.errors:
        print(f"error: {sanitize_line(error)}")
