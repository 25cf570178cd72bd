"""Reading transcript files: read-only, line by line, never failing on a bad line."""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ..outcome import ScriptoriumError
from .plan import SessionPlan, parse_time
from .resume import FileMark


def parse_line(raw: bytes) -> Any:
    """One JSON value; orjson for speed (4x the standard library on transcripts), the
    standard library for what orjson refuses but JSON allows (lone surrogate escapes,
    NaN, huge integers). Raises ValueError for a malformed line."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


MAX_LINE_BYTES = 16 * 1024 * 1024
"""A transcript line longer than this is skipped and reported, never held whole: a file of
gigabytes without a newline must not cost gigabytes of memory (agents write lines of
kilobytes; an image or a pasted file makes a few megabytes)."""
_CHUNK = 1024 * 1024
LONG_LINE = f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MB"


def read_lines(fh: io.BufferedReader, limit: int | None = None) -> Iterator[tuple[bytes | None, int, bool]]:
    """(line, bytes it took, whether they end with a newline) for each line from the file's
    position; the line is None when it is longer than `limit` (MAX_LINE_BYTES): its bytes
    were then read a chunk at a time and dropped. Only the last may lack its newline (an
    agent still writing it)."""
    limit = MAX_LINE_BYTES if limit is None else limit
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw, len(raw), raw.endswith(b"\n")
            continue
        del raw
        size, ended = limit + 1, False
        buffer = bytearray(_CHUNK)  # one buffer for the whole skip: no new block per chunk for malloc to keep
        while not ended and (got := fh.readinto(buffer)):
            cut = buffer.find(b"\n", 0, got)
            ended = cut >= 0
            if ended:
                fh.seek(cut + 1 - got, os.SEEK_CUR)
                got = cut + 1
            size += got
        yield None, size, ended


def iter_records(path: Path, plan: SessionPlan, mark: FileMark | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every well-formed JSON-object line of `path`, from
    `mark` on (default: the start); `mark` advances past each line consumed.

    The file is opened read-only and never written. A malformed line is counted in
    `plan.skipped` and passed over; a last line without its newline is an agent still
    writing it, so it is left for the next import rather than counted as malformed. A
    line past MAX_LINE_BYTES is counted (LONG_LINE) and passed over without being held,
    even unfinished (it will be too long whenever it ends: the mark notes that it is
    inside it, so a follower skips on to its end next time).
    """
    plan.sources.append(path)
    mark = mark if mark is not None else FileMark()
    with open_regular(path) as fh:
        fh.seek(mark.offset)
        for raw, size, ended in read_lines(fh):
            if raw is None or mark.in_long_line:  # too long to hold, or the rest of one an earlier read was in
                if not mark.in_long_line:
                    plan.skipped[LONG_LINE] += 1
                mark.offset += size
                plan.bytes_read += size
                mark.in_long_line = not ended
                mark.lines += ended
                continue
            if not ended:
                break
            mark.offset += size
            mark.lines += 1
            plan.bytes_read += size
            if not raw.strip():
                continue
            try:
                record = parse_line(raw)
            except ValueError:
                plan.skipped["malformed JSON line"] += 1
                continue
            if not isinstance(record, dict):
                plan.skipped["line is not a JSON object"] += 1
                continue
            if plan.started is None:
                plan.started = parse_time(record.get("timestamp"))
            yield mark.lines, record


class NotARegularFile(ScriptoriumError, ValueError):
    """A `*.jsonl` that is a FIFO, a device or a socket: reading it could block forever."""

    code = "NOT_A_REGULAR_FILE"


def open_regular(path: Path) -> io.BufferedReader:
    """Open `path` for reading only if it is a regular file (opened without blocking, then
    checked on the descriptor itself: a FIFO's open would wait for a writer)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotARegularFile(f"not a regular file, refused: {path}")
    return os.fdopen(fd, "rb")


def peek_records(path: Path, limit: int = 64) -> Iterator[dict[str, Any]]:
    """The first well-formed objects of a file, for grouping files before a full read."""
    try:
        with open_regular(path) as fh:
            for count, (raw, _size, ended) in enumerate(read_lines(fh)):
                if count >= limit or raw is None or not ended:
                    return
                try:
                    record = parse_line(raw)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
    except OSError:
        return


def discover_jsonl(paths: Iterable[Path], relatives: Callable[[Path], Iterable[Path]] | None = None) -> list[Path]:
    """Every `*.jsonl` under the given directories, plus each file given directly and its
    `relatives` (files it cannot be imported without), in a stable order, each once."""
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            found.update(dict.fromkeys(p for p in sorted(path.rglob("*.jsonl")) if p.is_file()))
            continue
        found[path] = None
        if relatives is not None:
            found.update(dict.fromkeys(relatives(path)))
    return list(found)
