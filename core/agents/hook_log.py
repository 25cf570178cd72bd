"""The hook log: one JSON line per hook call, for `doctor` and the TUI's Agents screen.

A hook never breaks the agent, so whatever went wrong is written here instead of to the
agent's terminal. Every line goes through the redactor first: a session id, a path or a
prompt quoted in an error is whatever the agent sent (what was read from memory, which
redacts at its doors, is not redacted twice). The file lives in the state's runtime folder and is kept bounded: past
`MAX_BYTES` the older half is dropped (the log is a recent record, not an archive).
"""

from __future__ import annotations

import json
import os
import time as _time
from pathlib import Path

from ..paths import StatePaths
from ..values import TYPE_CHECKING, Value

if TYPE_CHECKING:
    from typing import Any, Literal

    Outcome = Literal["ok", "skipped", "error"]

LOG_NAME = "hooks.jsonl"
MAX_BYTES = 2 * 1024 * 1024
FROM_MEMORY = ("text", "recall_text", "hits")
"""A call's detail read from memory (the injected core, recall's text and hits), which is
redacted at its doors: the log line does not redact it again."""


class HookCall(Value):
    """One call of `scriptorium hook AGENT EVENT` (or of the pi extension through the CLI)."""

    __slots__ = ("agent", "event", "outcome", "session_id", "ms", "error", "detail", "time")

    def __init__(self, agent: str, event: str, outcome: Outcome, session_id: str | None = None,
                 ms: float | None = None, error: str | None = None, detail: dict[str, Any] | None = None,
                 time: float | None = None) -> None:
        self.agent, self.event, self.outcome, self.session_id = agent, event, outcome, session_id
        self.ms, self.error = ms, error
        self.detail: dict[str, Any] = {} if detail is None else detail
        self.time: float = _time.time() if time is None else time

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.as_dict().items() if v not in (None, {})}


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
    session id, a transcript path, a prompt quoted in an error) is not to be trusted; what
    it read from memory (`FROM_MEMORY`) was redacted on its way in. The redactor is built
    only when a string could hold a secret (`redact.prefilter`: most lines hold none). When
    the redactor cannot run, only the call's fixed fields are kept, never unredacted text."""
    try:
        from ..redact.prefilter import value

        plain = json.loads(json.dumps(doc, default=str))
        detail = plain.get("detail")
        order = list(detail) if isinstance(detail, dict) else []
        memory = {k: detail.pop(k) for k in FROM_MEMORY if k in detail} if isinstance(detail, dict) else {}
        out = dict(value(Path(state_dir), plain))
        if memory:
            rest = out["detail"]
            out["detail"] = {k: memory[k] if k in memory else rest[k] for k in order}
        return out
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
            calls.append(HookCall(**{k: raw[k] for k in raw if k in HookCall.__slots__}))
        except (ValueError, TypeError, KeyError):
            continue
        if len(calls) >= limit:
            break
    return calls
