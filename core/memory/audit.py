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
        raw = (runtime_dir / AUDIT_NAME).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    out = []
    for line in raw.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    out.reverse()
    return out


def has_record(runtime_dir: Path, txn: str) -> bool:
    return any(r.get("txn") == txn for r in read_records(runtime_dir)[:64])
