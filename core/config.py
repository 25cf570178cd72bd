"""User settings in `<state>/config.toml` (model, thresholds, budgets, inject flag, theme).

Keys are dotted paths into the TOML tables (`writer.model`, `tui.theme`). A missing
or unreadable file reads as no settings: configuration never blocks the engine.
"""

from __future__ import annotations

import tomllib
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    """Set one dotted key. The rest of the file is the user's: its comments, order and
    formatting are kept (tomlkit edits the document in place). Refuses to touch a file
    that does not parse."""
    import tomlkit  # only a writer pays for it
    from tomlkit.exceptions import TOMLKitError

    config = load_config(state_dir)
    if config.problem:
        raise ValueError(f"cannot update config: {config.problem}")
    path = StatePaths(Path(state_dir)).config
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, UnicodeDecodeError, TOMLKitError) as exc:
        raise ValueError(f"cannot update config: {path}: {exc}") from exc
    node: MutableMapping[str, Any] = doc
    parts = key.split(".")
    for part in parts[:-1]:
        if part not in node:
            node[part] = tomlkit.table()
        child = node[part]
        if not isinstance(child, MutableMapping):
            raise ValueError(f"cannot set {key}: {part} is not a table")
        node = child
    node[parts[-1]] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, tomlkit.dumps(doc), mode=0o600)
