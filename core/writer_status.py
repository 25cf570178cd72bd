"""What the writer leaves in `.scriptorium/` for people and other processes (formats §2.1):
`writer-status.json` (last outcome, last success, last failure with its code) and
`agent-history.jsonl` (one line per writer or organizer run)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from typing import Any

from filelock import FileLock

from .fsutil import atomic_write_text
from .paths import StatePaths

STATUS_FILE = "writer-status.json"
FAILURES_FILE = "session-failures.json"
HISTORY_FILE = "agent-history.jsonl"
HISTORY_KEPT = "agent-history.1.jsonl"  # the previous generation, replaced at each rotation
HISTORY_MAX_BYTES = 32 * 1024 * 1024  # every run keeps its whole prompt: bound what that costs


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def read_status(paths: StatePaths) -> dict[str, Any]:
    try:
        doc = json.loads((paths.runtime / STATUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = None
    if not isinstance(doc, dict) or doc.get("version") != 1:
        return {"version": 1, "last_outcome": None, "last_success_at": None, "last_failure": None}
    return doc


def record_outcome(paths: StatePaths, ok: bool, code: str | None = None, retryable: bool = False,
                   retry_after_s: float | None = None) -> None:
    """Remember how the last write ended (a success keeps the last failure for reference);
    `retry_after_s`: the wait a model's provider asked for."""
    paths.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    with FileLock(str(paths.runtime / (STATUS_FILE + ".lock")), timeout=5):
        doc = read_status(paths)
        if ok:
            doc.update(last_outcome="success", last_success_at=_now())
        else:
            failure: dict[str, Any] = {"at": _now(), "reason_code": code, "retryable": retryable}
            if retry_after_s is not None:
                failure["retry_after_s"] = retry_after_s
            doc.update(last_outcome="failure", last_failure=failure)
        atomic_write_text(paths.runtime / STATUS_FILE, json.dumps(doc, indent=2) + "\n")


def session_failures(paths: StatePaths) -> dict[str, dict[str, Any]]:
    """Sessions whose last write ended `permanent`: {sid: {code, message, at}}."""
    try:
        doc = json.loads((paths.runtime / FAILURES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in doc.items() if isinstance(v, dict)} if isinstance(doc, dict) else {}


def record_session_outcome(paths: StatePaths, sid: str, code: str | None, message: str) -> None:
    """Remember a session's permanent failure (code given) or clear it (code None), so a
    reviewer can see which sessions need attention."""
    paths.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    with FileLock(str(paths.runtime / (FAILURES_FILE + ".lock")), timeout=5):
        doc = session_failures(paths)
        if code is None:
            if doc.pop(sid, None) is None:
                return
        else:
            doc[sid] = {"code": code, "message": message, "at": _now()}
        atomic_write_text(paths.runtime / FAILURES_FILE, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def append_history(paths: StatePaths, entry: dict[str, Any], *, max_bytes: int = HISTORY_MAX_BYTES) -> None:
    """One JSON line per agent run; appends are atomic enough for one line (O_APPEND).

    A file past `max_bytes` is first moved to `agent-history.1.jsonl` (replacing the
    generation before it), so the log stays within about twice that size."""
    paths.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = paths.runtime / HISTORY_FILE
    try:
        full = path.stat().st_size >= max_bytes
    except FileNotFoundError:
        full = False
    if full:
        with FileLock(str(paths.runtime / (HISTORY_FILE + ".lock")), timeout=5):
            try:
                if path.stat().st_size >= max_bytes:  # nobody rotated it meanwhile
                    os.replace(path, paths.runtime / HISTORY_KEPT)
            except FileNotFoundError:
                pass
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
