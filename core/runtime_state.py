"""`memory/.scriptorium/runtime.json`: counters shared by the writer and sleep.

Format (formats §2.1): `creation_order`, `write_commits_since_global`,
`local_batches`, `local_tokens`, `last_global_at`; a legacy `cursors` key is kept
only until the marker migration removes it. A corrupt file reads as empty state:
it must never block writing (DESIGN §4, trust rules).
"""

from __future__ import annotations

import json
from typing import Any

from .fsutil import atomic_write_text
from .paths import StatePaths

RUNTIME_FILE = "runtime.json"  # in the workspace's runtime directory
KNOWN_KEYS = ("creation_order", "write_commits_since_global", "local_batches", "local_tokens", "last_global_at", "cursors")


def empty_runtime() -> dict[str, Any]:
    return {
        "creation_order": {},
        "write_commits_since_global": 0,
        "local_batches": 0,
        "local_tokens": 0,
        "last_global_at": None,
    }


def _valid(key: str, value: Any) -> bool:
    if key == "creation_order":
        return isinstance(value, dict) and all(isinstance(v, int) for v in value.values())
    if key in ("write_commits_since_global", "local_batches", "local_tokens"):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if key == "last_global_at":
        return value is None or isinstance(value, str)
    if key == "cursors":
        return isinstance(value, dict)
    return False


def load_runtime(paths: StatePaths) -> dict[str, Any]:
    state = empty_runtime()
    try:
        raw = json.loads((paths.runtime / RUNTIME_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return state
    if not isinstance(raw, dict):
        return state
    for key in KNOWN_KEYS:
        if key in raw and _valid(key, raw[key]):
            state[key] = raw[key]
    return state


def dump_runtime(state: dict[str, Any]) -> str:
    """The file's text (a transaction installs it with the rest of its change set)."""
    doc = {key: state[key] for key in KNOWN_KEYS if key in state}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def save_runtime(paths: StatePaths, state: dict[str, Any]) -> None:
    paths.runtime.mkdir(parents=True, exist_ok=True)
    atomic_write_text(paths.runtime / RUNTIME_FILE, dump_runtime(state))
