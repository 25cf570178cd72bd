"""One consistent read of the three files (text, size, modification time)."""

from __future__ import annotations

from dataclasses import dataclass

from . import templates
from .layout import TrilogyPaths

SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class Snapshot:
    project: str
    decisions: str
    sessions: str
    mtimes: tuple[float | None, float | None, float | None]  # PROJECT, DECISIONS, SESSIONS

    def sizes(self) -> dict[str, int]:
        return {
            templates.PROJECT: len(self.project.encode("utf-8")),
            templates.DECISIONS: len(self.decisions.encode("utf-8")),
            templates.SESSIONS: len(self.sessions.encode("utf-8")),
        }

    def text(self, name: str) -> str:
        return {templates.PROJECT: self.project, templates.DECISIONS: self.decisions, templates.SESSIONS: self.sessions}[name]

    def project_lag_days(self) -> int | None:
        """Whole days PROJECT.md was last changed before the newest of the other two files."""
        project, *others = self.mtimes
        newest = max((m for m in others if m is not None), default=None)
        if project is None or newest is None:
            return None
        return max(0, int((newest - project) // SECONDS_PER_DAY))


def read_snapshot(paths: TrilogyPaths) -> Snapshot:
    texts = []
    mtimes: list[float | None] = []
    for path in (paths.project, paths.decisions, paths.sessions):
        try:
            texts.append(path.read_bytes().decode("utf-8", "replace"))
            mtimes.append(path.stat().st_mtime)
        except FileNotFoundError:
            texts.append("")
            mtimes.append(None)
    return Snapshot(texts[0], texts[1], texts[2], (mtimes[0], mtimes[1], mtimes[2]))
