"""Reading transcript files: read-only, line by line, never failing on a bad line."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

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


def iter_records(path: Path, plan: SessionPlan, mark: FileMark | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every well-formed JSON-object line of `path`, from
    `mark` on (default: the start); `mark` advances past each line consumed.

    The file is opened read-only and never written. A malformed line is counted in
    `plan.skipped` and passed over; a last line without its newline is an agent still
    writing it, so it is left for the next import rather than counted as malformed.
    """
    plan.sources.append(path)
    mark = mark if mark is not None else FileMark()
    with open_regular(path) as fh:
        fh.seek(mark.offset)
        for number, raw in enumerate(fh, start=mark.lines + 1):
            if not raw.endswith(b"\n"):
                break
            mark.offset += len(raw)
            mark.lines = number
            plan.bytes_read += len(raw)
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
            yield number, record


class NotARegularFile(ScriptoriumError, ValueError):
    """A `*.jsonl` that is a FIFO, a device or a socket: reading it could block forever."""

    code = "NOT_A_REGULAR_FILE"


def open_regular(path: Path) -> BinaryIO:
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
            for count, raw in enumerate(fh):
                if count >= limit or not raw.endswith(b"\n"):
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
