"""OpenProgram's `sessions/index.json`: a registry cache of every session's scalars.

Kept in step when there is one or when we create it; a corrupt registry is left for
OpenProgram to rebuild (formats §1.7). Pretty JSON (indent 2), written atomically
under its own lock.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
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


class RegistryWriter:
    """The registry updates of one store: written at once, or collected while `deferred`."""

    def __init__(self, path: Path, *, lock_timeout: float) -> None:
        self.path = path
        self.lock_timeout = lock_timeout
        self._pending: dict[str, dict[str, Any]] | None = None

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Collect registry updates and write them once at exit: an import of a thousand
        sessions would otherwise rewrite the whole registry a thousand times."""
        if self._pending is not None:
            yield
            return
        self._pending = {}
        try:
            yield
        finally:
            pending, self._pending = self._pending, None
            if pending:
                update_registry(self.path, pending, lock_timeout=self.lock_timeout)

    def update(self, sid: str, meta: Mapping[str, Any]) -> None:
        if self._pending is not None:
            self._pending[sid] = dict(meta)  # dict item assignment: safe across threads
        else:
            update_registry(self.path, {sid: meta}, lock_timeout=self.lock_timeout)
