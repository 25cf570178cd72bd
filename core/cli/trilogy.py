"""`scriptorium trilogy scaffold|inject|checkpoint|status|read|restore DIR`: project memory.

Settings come from the state directory's `config.toml` (`[trilogy]`, the spec's keys).
`checkpoint` exits 1 when any item was refused (the others are still applied, and the
JSON lists both).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..sanitize import sanitize
from .common import CliContext, CliError, add_json_flag, emit_json, positive_int

if TYPE_CHECKING:
    from ..trilogy import TrilogySettings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trilogy")
    tsub = p.add_subparsers(dest="trilogy_command", metavar="ACTION", required=True)

    s = tsub.add_parser("scaffold", help="create the missing memory files and the AGENTS.md boot block")
    s.add_argument("dir", type=Path)
    add_json_flag(s)
    s.set_defaults(func=cmd_scaffold)

    i = tsub.add_parser("inject", help="print the session-start injection with its accounting line")
    i.add_argument("dir", type=Path)
    i.add_argument("--window", type=positive_int, metavar="N", help="the model's context window in tokens")
    add_json_flag(i)
    i.set_defaults(func=cmd_inject)

    c = tsub.add_parser("checkpoint", help="route items into the three files (memory_checkpoint)")
    c.add_argument("dir", type=Path)
    c.add_argument("--from", dest="source", required=True, metavar="FILE.json", help='{"items": [...]} or a list; "-" reads stdin')
    add_json_flag(c)
    c.set_defaults(func=cmd_checkpoint)

    st = tsub.add_parser("status", help="files, per-section and per-area accounting, archive")
    st.add_argument("dir", type=Path)
    st.add_argument("--window", type=positive_int, metavar="N", help="the model's context window in tokens")
    add_json_flag(st)
    st.set_defaults(func=cmd_status)

    r = tsub.add_parser("read", help="print a memory file, a PROJECT.md section or matching log entries (memory_read)")
    r.add_argument("dir", type=Path)
    r.add_argument("file", help="PROJECT, DECISIONS, SESSIONS or archive")
    r.add_argument("--section", help="PROJECT.md section, or text a log entry heading contains")
    r.set_defaults(func=cmd_read)

    rs = tsub.add_parser("restore", help="move archived SESSIONS entries back (newest first)")
    rs.add_argument("dir", type=Path)
    rs.add_argument("--count", type=positive_int, metavar="N", help="how many (default: all)")
    add_json_flag(rs)
    rs.set_defaults(func=cmd_restore)


def cmd_scaffold(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..trilogy import scaffold, trilogy_paths

    settings = _enabled_settings(ctx)
    paths = trilogy_paths(_directory(args.dir), settings)
    report = scaffold(paths, settings)
    doc = {"root": str(paths.root), "memory": str(paths.memory), **asdict(report)}
    if args.json:
        emit_json(doc)
    else:
        print(f"{paths.memory}: created {', '.join(report.created) or 'nothing'}")
        if report.boot_block:
            print(f"boot block appended to {report.boot_block}")
        for old, new in report.renamed_headings:
            print(f"renamed heading {old!r} -> {new!r}")
        for name in report.added_sections:
            print(f"added missing section {name!r}")
    return 0


def cmd_inject(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..trilogy import TrilogySession

    settings = _enabled_settings(ctx)
    session = TrilogySession(_directory(args.dir), settings, window=args.window)
    injection = session.build()
    if args.json:
        emit_json(
            {
                "budget": injection.budget,
                "injected_bytes": injection.injected_bytes,
                "actual_bytes": injection.actual_bytes,
                "accounting_line": injection.accounting_line,
                "area_line": injection.area_line,
                "sha1": injection.digest,
                "text": injection.text,
            }
        )
    else:
        print(sanitize(injection.text))
    return 0


def cmd_checkpoint(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..trilogy import CheckpointError, TrilogySession

    settings = _enabled_settings(ctx)
    try:
        raw = sys.stdin.read() if args.source == "-" else Path(args.source).read_text(encoding="utf-8")
        doc = json.loads(raw)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CliError(f"cannot read checkpoint items from {args.source}: {exc}") from exc
    items = doc.get("items") if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise CliError(f"{args.source}: expected a list of items or {{\"items\": [...]}}")
    session = TrilogySession(_directory(args.dir), settings)
    try:
        result = session.checkpoint(items)
    except (CheckpointError, UnicodeDecodeError) as exc:
        raise CliError(f"checkpoint refused: {exc}") from exc
    out = {
        "applied": [asdict(a) for a in result.applied],
        "refused": [asdict(r) for r in result.refused],
        "archived": result.archived,
        "changed_files": result.changed_files,
    }
    if args.json:
        emit_json(out)
    else:
        for a in result.applied:
            print(sanitize(f"applied #{a.index} -> {a.file}: {a.detail}"))
        for r in result.refused:
            print(sanitize(f"refused #{r.index} ({r.kind}): {r.reason}"))
        if result.archived:
            print(f"archived {result.archived} old SESSIONS entries")
    return 1 if result.refused else 0


def cmd_status(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..trilogy import trilogy_status

    settings = _settings(ctx)
    status = trilogy_status(_directory(args.dir), settings, window=args.window)
    if args.json:
        emit_json(status.to_json())
        return 0
    print(sanitize(status.accounting_line))
    print(sanitize(status.area_line))
    for f in status.files:
        entries = f" ({f.entries_injected}/{f.entries} entries)" if f.entries is not None else ""
        print(f"  {f.name:<13} {f.injected_bytes:>8} / {f.actual_bytes:>8} bytes{entries}{'' if f.exists else '  (missing)'}")
    for s in status.sections:
        print(f"    § {sanitize(s.name):<12} {s.injected_bytes:>8} / {s.actual_bytes:>8} bytes (cap {s.cap_bytes}){'  CUT' if s.cut else ''}")
    for a in status.areas:
        print(f"  area {sanitize(a.name)}: {a.injected}/{a.entries} injected, weight {a.weight:.2f}, cap {a.cap}")
    print(f"  archive: {status.archive.entries} entries ({status.archive.path})")
    if status.stale_days is not None:
        print(f"  PROJECT.md is {status.stale_days} days behind the other files")
    return 0


def cmd_read(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..trilogy import TrilogySession

    session = TrilogySession(_directory(args.dir), _settings(ctx))
    try:
        text = session.read(args.file, args.section)
    except (ValueError, OSError) as exc:
        raise CliError(str(exc)) from exc
    sys.stdout.write(sanitize(text if text.endswith("\n") or not text else text + "\n"))
    return 0


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..trilogy import memory_lock, restore_archived, trilogy_paths

    settings = _enabled_settings(ctx)
    paths = trilogy_paths(_directory(args.dir), settings)
    with memory_lock(paths):
        restored = restore_archived(paths, args.count)
    if args.json:
        emit_json({"restored": restored})
    else:
        print(f"restored {restored} entries to {paths.sessions}")
    return 0


def _settings(ctx: CliContext) -> TrilogySettings:
    from ..config import load_config
    from ..trilogy import TrilogySettings

    return TrilogySettings.from_config(load_config(ctx.state_dir))


def _enabled_settings(ctx: CliContext) -> TrilogySettings:
    settings = _settings(ctx)
    if not settings.enabled:
        raise CliError("the trilogy is disabled (trilogy.enabled = false in config.toml)")
    return settings


def _directory(path: Path) -> Path:
    if not path.is_dir():
        raise CliError(f"not a directory: {path}")
    return path
