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
        """Each key through `Config`'s typed accessors (flags, integers ≥ 0, non-blank
        texts), a path also kept inside the project; anything else reads as the default."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            key, default = f"{SECTION}.{f.name}", f.default
            if isinstance(default, bool):
                values[f.name] = config.flag(key, default)
            elif isinstance(default, int):
                values[f.name] = config.integer(key, default, low=0)
            elif isinstance(default, str):
                text = config.text(key)
                values[f.name] = text if text is not None and _inside_project(text) else default
            elif isinstance(default, tuple):
                values[f.name] = _names(config.get(key), default)
        if values["projectRootStrategy"] not in ("workspace", "marker"):
            values["projectRootStrategy"] = cls.projectRootStrategy
        return cls(**values)


def _names(raw: Any, default: tuple[str, ...]) -> tuple[str, ...]:
    """A non-empty list of non-empty names (TOML has no typed accessor for it), else `default`."""
    if isinstance(raw, list) and raw and all(isinstance(item, str) and item for item in raw):
        return tuple(raw)
    return default


def _inside_project(raw: str) -> bool:
    """A relative path that stays inside the project root (no `..`, not absolute)."""
    path = PurePosixPath(raw.replace("\\", "/"))
    return bool(raw.strip()) and not path.is_absolute() and ".." not in path.parts and str(path) != "."
