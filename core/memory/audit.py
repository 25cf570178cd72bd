"""The audit log: `.scriptorium/audit.jsonl`, one JSON object per installed transaction.

Append-only. Each record names the transaction, its kind and summary, the commit,
the files whose content changed (not whose mtime did), the blocks it created and
the blocks it retired with their reasons. A crash after the commit is repaired on
the next open, which appends the record if it is not there yet (`has_record`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..values import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

AUDIT_NAME = "audit.jsonl"


def append_record(runtime_dir: Path, record: dict[str, Any]) -> None:
    line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    fd = os.open(runtime_dir / AUDIT_NAME, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # a torn last line stays on its own line
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_records(runtime_dir: Path) -> list[dict[str, Any]]:
    """Every readable record, newest first; a torn or corrupt line is skipped."""
    try:
        raw = (runtime_dir / AUDIT_NAME).read_bytes()
    except FileNotFoundError:
        return []
    return _parse(raw.splitlines())


def _parse(lines: list[bytes]) -> list[dict[str, Any]]:
    out = []
    for line in reversed(lines):
        try:
            record = json.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def _newest(runtime_dir: Path, count: int) -> list[dict[str, Any]]:
    """The newest `count` lines' records, reading the log from its end (it only grows)."""
    try:
        with open(runtime_dir / AUDIT_NAME, "rb") as fh:
            end = start = fh.seek(0, os.SEEK_END)
            data = b""
            while start > 0 and data.count(b"\n") <= count:
                start = max(0, start - 65536)
                fh.seek(start)
                data = fh.read(end - start)
    except FileNotFoundError:
        return []
    lines = data.splitlines()
    return _parse(lines[-count:] if start == 0 else lines[1:][-count:])  # lines[0] may be cut


def has_record(runtime_dir: Path, txn: str) -> bool:
    """Whether one of the newest records is `txn`'s: recovery only ever asks about the
    last install, so this costs the log's tail, not its whole history."""
    return any(r.get("txn") == txn for r in _newest(runtime_dir, 64))
