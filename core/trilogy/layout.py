"""Where a project's trilogy lives, and scaffolding it without ever overwriting anything."""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from ..fsutil import atomic_write_text
from . import templates
from .project import ensure_sections, rename_legacy_headings
from .sections import ANY_HEADING_RE, heading_lines
from .settings import TrilogySettings


@dataclass(frozen=True)
class TrilogyPaths:
    root: Path
    memory: Path

    @property
    def project(self) -> Path:
        return self.memory / templates.PROJECT

    @property
    def decisions(self) -> Path:
        return self.memory / templates.DECISIONS

    @property
    def sessions(self) -> Path:
        return self.memory / templates.SESSIONS

    @property
    def archive(self) -> Path:
        return self.memory / templates.ARCHIVE_DIR / templates.SESSIONS

    def file(self, name: str) -> Path:
        return self.memory / name


def project_root(start: Path, settings: TrilogySettings) -> Path:
    """`workspace`: the directory itself; `marker`: the nearest ancestor holding a marker."""
    start = Path(start).expanduser().resolve()
    if settings.projectRootStrategy == "marker":
        for candidate in (start, *start.parents):
            if any((candidate / marker).exists() for marker in settings.projectRootMarkers):
                return candidate
    return start


def trilogy_paths(start: Path, settings: TrilogySettings) -> TrilogyPaths:
    root = project_root(start, settings)
    return TrilogyPaths(root, root / settings.memoryDirName)


@dataclass
class ScaffoldReport:
    created: list[str] = field(default_factory=list)
    boot_block: str | None = None  # the file the boot block was appended to
    renamed_headings: list[tuple[str, str]] = field(default_factory=list)
    added_sections: list[str] = field(default_factory=list)


def scaffold(paths: TrilogyPaths, settings: TrilogySettings, *, create: bool = True) -> ScaffoldReport:
    """Create what is missing (if `create`), append the boot block, repair PROJECT.md headings.

    Existing files are never overwritten: PROJECT.md only has legacy heading lines renamed
    and missing fixed sections added; the boot-block file only gets a block appended.
    """
    report = ScaffoldReport()
    if create:
        paths.memory.mkdir(parents=True, exist_ok=True)
        defaults = {
            paths.project: templates.project_template(),
            paths.decisions: templates.DECISIONS_TEMPLATE,
            paths.sessions: templates.SESSIONS_TEMPLATE,
        }
        for path, text in defaults.items():
            if _create_exclusive(path, text):
                report.created.append(str(path.relative_to(paths.root)))
        if settings.writeBootBlock and _append_boot_block(paths, settings):
            report.boot_block = settings.bootBlockFile
    if paths.project.is_file():
        original = paths.project.read_text(encoding="utf-8")
        text, report.renamed_headings = rename_legacy_headings(original)
        text, report.added_sections = ensure_sections(text)
        if text != original:
            write_project_file(paths.project, text)
    return report


def memory_lock(paths: TrilogyPaths) -> FileLock:
    """One writer at a time per memory directory, machine-wide; the lock file lives in the
    temp directory, not in the user's project. Callers hold it around read-modify-write."""
    key = hashlib.sha1(str(paths.memory.resolve()).encode("utf-8")).hexdigest()[:16]
    return FileLock(str(Path(tempfile.gettempdir()) / f"scriptorium-trilogy-{key}.lock"), timeout=10)


def write_project_file(path: Path, text: str) -> None:
    """Atomic replace that keeps the file's permissions (these are the user's files)."""
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    atomic_write_text(path, text, mode=mode)


def _create_exclusive(path: Path, text: str) -> bool:
    try:
        with open(path, "x", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except FileExistsError:
        return False
    return True


def _append_boot_block(paths: TrilogyPaths, settings: TrilogySettings) -> bool:
    target = paths.root / settings.bootBlockFile
    existing = target.read_text(encoding="utf-8") if target.is_file() else ""
    if has_memory_section(existing):
        return False
    block = templates.boot_block(settings.memoryDirName)
    if existing and not existing.endswith("\n"):
        block = "\n\n" + block
    elif existing:
        block = ("" if existing.endswith("\n\n") else "\n") + block
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "a", encoding="utf-8", newline="") as fh:
        fh.write(block)
    return True


def has_memory_section(text: str) -> bool:
    """Whether a Markdown document already has a heading named `Memory` (any level)."""
    return any(heading.casefold() == "memory" for _, heading in heading_lines(text, ANY_HEADING_RE))
