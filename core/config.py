"""User settings in `<state>/config.toml` (model, thresholds, budgets, inject flag, theme).

Keys are dotted paths into the TOML tables (`writer.model`, `tui.theme`). A missing
or unreadable file reads as no settings: configuration never blocks the engine.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path

from .fsutil import atomic_write_text
from .paths import StatePaths
from .values import TYPE_CHECKING, Value

if TYPE_CHECKING:
    from typing import Any


class Config(Value):
    """The parsed file (`data`), and why it could not be read (`problem`), if it could not."""

    __slots__ = ("data", "problem")

    def __init__(self, data: dict[str, Any] | None = None, problem: str | None = None) -> None:
        self.data: dict[str, Any] = {} if data is None else data
        self.problem = problem

    def get(self, key: str, default: Any = None) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    # Typed accessors: a value of the wrong type or out of range reads as `default`.

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key)
        return value if isinstance(value, bool) else default

    def text(self, key: str) -> str | None:
        """A non-blank string, stripped; None otherwise."""
        value = self.get(key)
        return value.strip() if isinstance(value, str) and value.strip() else None

    def integer(self, key: str, default: int, *, low: int = 1, high: int | None = None) -> int:
        """An integer in [low, high] (by default: a positive one)."""
        value = self.get(key)
        return value if isinstance(value, int) and is_number(value) and _within(value, low, high) else default

    def number(self, key: str, default: float, *, low: float = 0.0, high: float | None = None) -> float:
        """A number (integer or float) in [low, high]."""
        value = self.get(key)
        return float(value) if is_number(value) and _within(value, low, high) else default

    def positive(self, key: str, default: float) -> float:
        """A number above zero (a timeout, an interval)."""
        value = self.get(key)
        return float(value) if is_positive(value) else default


def is_number(value: Any) -> bool:
    """An integer or a float; TOML's booleans are not numbers here (Python's bool is an int)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_positive(value: Any) -> bool:
    return is_number(value) and value > 0


def _within(value: float, low: float, high: float | None) -> bool:
    return value >= low and (high is None or value <= high)


def load_config(state_dir: Path) -> Config:
    path = StatePaths(Path(state_dir)).config
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        return Config(problem=f"{path}: {exc}")
    import tomllib  # here: a state with no config.toml (most commands' case) never parses TOML

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
