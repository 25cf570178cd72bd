"""SESSIONS.md keeps its newest `sessionsMaxEntries` entries; older ones move to the archive.

The archive (`<memory>/archive/SESSIONS.md`) is newest first like the log itself: a
moved batch is always newer than what the archive already holds, so it goes on top,
and the order across many rounds of archiving stays the log's order. Restoring moves
the newest archived entries back to the bottom of SESSIONS.md (they are older than
everything there), so archive + restore is the identity on the entries.
Callers hold `memory_lock` around these read-modify-writes.
"""

from __future__ import annotations

from .layout import TrilogyPaths, write_project_file
from .log import Entry, Log, parse_log
from .templates import ARCHIVE_TEMPLATE, SESSIONS_TEMPLATE


def archive_overflow(paths: TrilogyPaths, max_entries: int) -> int:
    """Move the entries beyond `max_entries` (the oldest) to the archive; returns how many."""
    if not paths.sessions.is_file():
        return 0
    log = parse_log(paths.sessions.read_text(encoding="utf-8"))
    if len(log.entries) <= max_entries:
        return 0
    keep, move = log.entries[:max_entries], log.entries[max_entries:]
    archive = _archive_log(paths)
    moved = "".join(_separated(e.text) for e in move)
    paths.archive.parent.mkdir(parents=True, exist_ok=True)
    # Archive first: a crash between the two writes duplicates entries, never loses them.
    write_project_file(paths.archive, _join(archive.preamble, moved + "".join(e.text for e in archive.entries)))
    write_project_file(paths.sessions, _join(log.preamble, "".join(e.text for e in keep)))
    return len(move)


def restore_archived(paths: TrilogyPaths, count: int | None = None) -> int:
    """Move the newest `count` archived entries (all if None) back under SESSIONS.md."""
    if not paths.archive.is_file():
        return 0
    archive = _archive_log(paths)
    take = len(archive.entries) if count is None else max(0, min(count, len(archive.entries)))
    if take == 0:
        return 0
    back, stay = archive.entries[:take], archive.entries[take:]
    log = parse_log(paths.sessions.read_text(encoding="utf-8") if paths.sessions.is_file() else SESSIONS_TEMPLATE)
    current = "".join(_separated(e.text) for e in log.entries)
    write_project_file(paths.sessions, _join(log.preamble, current + "".join(_separated(e.text) for e in back)))
    write_project_file(paths.archive, _join(archive.preamble, "".join(e.text for e in stay)))
    return take


def archived_entries(paths: TrilogyPaths) -> tuple[Entry, ...]:
    return _archive_log(paths).entries


def _archive_log(paths: TrilogyPaths) -> Log:
    if paths.archive.is_file():
        return parse_log(paths.archive.read_text(encoding="utf-8"))
    return parse_log(ARCHIVE_TEMPLATE)


def _separated(text: str) -> str:
    """An entry that ends with a blank line, so that the next one can follow it."""
    return text.rstrip("\n") + "\n\n"


def _join(preamble: str, entries: str) -> str:
    if preamble and not preamble.endswith("\n\n"):
        preamble = preamble.rstrip("\n") + "\n\n"
    return (preamble + entries).rstrip("\n") + "\n"
