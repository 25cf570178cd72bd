"""Where things live inside a state directory (DESIGN §2)."""

from __future__ import annotations

import os
from pathlib import Path

from .values import Frozen

STATE_ENV = "SCRIPTORIUM_STATE"
RUNTIME_DIR = ".scriptorium"
INSTALL_JOURNAL = "journal.json"  # under RUNTIME_DIR while an install is under way (memory/install.py)
INSTALL_BACKUP = ".scriptorium-block-backup"  # under memory/: that install's new and old bytes
GIT_DIR = ".git"  # a repository's directory under its work tree (memory/, each session)
SESSIONS_REGISTRY = "index.json"  # under sessions/: OpenProgram's registry cache (sessions/registry.py)


def default_state_dir() -> Path:
    """The platform's user data dir (platformdirs), e.g. ~/.local/share/scriptorium."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("scriptorium", appauthor=False))


def resolve_state_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--state DIR` wins, then `$SCRIPTORIUM_STATE`, then the platform default."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get(STATE_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return default_state_dir()


class StatePaths(Frozen):
    """The fixed layout of one state directory."""

    __slots__ = ("root",)

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"

    @property
    def sessions_registry(self) -> Path:
        """`<state>/sessions/index.json`: OpenProgram's registry of every session's scalars."""
        return self.sessions / SESSIONS_REGISTRY

    @property
    def memory(self) -> Path:
        return self.root / "memory"

    @property
    def memory_git(self) -> Path:
        """`<state>/memory/.git`: the memory repository (present once memory was opened)."""
        return self.memory / GIT_DIR

    @property
    def topics(self) -> Path:
        """`<state>/memory/topics/`: the canonical memory."""
        return self.memory / "topics"

    @property
    def sources(self) -> Path:
        """`<state>/memory/sources/`: the append-only evidence archive."""
        return self.memory / "sources"

    @property
    def runtime(self) -> Path:
        """`<state>/memory/.scriptorium/`: workspace id, counters, locks, audit log."""
        return self.memory / RUNTIME_DIR

    @property
    def config(self) -> Path:
        return self.root / "config.toml"

    @property
    def demo_mark(self) -> Path:
        """`<state>/.scriptorium-demo`: written by `scriptorium demo`; install refuses such a state."""
        return self.root / ".scriptorium-demo"

    def is_demo(self) -> bool:
        """A demo state: built by `scriptorium demo`, or the default demo folder."""
        return self.demo_mark.exists() or self.root.absolute() == (default_state_dir() / "demo").absolute()
