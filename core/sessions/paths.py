"""Where things live inside one session directory `<state>/sessions/<id>/` (formats §1).

```
<id>/                     a git repository
  meta.json               head_id, updated_at, title, ...
  history/NNNN-<u|l|c>-<node>.json   one file per node
  workdir/.gitkeep
  .scriptorium/           git-excluded runtime: index.json, gen, lock, uncommitted, undo.N, marks.redo
```

The one place these names are spelled: the store, the index, the git side, the
watchers, the TUI and the tests' builders all ask a `SessionPaths`. The `*_REL`
names are the same paths as git sees them (relative to the session directory).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..paths import RUNTIME_DIR, StatePaths
from ..values import Frozen

HISTORY_REL = "history"
REDO_REL = f"{RUNTIME_DIR}/marks.redo"  # the marks' redo log (redo.py)
REDO_BOOT_REL = f"{RUNTIME_DIR}/marks.boot"  # the boot the redo log's records were all written in (redo.py)
GENERATION_REL = f"{RUNTIME_DIR}/gen"  # the write generation (index.bump_generation)
UNCOMMITTED_REL = f"{RUNTIME_DIR}/uncommitted"  # the flag of files written ahead of their commit (repo.set_flag)
META_REL = "meta.json"
WORKDIR_KEEP_REL = "workdir/.gitkeep"
COMMITTED_RELS = (HISTORY_REL, META_REL, WORKDIR_KEEP_REL)  # everything a session's commits hold
GIT_EXCLUDE = f"/{RUNTIME_DIR}/"  # the line in .git/info/exclude that keeps the runtime out of git
UNTRACKED_PARTS = frozenset({".git", RUNTIME_DIR})  # top-level entries that are never session content


def node_rel(filename: str) -> str:
    """A node file as git names it: `history/<filename>`."""
    return f"{HISTORY_REL}/{filename}"


class SessionPaths(Frozen):
    """The fixed layout of one session directory."""

    __slots__ = ("root",)

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def of(cls, state_dir: str | os.PathLike[str], session_id: str) -> SessionPaths:
        """The directory of `session_id` in a state directory (the id is not checked here)."""
        return cls(StatePaths(Path(state_dir)).sessions / session_id)

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def meta(self) -> Path:
        return self.root / META_REL

    @property
    def history(self) -> Path:
        return self.root / HISTORY_REL

    def node(self, filename: str) -> Path:
        return self.history / filename

    @property
    def workdir(self) -> Path:
        return self.root / "workdir"

    @property
    def workdir_keep(self) -> Path:
        return self.root / WORKDIR_KEEP_REL

    @property
    def git(self) -> Path:
        return self.root / ".git"

    @property
    def git_exclude(self) -> Path:
        return self.git / "info" / "exclude"

    @property
    def runtime(self) -> Path:
        """`.scriptorium/`: our git-excluded cache and locks."""
        return self.root / RUNTIME_DIR

    @property
    def index(self) -> Path:
        """The compact index (session_index)."""
        return self.runtime / "index.json"

    @property
    def index_journal(self) -> Path:
        """Index rows appended by marks since the last full save."""
        return self.runtime / "index.journal"

    @property
    def marks_redo(self) -> Path:
        """The marks' redo log: their durable commit until a checkpoint (redo.py)."""
        return self.root / REDO_REL

    @property
    def generation(self) -> Path:
        """The write generation, bumped under the lock after every write."""
        return self.root / GENERATION_REL

    @property
    def lock(self) -> Path:
        return self.runtime / "lock"

    def undo(self, n: int) -> Path:
        """The `n`th file a locked write replaces, as it was (a hard link): undoing a failed
        write puts it back by a rename, which needs no free space (a full disk)."""
        return self.runtime / f"undo.{n}"

    @property
    def uncommitted(self) -> Path:
        """Non-empty while files are written ahead of their commit."""
        return self.root / UNCOMMITTED_REL

    def is_session(self) -> bool:
        """A real directory with `history/` and `meta.json` (a symlink is never a session)."""
        return self.root.is_dir() and not self.root.is_symlink() and self.history.is_dir() and self.meta.is_file()
