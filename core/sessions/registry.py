"""OpenProgram's `sessions/index.json`: a registry cache of every session's scalars.

Kept in step when there is one or when we create it; a corrupt registry is left for
OpenProgram to rebuild (formats §1.7). Pretty JSON (indent 2), written atomically
under its own lock.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..flock import flock
from ..fsutil import atomic_write_text

REGISTRY_KEYS = ("id", "agent_id", "title", "created_at", "updated_at", "source")


def update_registry(path: Path, metas: Mapping[str, Mapping[str, Any]], *, lock_timeout: float) -> None:
    """Merge each session's `meta` scalars into the registry at `path` (`StatePaths.sessions_registry`)."""
    try:
        with flock(path.with_name(f".{path.name}.lock"), lock_timeout):
            try:
                registry = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(registry, dict):
                    return
            except FileNotFoundError:
                registry = {}
            except (OSError, ValueError):
                return
            for sid, meta in metas.items():
                entry = found if isinstance(found := registry.get(sid), dict) else {}
                for key in REGISTRY_KEYS:
                    if key in meta:
                        entry[key] = meta[key]
                registry[sid] = entry
            atomic_write_text(path, json.dumps(registry, ensure_ascii=False, indent=2))
    except OSError:
        pass
