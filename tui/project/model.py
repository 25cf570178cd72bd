"""What the Project memory screen shows: one project's trilogy (memory/PROJECT.md, DECISIONS.md,
SESSIONS.md), its injection accounting, area map and archive — read through
`scriptorium.core.trilogy.trilogy_status`, never written.

No Textual here; loading runs in a worker thread, and the trilogy package (which brings
the search index with it) is imported there, not when the screen is built.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from scriptorium.core.config import load_config

if TYPE_CHECKING:
    from scriptorium.core.trilogy import TrilogyStatus

PROJECT_DIR_KEY = "trilogy.project_dir"


def default_project_dir(state_dir: Path) -> str:
    """The project the screen opens on: config `trilogy.project_dir`, else the current directory."""
    configured = load_config(state_dir).get(PROJECT_DIR_KEY)
    if isinstance(configured, str) and configured.strip():
        return configured.strip()
    return os.getcwd()


@dataclass(frozen=True)
class ProjectView:
    directory: str  # as the user typed it (shown back unchanged)
    problem: str | None = None  # why there is nothing to show at all (not a directory)
    memory: str | None = None  # the memory directory the settings point at
    status: TrilogyStatus | None = None  # None when the project has no memory directory yet
    texts: dict[str, str | None] = field(default_factory=dict)  # file name -> text (None: missing); untrusted
    archive_text: str | None = None  # memory/archive/SESSIONS.md; untrusted

    @property
    def has_memory(self) -> bool:
        return self.status is not None


def load_project(state_dir: Path, directory: str, today: date) -> ProjectView:
    """The trilogy of the project at `directory` with the state directory's `[trilogy]` settings."""
    from scriptorium.core.trilogy import TrilogySettings, trilogy_paths, trilogy_status

    path = Path(directory).expanduser()
    if not path.is_dir():
        return ProjectView(directory, problem=f"Not a directory: {directory}")
    settings = TrilogySettings.from_config(load_config(state_dir))
    paths = trilogy_paths(path, settings)
    if not paths.memory.is_dir():
        return ProjectView(directory, memory=str(paths.memory))
    status = trilogy_status(path, settings, today=today)
    texts = {f.name: _read(Path(f.path)) for f in status.files}
    return ProjectView(directory, memory=str(paths.memory), status=status, texts=texts,
                       archive_text=_read(Path(status.archive.path)))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
