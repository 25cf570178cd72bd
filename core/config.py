"""User settings in `<state>/config.toml` (model, thresholds, budgets, inject flag, theme).

Keys are dotted paths into the TOML tables (`writer.model`, `tui.theme`). A missing
or unreadable file reads as no settings: configuration never blocks the engine.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from .fsutil import atomic_write_text
from .paths import StatePaths


@dataclass
class Config:
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why the file could not be read, if it could not

    def get(self, key: str, default: Any = None) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node


def load_config(state_dir: Path) -> Config:
    path = StatePaths(Path(state_dir)).config
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        return Config(problem=f"{path}: {exc}")
    try:
        return Config(tomllib.loads(raw.decode("utf-8")))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Config(problem=f"{path}: {exc}")


def set_config_value(state_dir: Path, key: str, value: Any) -> None:
    """Set one dotted key, keeping every other setting; refuses to clobber a broken file."""
    config = load_config(state_dir)
    if config.problem:
        raise ValueError(f"cannot update config: {config.problem}")
    data = config.data
    node = data
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ValueError(f"cannot set {key}: {part} is not a table")
    node[parts[-1]] = value
    path = StatePaths(Path(state_dir)).config
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, tomli_w.dumps(data), mode=0o600)
