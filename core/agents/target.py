"""What every agent's installer module shares: the `Target` it writes for, the `Edit`
it returns per file, and how it reads files and recognises its own command lines.

A module of its own so that install.py can dispatch to the agents' modules while they
import nothing back from it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
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
    remember: str = "ask"  # memory_remember: "ask" the user each time, or "allow" it to run unasked

    def argv(self, *args: str) -> list[str]:
        return [self.command, "--state", str(self.state_dir), *args]

    def line(self, *args: str) -> str:
        return shlex.join(self.argv(*args))


@dataclass
class FileRecord:
    """What our install put into one file, kept in the state directory (install.py) so that
    uninstall takes out exactly that: whether the install created the file, the JSON
    containers it added (key paths) and the folders it made. `known` is False when there
    is no record (an install by an older version, or for another state directory)."""

    known: bool = False
    created: bool = False
    keys: list[list[str | int]] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    written: str = ""  # sha256 of the file as install wrote it, for files that are wholly ours

    def added(self) -> list[list[str | int]] | None:
        """The containers install added, or None when unknown."""
        return self.keys if self.known else None


Edit = Callable[[str | None, FileRecord], str | None]
"""The file's current text (None: absent) and its install record -> its new text (None: remove it)."""


def read_text(path: Path) -> str | None:
    """The file's text exactly (CRLF stays CRLF)."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
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


def state_arg(command: str | list[str]) -> str | None:
    """The `--state DIR` a scriptorium command line names (None: the default state)."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError:
        return None
    for i, word in enumerate(argv[:-1]):
        if word == "--state":
            return argv[i + 1]
    return None
