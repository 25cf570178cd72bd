"""The hook log: one JSON line per hook call, for `doctor` and the TUI's Agents screen.

A hook never breaks the agent, so whatever went wrong is written here instead of to the
agent's terminal. Every line goes through the redactor first: a session id, a path or a
prompt quoted in an error is whatever the agent sent. The file lives in the state's runtime folder and is kept bounded: past
`MAX_BYTES` the older half is dropped (the log is a recent record, not an archive).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..paths import StatePaths

LOG_NAME = "hooks.jsonl"
MAX_BYTES = 2 * 1024 * 1024

Outcome = Literal["ok", "skipped", "error"]


@dataclass
class HookCall:
    """One call of `scriptorium hook AGENT EVENT` (or of the pi extension through the CLI)."""

    agent: str
    event: str
    outcome: Outcome
    session_id: str | None = None
    ms: float | None = None
    error: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    time: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {})}


def log_path(state_dir: Path) -> Path:
    return StatePaths(Path(state_dir)).runtime / LOG_NAME


def append(state_dir: Path, call: HookCall) -> bool:
    """Add one call; never raises (a hook that cannot log still must not break the agent).
    Returns whether the line was written."""
    path = log_path(state_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(redacted(state_dir, call.to_json()), ensure_ascii=False, default=str) + "\n"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line)
            size = fh.tell()
        if size > MAX_BYTES:
            _trim(path)
    except OSError:
        return False
    return True


def redacted(state_dir: Path, doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with every string through the state's redactor: what a hook is given (a
    session id, a transcript path, a prompt quoted in an error) is not to be trusted. When
    the redactor cannot run, only the call's fixed fields are kept, never unredacted text."""
    try:
        from ..redact import for_state

        return dict(for_state(state_dir).value(json.loads(json.dumps(doc, default=str))))
    except Exception as exc:  # noqa: BLE001 - a hook's log line must never raise
        kept: dict[str, Any] = {k: doc[k] for k in ("agent", "event", "outcome", "ms", "time") if k in doc}
        return {**kept, "error": f"(not logged: the redactor failed: {type(exc).__name__})"}


def _trim(path: Path) -> None:
    data = path.read_bytes()
    keep = data[len(data) // 2:]
    keep = keep[keep.find(b"\n") + 1:]
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(keep)
    os.replace(tmp, path)


def recent(state_dir: Path, limit: int = 200) -> list[HookCall]:
    """The newest `limit` calls, newest first; unreadable lines are skipped."""
    try:
        lines = log_path(state_dir).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    calls: list[HookCall] = []
    for line in reversed(lines):
        try:
            raw = json.loads(line)
            calls.append(HookCall(**{k: raw[k] for k in raw if k in HookCall.__dataclass_fields__}))
        except (ValueError, TypeError, KeyError):
            continue
        if len(calls) >= limit:
            break
    return calls
