"""Taking back a locked write that failed half-way (a full disk): see `SessionWriter.locked`."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..fsutil import atomic_write_bytes
from .paths import SessionPaths


@dataclass
class Undo:
    """What a locked write has replaced or created so far, to take back."""

    layout: SessionPaths
    unborn: set[str]  # the session's init files awaiting their first commit, as they were
    kept: list[tuple[Path, Path | bytes | None]] = field(default_factory=list)  # path, old content (None: new)
    committing: list[str] | None = None  # the paths handed to git

    def keep(self, path: Path) -> None:
        """Before `path` is written: its content as it is, as a hard link (put back by a
        rename, no free space needed), or its bytes where links fail; or that it is new."""
        if any(p == path for p, _old in self.kept):
            return
        backup = self.layout.undo(len(self.kept))
        with contextlib.suppress(FileNotFoundError):
            backup.unlink()  # a killed writer's
        try:
            os.link(path, backup)
            self.kept.append((path, backup))
            return
        except OSError:
            pass  # a new file; or no links here (a read-only disk fails the write itself next)
        try:
            self.kept.append((path, path.read_bytes()))
        except FileNotFoundError:
            self.kept.append((path, None))

    def restore(self) -> None:
        for path, old in reversed(self.kept):
            with contextlib.suppress(OSError):
                if old is None:
                    path.unlink(missing_ok=True)
                elif isinstance(old, Path):
                    os.replace(old, path)
                else:
                    atomic_write_bytes(path, old)

    def discard(self) -> None:
        for _path, old in self.kept:
            if isinstance(old, Path):
                with contextlib.suppress(OSError):
                    old.unlink()
