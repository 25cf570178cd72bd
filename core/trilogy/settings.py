"""The trilogy provider's settings: the spec's configuration table, read from `config.toml`.

Keys keep the spec's names under a `[trilogy]` table (`trilogy.injectBudgetBytes = 64000`)
so that every key of the table can be looked up by the name the spec gives it. A value of
the wrong type falls back to its default: a typo in the config never disables memory.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import PurePosixPath
from typing import Any

from ..config import Config

SECTION = "trilogy"


@dataclass(frozen=True)
class TrilogySettings:
    enabled: bool = True
    memoryDirName: str = "memory"
    projectRootStrategy: str = "workspace"  # "workspace" | "marker"
    projectRootMarkers: tuple[str, ...] = (".git",)
    autoScaffold: bool = True
    writeBootBlock: bool = True
    bootBlockFile: str = "AGENTS.md"
    injectOnSessionStart: bool = True
    bootstrapWhenEmpty: bool = True
    injectBudgetBytes: int = 160_000
    sessionEntriesInjected: int = 15
    nudgeOnTurnEnd: bool = True
    nudgeCooldownMs: int = 600_000
    nudgeMaxPerSession: int = 3
    sessionsMaxEntries: int = 200
    projectStaleDays: int = 14

    @classmethod
    def from_config(cls, config: Config) -> "TrilogySettings":
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = config.get(f"{SECTION}.{f.name}")
            if raw is None:
                continue
            value = _coerce(f.default, raw)
            if value is not None:
                values[f.name] = value
        if values.get("projectRootStrategy", "workspace") not in ("workspace", "marker"):
            values.pop("projectRootStrategy")
        return cls(**values)


def _coerce(default: Any, raw: Any) -> Any:
    """`raw` if it has the default's type (and is sane for it), else None."""
    if isinstance(default, bool):
        return raw if isinstance(raw, bool) else None
    if isinstance(default, int):
        return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else None
    if isinstance(default, str):
        return raw if isinstance(raw, str) and _inside_project(raw) else None
    if isinstance(default, tuple):
        if isinstance(raw, list) and raw and all(isinstance(item, str) and item for item in raw):
            return tuple(raw)
        return None
    return None


def _inside_project(raw: str) -> bool:
    """A relative path that stays inside the project root (no `..`, not absolute)."""
    path = PurePosixPath(raw.replace("\\", "/"))
    return bool(raw.strip()) and not path.is_absolute() and ".." not in path.parts and str(path) != "."
