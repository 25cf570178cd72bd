"""`scriptorium purge`: take a secret that got in before redaction out of everything.

The one sanctioned rewrite of evidence and history (DESIGN §16). `find` lists where the
secret is: files of the state directory (sessions, sources, topics, derived views,
runtime logs and caches) and objects of every git repository in it (the memory
repository and each session's). `purge` then, under the memory write lock and each
affected session's lock: backs up what it will change (a tar.gz beside the state
directory, never inside it), rewrites each repository's history with git-filter-repo
(maintained, and made for this: every blob and commit message through one callback,
old objects expired and pruned), rewrites the files git does not track, deletes binary
caches that hold the secret (they are rebuilt), maps the audit log's commit ids to the
rewritten ones, audits the purge, and checks that the workspace still validates.

Every match becomes `[REDACTED:purged:<8 hex>]`, the same on every machine (scrub.py):
block ids, citations, links and evidence record ids are never part of it, so they stay
intact. The purge leaves a record in memory (`purges.json`, the tags only) and the map
of the memory's rewritten commits, so sync can replace the remote's history and every
other machine can replay the purge (core/sync/purges.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets as token_source
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..fsutil import is_utf8
from ..memory.audit import append_record
from ..memory.check import workspace_problems
from ..memory.lock import write_lock
from ..memory.names import printable
from ..paths import GIT_DIR, SESSIONS_REGISTRY, StatePaths
from ..sessions.paths import SessionPaths
from ..redact.key import key_path
from .purge_record import record_purge, save_commit_map
from .scrub import Scrubber

LOCK_TIMEOUT_S = 10.0
CACHE_DIR = ".scriptorium"  # runtime folders: a binary file here is a rebuildable cache


@dataclass
class Place:
    path: str  # relative to the state directory
    matches: int
    action: str = "rewrite"  # "rewrite" | "delete" (a binary cache) | "left" (binary, not ours to delete)


@dataclass
class RepoPlace:
    path: str  # the repository's work tree, relative to the state directory ("memory", "sessions/<id>")
    objects: int  # blobs and commits holding the secret


@dataclass
class PurgeReport:
    files: list[Place] = field(default_factory=list)
    repositories: list[RepoPlace] = field(default_factory=list)
    done: bool = False
    backup: str | None = None
    problems: list[str] = field(default_factory=list)  # the workspace's validation afterwards

    @property
    def found(self) -> bool:
        return bool(self.files or self.repositories)

    def to_json(self) -> dict[str, Any]:
        return {"found": self.found, "done": self.done, "backup": self.backup,
                "files": [{**p.__dict__, "path": printable(p.path)} for p in self.files],  # a name is data
                "repositories": [r.__dict__ for r in self.repositories],
                "matches": sum(p.matches for p in self.files), "problems": self.problems}


def scrubber(state_dir: Path, *, text: str | None = None, pattern: str | None = None) -> Scrubber:
    """Raises ValueError for an empty text or a bad regex."""
    if text is not None:
        if not text:
            raise ValueError("--text must not be empty")
        return Scrubber.for_text(text)
    if not pattern:
        raise ValueError("--pattern must not be empty")
    try:
        compiled = Scrubber.for_pattern(pattern)
    except re.error as exc:
        raise ValueError(f"bad --pattern: {exc}") from exc
    if compiled.pattern.search(""):
        raise ValueError("--pattern matches the empty string")
    return compiled


# -- finding ------------------------------------------------------------------------------------

def repositories(state_dir: Path) -> list[Path]:
    """The memory repository and every session repository (their work trees)."""
    paths = StatePaths(state_dir)
    out = [paths.memory] if paths.memory_git.is_dir() else []
    if paths.sessions.is_dir():
        out += sorted(d for d in paths.sessions.iterdir() if SessionPaths(d).git.is_dir() and not d.is_symlink())
    return out


def _files(state_dir: Path) -> Iterator[Path]:
    """Every file but git's object store (searched object by object instead): a
    repository's COMMIT_EDITMSG or reflogs are files like any other."""
    for root, dirs, names in os.walk(state_dir):
        if os.path.basename(root) == GIT_DIR:
            dirs[:] = [d for d in dirs if d != "objects"]
        for name in names:
            path = Path(root) / name
            if path.is_file() and not path.is_symlink():
                yield path


def _objects(repo: Path) -> Iterator[tuple[str, bytes]]:
    """(type, content) of every object in the repository, packed or loose."""
    proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    try:
        while header := proc.stdout.readline():
            _sha, kind, size = header.split()
            data = proc.stdout.read(int(size))
            proc.stdout.read(1)
            yield kind.decode(), data
    finally:
        proc.stdout.close()
        proc.wait()


def find(state_dir: Path, scrub: Scrubber) -> PurgeReport:
    report = PurgeReport()
    key_file = key_path(state_dir)
    for path in _files(state_dir):
        if path == key_file:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        count = scrub.found(data)
        if count:
            rel = path.relative_to(state_dir).as_posix()
            binary = not is_utf8(data)
            action = "rewrite" if not binary else ("delete" if CACHE_DIR in Path(rel).parts else "left")
            report.files.append(Place(rel, count, action))
    for repo in repositories(state_dir):
        n = sum(1 for kind, data in _objects(repo) if kind in ("blob", "commit") and scrub.found(data))
        if n:
            report.repositories.append(RepoPlace(repo.relative_to(state_dir).as_posix(), n))
    return report


# -- purging ------------------------------------------------------------------------------------

def purge(state_dir: Path, scrub: Scrubber, report: PurgeReport, *, backup: bool = True,
          record: bool = True) -> PurgeReport:
    """Rewrite everything `find` reported (`report`), then check the workspace. A replay of
    a purge made elsewhere (sync) makes no backup (it would keep the secret beside the
    state) and no record (the one it replays is there)."""
    paths = StatePaths(state_dir)
    if not report.found:
        return report
    if backup:
        report.backup = str(_backup(state_dir, report))
    paths.runtime.mkdir(parents=True, exist_ok=True)
    with write_lock(paths.runtime, LOCK_TIMEOUT_S), contextlib.ExitStack() as locks:
        touched = {_session_of(p.path) for p in report.files} | {_session_of(r.path) for r in report.repositories}
        for rel in sorted(s for s in touched if s is not None):
            session = SessionPaths(state_dir / rel)
            session.runtime.mkdir(exist_ok=True)
            locks.enter_context(FileLock(str(session.lock), timeout=LOCK_TIMEOUT_S))
            _commit_leftovers(state_dir / rel)  # marks await their commit: the rewrite must keep them
        renames: dict[str, str] = {}
        for repo in report.repositories:
            rewritten = _rewrite_history(state_dir / repo.path, scrub)
            renames.update(rewritten)
            if state_dir / repo.path == paths.memory:
                save_commit_map(paths.runtime, rewritten)
        for place in report.files:
            path = state_dir / place.path
            if not path.exists():
                continue
            if place.action == "delete":
                path.unlink()
            elif place.action == "rewrite":
                new = scrub.bytes(path.read_bytes())
                if new is not None:
                    _rewrite_file(path, new)
        if renames:
            _map_commits(paths.runtime, renames)
        _audit(state_dir, report)
    if record and scrub.tags and paths.memory_git.is_dir():
        record_purge(state_dir, scrub.tags)
    report.problems = workspace_problems(state_dir)
    report.done = True
    return report


def _commit_leftovers(d: Path) -> None:
    from ..sessions import repo as session_git

    if SessionPaths(d).git.is_dir() and session_git.flag_is_up(d):
        if paths := session_git.leftovers(d):
            session_git.commit_paths(d, paths, "recover: files an interrupted write left uncommitted")
        session_git.set_flag(d, False)


def _session_of(rel: str) -> str | None:
    parts = rel.split("/")
    return "/".join(parts[:2]) if len(parts) >= 2 and parts[0] == "sessions" and parts[1] != SESSIONS_REGISTRY else None


def _rewrite_file(path: Path, data: bytes) -> None:
    mode = path.stat().st_mode & 0o7777
    tmp = path.with_name(f".{path.name}.purge-{token_source.token_hex(4)}")
    tmp.write_bytes(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _backup(state_dir: Path, report: PurgeReport) -> Path:
    """A tar.gz of every repository and file the purge changes, beside the state directory
    (it holds the secret: delete it once the purge is checked)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    target = state_dir.parent / f"{state_dir.name}.purge-backup-{stamp}-{token_source.token_hex(3)}.tar.gz"
    members = sorted({r.path for r in report.repositories} | {p.path for p in report.files})
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh, tarfile.open(fileobj=fh, mode="w:gz") as tar:
        done: set[str] = set()
        for rel in members:
            if any(rel == d or rel.startswith(d + "/") for d in done):
                continue
            tar.add(state_dir / rel, arcname=f"{state_dir.name}/{rel}")
            done.add(rel)
    return target


@contextlib.contextmanager
def _quiet_fd1() -> Iterator[None]:
    """git-filter-repo prints, and its git children write to fd 1: keep our --json clean."""
    saved = os.dup(1)
    with open(os.devnull, "wb") as null:
        os.dup2(null.fileno(), 1)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def _rewrite_history(repo: Path, scrub: Scrubber) -> dict[str, str]:
    """Every commit of every ref rewritten with the secret scrubbed from blobs and
    messages; old objects expired and pruned. Returns old commit id -> new."""
    import git_filter_repo as fr

    def blob(b: Any, _meta: Any) -> None:
        new = scrub.bytes(b.data)
        if new is not None:
            b.data = new

    def commit(c: Any, _meta: Any) -> None:
        text = c.message.decode("utf-8", "surrogateescape")
        new = scrub.text(text)
        if new != text:
            c.message = new.encode("utf-8", "surrogateescape")

    cwd = os.getcwd()
    os.chdir(repo)
    try:
        args = fr.FilteringOptions.parse_args(["--force", "--quiet", "--sensitive-data-removal", "--no-fetch"])
        with _quiet_fd1():
            fr.RepoFilter(args, blob_callback=blob, commit_callback=commit).run()
    finally:
        os.chdir(cwd)
    meta = repo / GIT_DIR / "filter-repo"
    renames: dict[str, str] = {}
    commit_map = meta / "commit-map"
    if commit_map.is_file():
        for line in commit_map.read_text().splitlines()[1:]:
            old, _, new = line.partition(" ")
            if old and new and old != new:
                renames[old] = new
    shutil.rmtree(meta, ignore_errors=True)  # a later run must not take itself for a continuation
    return renames


def _map_commits(runtime: Path, renames: dict[str, str]) -> None:
    """Runtime files naming rewritten commits (the audit log, counters) name the new ones."""
    hexes = re.compile(r"\b[0-9a-f]{40}\b")
    for path in sorted(runtime.glob("*.json*")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        new = hexes.sub(lambda m: renames.get(m.group(0), m.group(0)), text)
        if new != text:
            _rewrite_file(path, new.encode("utf-8"))


def _audit(state_dir: Path, report: PurgeReport) -> None:
    paths = StatePaths(state_dir)
    head = None
    if paths.memory_git.is_dir():
        done = subprocess.run(["git", "-C", str(paths.memory), "rev-parse", "--verify", "-q", "HEAD"],
                              capture_output=True, text=True)
        head = done.stdout.strip() or None
    from ..sessions.marker import workspace_id

    matches = sum(p.matches for p in report.files)
    record = {
        "txn": token_source.token_hex(8), "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "kind": "purge", "summary": f"purge: {matches} occurrence(s) in {len(report.files)} file(s), "
                                   f"{len(report.repositories)} repository history(ies) rewritten",
        "changed_files": [printable(p.path) for p in report.files], "created_blocks": [], "retired": [], "archived": [],
        "repositories": [r.path for r in report.repositories], "backup": report.backup, "commit": head,
        "workspace": workspace_id(state_dir), "redactions": {"purged": matches},
    }
    append_record(paths.runtime, record)


def describe(report: PurgeReport) -> str:
    """Where the secret is, for a person (never the secret itself)."""
    lines = []
    for p in report.files:
        note = {"delete": " (a binary cache: deleted, rebuilt when needed)",
                "left": " (binary: not rewritten)"}.get(p.action, "")
        lines.append(f"  {p.matches:>5}  {printable(p.path)}{note}")
    for r in report.repositories:
        lines.append(f"  {r.objects:>5}  {r.path}/.git (history: objects holding it)")
    return "\n".join(lines)

