"""What this agent session has already been given: a small record per session.

Recall must never hand an agent a block it already has (from the core injected at
session start, or from an earlier prompt's recall). One JSON file per agent session
under `<runtime>/hooks/sessions/`; records older than `MAX_AGE_S` are pruned when a
new session starts. A missing or unreadable record reads as "nothing seen yet".
"""

from __future__ import annotations

import json
import os
import re
import time
import zlib
from pathlib import Path

from ..fsutil import atomic_write_text
from ..paths import StatePaths

MAX_AGE_S = 14 * 24 * 3600
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def _folder(state_dir: Path) -> Path:
    return StatePaths(Path(state_dir)).runtime / "hooks" / "sessions"


def record_path(state_dir: Path, agent: str, session_id: str) -> Path:
    """A file name no session id can escape from (ids come from the agent's payload)."""
    safe = _UNSAFE.sub("-", session_id)[:80]
    digest = f"{zlib.crc32(f'{agent}{chr(0)}{session_id}'.encode('utf-8')):08x}"  # two ids cleaned alike stay apart
    return _folder(state_dir) / f"{_UNSAFE.sub('-', agent)}--{safe}-{digest}.json"


def seen_blocks(state_dir: Path, agent: str, session_id: str) -> set[str]:
    try:
        raw = json.loads(record_path(state_dir, agent, session_id).read_text(encoding="utf-8"))
        return {str(b) for b in raw.get("blocks", [])}
    except (OSError, ValueError, AttributeError, TypeError):
        return set()


def add_seen(state_dir: Path, agent: str, session_id: str, blocks: list[str], *, reset: bool = False) -> None:
    """Add `blocks` to the session's record (`reset`: start the record afresh)."""
    known = set() if reset else seen_blocks(state_dir, agent, session_id)
    merged = sorted(known | set(blocks))
    path = record_path(state_dir, agent, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({"agent": agent, "session_id": session_id, "blocks": merged,
                                        "updated": time.time()}), durable=False)


def prune(state_dir: Path, now: float | None = None) -> int:
    """Drop records untouched for `MAX_AGE_S`; returns how many went."""
    cutoff = (now if now is not None else time.time()) - MAX_AGE_S
    gone = 0
    try:
        entries = list(os.scandir(_folder(state_dir)))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                gone += 1
        except OSError:
            continue
    return gone
