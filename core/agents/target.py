"""What every agent's installer module shares: the `Target` it writes for, the `Edit`
it returns per file, and how it reads files and recognises its own command lines.

A module of its own so that install.py can dispatch to the agents' modules while they
import nothing back from it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .config_json import ConfigError


@dataclass(frozen=True)
class Target:
    """Where one agent's configuration lives for one scope."""

    agent: str
    scope: str
    home: Path  # $HOME
    project: Path  # the project directory (the cwd) for --scope project
    command: str  # absolute path of `scriptorium`
    state_dir: Path

    def argv(self, *args: str) -> list[str]:
        return [self.command, "--state", str(self.state_dir), *args]

    def line(self, *args: str) -> str:
        return shlex.join(self.argv(*args))


Edit = Callable[[str | None], str | None]


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def is_scriptorium_argv(command: str | list[str], *tail: str) -> bool:
    """Whether `command` (a shell line or an argv) runs a `scriptorium` whose subcommand,
    after the global options (`--state DIR`), starts with `tail`, e.g. ("hook", "codex")."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError:
        return False
    if not argv or not Path(argv[0]).name.startswith("scriptorium"):
        return False
    rest = argv[1:]
    while rest and rest[0].startswith("--"):
        rest = rest[2:] if rest[0] == "--state" else rest[1:]
    return rest[: len(tail)] == list(tail)
