"""Staging: the baseline read from the live workspace and the stage an edit works in.

The baseline (topic bytes and documents, the archive's files, runtime.json, the
retired registry) is read under the write lock BEFORE anything is copied. The stage
is a fresh temp directory laid out like a state directory (`memory/topics/`,
`memory/sources/`): `topics/` writable, `sources/` read-only at the file-system
level, so an editor cannot change evidence by accident; only `archive()` appends to
it, as the transaction itself. A stat fingerprint of `sources/` tells the judge
whether anything there changed at all.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...paths import StatePaths
from ...runtime_state import load_runtime
from ..errors import ArchiveError, SymlinkRefused
from ..names import TOPIC_SUFFIX, Skipped, name_problem, printable
from ..retired import load_retired
from ..sources import SourceRecord, colliding_paths, group_by_archive, is_v2_path, plan_append, scan_archive
from ..topics import TopicDoc, parse_cached
from ..workspace import Workspace


def walk_files(root: Path, *, refuse_links: bool = False) -> dict[str, str]:
    """Every regular file under `root`: posix path relative to it -> os path; symlinks
    skipped, or with `refuse_links` refused (`SymlinkRefused`: a transaction reads and
    writes only real files inside the workspace)."""
    out: dict[str, str] = {}
    if refuse_links and root.is_symlink():
        raise SymlinkRefused(f"refused: {root.name}/ is a symbolic link (memory is never read or written through one)")

    def walk(directory: str, prefix: str) -> None:
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            if refuse_links and entry.is_symlink():
                raise SymlinkRefused(f"refused: {root.name}/{prefix}{entry.name} is a symbolic link (memory is never "
                                     "read or written through one; replace it by a real directory or file)")
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, f"{prefix}{entry.name}/")
            elif entry.is_file(follow_symlinks=False):
                out[prefix + entry.name] = entry.path

    walk(str(root), "")
    return dict(sorted(out.items()))


def read_bytes(path: str | Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    made: set[str] = set()
    for rel, data in files.items():
        target = os.path.join(root, rel)
        parent = os.path.dirname(target)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        with open(target, "wb") as fh:
            fh.write(data)


def _stage_parent() -> str | None:
    """Where stages are made: in memory when the system offers it (Linux /dev/shm) — a
    stage is thrown away after every transaction — else the default temp directory."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def stage_prefix(ws: Workspace) -> str:
    """The name prefix of this workspace's stages (its resolved path, hashed)."""
    digest = hashlib.sha256(str(ws.root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"scriptorium-stage-{digest}-"


def remove_stale_stages(ws: Workspace) -> int:
    """Remove the stages a killed transaction of this workspace left (in RAM under /dev/shm,
    forever otherwise). Call with the write lock held: no live stage of it exists then."""
    parent = _stage_parent() or tempfile.gettempdir()
    prefix = stage_prefix(ws)
    removed = 0
    try:
        names = [n for n in os.listdir(parent) if n.startswith(prefix)]
    except OSError:
        return 0
    for name in names:
        _remove_tree(Path(parent) / name)
        removed += 1
    return removed


def _remove_tree(tmp: Path) -> None:
    """rmtree, first making the read-only `sources/` of a stage writable again."""
    for dirpath, _dirs, _files in os.walk(tmp):
        try:
            os.chmod(dirpath, 0o755)
        except OSError:
            pass
    shutil.rmtree(tmp, ignore_errors=True)


@dataclass
class Baseline:
    """The live workspace as the transaction found it (read under the lock)."""

    topics: dict[str, bytes]  # topic path (under topics/) -> bytes
    docs: dict[str, TopicDoc]
    sources: dict[str, str]  # archive path (under sources/) -> os path
    runtime: dict[str, Any]  # runtime.json
    retired: dict[str, Any]  # the retired registry
    skipped: list[Skipped] = field(default_factory=list)  # `.md` files left out for their names (names.py)

    @classmethod
    def read(cls, ws: Workspace) -> Baseline:
        """The live state. A `.md` file whose name memory does not accept is not part of
        it: never staged, judged or installed (so never changed), only reported."""
        topics: dict[str, bytes] = {}
        skipped: list[Skipped] = []
        for rel, path in walk_files(ws.topics, refuse_links=True).items():
            if not rel.endswith(TOPIC_SUFFIX):
                continue
            if problem := name_problem(rel):
                skipped.append(Skipped(f"topics/{printable(rel)}", problem))
                continue
            with open(path, "rb") as fh:
                topics[rel] = fh.read()
        docs = {rel: parse_cached(rel, data.decode("utf-8", errors="replace")) for rel, data in topics.items()}
        return cls(topics, docs, walk_files(ws.sources, refuse_links=True), load_runtime(ws.paths),
                   load_retired(ws.runtime), skipped)

    def home(self, block_id: str) -> TopicDoc | None:
        """The live document holding `block_id` (a moved block's evidence is found there)."""
        return next((doc for _rel, doc in sorted(self.docs.items()) if block_id in doc.id_set), None)


class Stage:
    """A temp copy of the workspace's topics and archive; `remove()` throws it away."""

    def __init__(self, baseline: Baseline, prefix: str = "scriptorium-stage-") -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=_stage_parent()))
        self.paths = StatePaths(self.tmp)  # runtime_state can save into it
        self.root = self.paths.memory
        self.baseline = baseline
        self.own_sources: dict[str, bytes] = {}  # sources/… -> bytes the transaction appended
        self.versioned: dict[str, bytes] = {}  # the few versioned root files (workspaces.json)
        self.archived: list[str] = []  # source ids newly appended
        try:
            self._fill()
        except BaseException:
            self.remove()
            raise

    @property
    def topics(self) -> Path:
        return self.paths.topics

    @property
    def sources(self) -> Path:
        return self.paths.sources

    def _fill(self) -> None:
        self.topics.mkdir(parents=True)
        write_tree(self.topics, self.baseline.topics)
        self.sources.mkdir()
        made: set[str] = set()
        for rel, path in self.baseline.sources.items():
            target = os.path.join(self.sources, rel)
            parent = os.path.dirname(target)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            shutil.copyfile(path, target)
        self._lock_sources()
        self.fingerprint = self.source_stats()

    def remove(self) -> None:
        self._unlock_sources()  # first: read-only dirs block the removal
        shutil.rmtree(self.tmp, ignore_errors=True)

    def reset_topics(self) -> None:
        """The staged topics back as they are live."""
        shutil.rmtree(self.topics)
        self.topics.mkdir()
        write_tree(self.topics, self.baseline.topics)

    def _lock_sources(self) -> None:
        for dirpath, _dirs, files in os.walk(self.sources, topdown=False):
            for name in files:
                os.chmod(Path(dirpath) / name, 0o444)
            os.chmod(dirpath, 0o555)

    def _unlock_sources(self) -> None:
        for dirpath, dirs, _files in os.walk(self.sources):
            os.chmod(dirpath, 0o755)
            for name in dirs:
                os.chmod(Path(dirpath) / name, 0o755)

    def source_stats(self) -> dict[str, tuple[int, ...]]:
        out: dict[str, tuple[int, ...]] = {}
        for dirpath, dirs, files in os.walk(self.sources):
            for name in dirs + files:
                path = Path(dirpath) / name
                st = path.lstat()
                key = path.relative_to(self.root).as_posix()
                out[key] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        return out

    def archive(self, records: Iterable[SourceRecord]) -> None:
        """Append `records` to the staged archive (idempotent)."""
        groups = group_by_archive(list(records))
        existing = [f"sources/{rel}" for rel in self.baseline.sources] + list(self.own_sources)
        if bad := colliding_paths(groups, existing):
            raise ArchiveError(f"archive path collides with an existing one: {bad[0]}")
        self._unlock_sources()
        try:
            for rel, batch in groups.items():
                target = self.root / rel
                new, added = plan_append(read_bytes(target), rel, batch)
                if new is None:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.exists():
                    os.chmod(target, 0o644)
                target.write_bytes(new)
                self.own_sources[rel] = new
                self.archived += added
        finally:
            self._lock_sources()
        self.fingerprint = self.source_stats()

    def merge_archive(self, rel: str, data: bytes) -> list[str]:
        """Sync: put `data` at `rel` (`sources/…`), an archive holding every record the
        staged one holds, byte for byte (records are added, never rewritten; the order may be
        the remote's, so that both machines end with the same bytes). Returns the anchors of
        its records as root targets."""
        live = read_bytes(self.root / rel)
        scan = scan_archive(data, rel)
        if not scan.complete or not is_v2_path(rel):
            raise ArchiveError(f"invalid or truncated v2 archive: {rel}")
        if live is not None and not data.startswith(live.rstrip(b"\n")):
            before = scan_archive(live, rel)
            if not before.complete or any(scan.by_id.get(f.source_id) is None or scan.by_id[f.source_id].lines != f.lines
                                          or scan.by_id[f.source_id].meta != f.meta for f in before.frames):
                raise ArchiveError(f"{rel}: an incoming archive may only add records")
        existing = [f"sources/{r}" for r in self.baseline.sources] + list(self.own_sources)
        if bad := colliding_paths([rel], existing):
            raise ArchiveError(f"archive path collides with an existing one: {bad[0]}")
        self._unlock_sources()
        try:
            target = self.root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                os.chmod(target, 0o644)
            target.write_bytes(data)
            self.own_sources[rel] = data
        finally:
            self._lock_sources()
        self.fingerprint = self.source_stats()
        return [f"{rel}#{f.anchor}" for f in scan.frames]
