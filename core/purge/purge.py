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

A name holds the secret too: a topic file whose path does (`topics/vault-S.md`) is renamed
in every commit (its tree objects included) and in the work tree, and every link, derived
view and log naming it names the new file (scrub.py). Any other name holding it (an
archive's, a session's file) is left as it is and reported: the purge then exits 1.

Every match becomes `[REDACTED:purged:<8 hex>]`, the same on every machine (scrub.py):
block ids, citations, links and evidence record ids are never part of it, so they stay
intact (a text or pattern matching one is refused: `ids_held`). The purge leaves a record
in memory (`purges.json`, the tags only) and the map of the memory's rewritten commits, so
sync can replace the remote's history and every other machine can replay the purge
(core/sync/purges.py).
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
from collections.abc import Callable, Iterator
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
from .purge_record import MAP_FILE, record_purge, save_commit_map
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
    objects: int  # blobs, trees (a name) and commits holding the secret


@dataclass
class Rename:
    old: str  # relative to the memory root: `topics/…` (holds the secret: never shown)
    new: str


@dataclass
class PurgeReport:
    files: list[Place] = field(default_factory=list)
    repositories: list[RepoPlace] = field(default_factory=list)
    done: bool = False
    backup: str | None = None
    problems: list[str] = field(default_factory=list)  # names left as they are, the workspace's validation afterwards
    renames: list[Rename] = field(default_factory=list)  # topic files whose name holds it
    names_left: list[str] = field(default_factory=list)  # other names holding it, as `shown`
    shown: Callable[[str], str] = field(default=str, repr=False)  # a path as it may be printed (Scrubber.shown)

    @property
    def found(self) -> bool:
        return bool(self.files or self.repositories or self.renames or self.names_left)

    def to_json(self) -> dict[str, Any]:
        return {"found": self.found, "done": self.done, "backup": self.backup,
                "files": [{**p.__dict__, "path": printable(self.shown(p.path))} for p in self.files],  # a name is data
                "repositories": [r.__dict__ for r in self.repositories],
                "renamed": [printable(r.new) for r in self.renames],
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


def ids_held(state_dir: Path, scrub: Scrubber) -> list[str]:
    """The ids a match would rewrite, each with where it is: block ids, footnote ids, cited
    sources' addresses, evidence record ids. An id is no secret, and a topic or archive
    whose id changed no longer parses (`get` fails): purge refuses these."""
    paths = StatePaths(state_dir)
    if not paths.memory_git.is_dir():
        return []
    from ..memory.sources import scan_archive
    from ..memory.workspace import Workspace

    ws, out = Workspace(state_dir), []
    hit = scrub.pattern.search
    for rel in ws.topic_paths():
        doc = ws.topic(rel)
        if doc is None:
            continue
        out += [f"block id ^{b} (topics/{rel})" for b in dict.fromkeys(b for b, _ in doc.block_ids) if hit(b)]
        out += [f"footnote id [^{d.id}] (topics/{rel})" for d in doc.definition_list if hit(d.id)]
        out += [f"cited source {t} (topics/{rel})" for t in sorted(doc.cited_targets) if hit(t)]
    for archive in sorted(ws.sources.rglob("*.md")):
        rel = archive.relative_to(paths.memory).as_posix()
        scan = scan_archive(archive.read_bytes(), rel)
        out += [f"evidence record {f.source_id} ({rel})" for f in scan.by_id.values() if hit(f.source_id) or hit(f.anchor)]
    return out


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


def _history_paths(repo: Path) -> set[str]:
    """Every path any commit of any ref holds (each appears in some commit's changes)."""
    done = subprocess.run(["git", "-C", str(repo), "-c", "core.quotepath=off", "log", "--all", "-m", "--no-renames",
                           "--format=", "--name-only", "-z"], capture_output=True)
    return {p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p.strip(b"\n")} - {""} \
        if done.returncode == 0 else set()


def _tip_paths(repo: Path) -> list[set[str]]:
    """The paths of each ref's tip: a rename whose new name is taken beside the old one is
    not made (an old name in one history and its new name in another do not clash: that
    is a purge replayed over the commits fetched from a machine that made it)."""
    tips = subprocess.run(["git", "-C", str(repo), "for-each-ref", "--format=%(objectname)"],
                          capture_output=True, text=True).stdout.split()
    out = []
    for tip in dict.fromkeys(tips):
        listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", "--name-only", tip],
                                 capture_output=True).stdout
        out.append({p.decode("utf-8", "surrogateescape") for p in listing.split(b"\0") if p})
    return out


def _tree_names(data: bytes) -> Iterator[bytes]:
    """The entry names of a tree object (`<mode> <name>\\0<20-byte id>` each)."""
    pos = 0
    while (space := data.find(b" ", pos)) != -1 and (nul := data.find(b"\0", space)) != -1:
        yield data[space + 1:nul]
        pos = nul + 21


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


def _holds(scrub: Scrubber, kind: str, data: bytes) -> bool:
    if kind == "tree":
        return scrub.may_hold(data) and any(scrub.found(name) for name in _tree_names(data))
    return kind in ("blob", "commit") and bool(scrub.found(data))


def _names(state_dir: Path, scrub: Scrubber, report: PurgeReport) -> None:
    """Which names hold the secret: topic files are renamed (`report.renames`, and `scrub`
    renames what names them), every other name is reported (`report.names_left`)."""
    paths = StatePaths(state_dir)
    memory = paths.memory.relative_to(state_dir).as_posix()
    tracked = _history_paths(paths.memory) if paths.memory_git.is_dir() else set()
    topics = "topics/"
    old = sorted(p for p in tracked if p.startswith(topics) and scrub.pattern.search(p[len(topics):]))
    new = {p: topics + scrub.name(p[len(topics):]) for p in old}  # tags given out: the purge record lists them
    tips = _tip_paths(paths.memory) if old else []
    taken = {n for n in new.values() if list(new.values()).count(n) > 1}
    renamed = {p: n for p, n in new.items() if n not in taken and not any(p in t and n in t for t in tips)}
    report.renames = [Rename(p, n) for p, n in sorted(renamed.items())]
    scrub.rename(renamed)
    left = {f"{memory}/{p}" for p in tracked if p not in renamed and scrub.pattern.search(p)}
    for repo in repositories(state_dir):
        if repo != paths.memory:
            rel = repo.relative_to(state_dir).as_posix()
            left |= {f"{rel}/{p}" for p in _history_paths(repo) if scrub.pattern.search(p)}
    for path in _files(state_dir):
        rel = path.relative_to(state_dir).as_posix()
        if scrub.pattern.search(rel) and rel.removeprefix(memory + "/") not in renamed and GIT_DIR not in path.parts:
            left.add(rel)
    report.names_left = sorted(printable(scrub.shown(p)) for p in left)


def find(state_dir: Path, scrub: Scrubber) -> PurgeReport:
    report = PurgeReport(shown=scrub.shown)
    _names(state_dir, scrub, report)
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
        n = sum(1 for kind, data in _objects(repo) if _holds(scrub, kind, data))
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
    edits: dict[Path, dict[str, bytes | None]] = {}  # repository -> its edits in progress, put back at the end
    try:
        with write_lock(paths.runtime, LOCK_TIMEOUT_S), contextlib.ExitStack() as locks:
            touched = {_session_of(p.path) for p in report.files} | {_session_of(r.path) for r in report.repositories}
            for rel in sorted(s for s in touched if s is not None):
                session = SessionPaths(state_dir / rel)
                session.runtime.mkdir(exist_ok=True)
                locks.enter_context(FileLock(str(session.lock), timeout=LOCK_TIMEOUT_S))
                _commit_leftovers(state_dir / rel)  # marks await their commit: the rewrite must keep them
            renames: dict[str, str] = {}
            for repo in report.repositories:
                is_memory = state_dir / repo.path == paths.memory
                edits[state_dir / repo.path] = _edits_in_progress(state_dir / repo.path)
                rewritten = _rewrite_history(state_dir / repo.path, scrub, rename=is_memory and bool(report.renames))
                renames.update(rewritten)
                if is_memory:
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
        # checked before the edits in progress return: they are a person's, not the purge's to validate
        report.problems = [f"{name}: the name holds it and is not renamed (only topic files are)"
                           for name in report.names_left] + workspace_problems(state_dir)
    finally:
        for where, found in edits.items():
            _restore_edits(where, found, scrub)
    report.done = True
    return report


def _edits_in_progress(repo: Path) -> dict[str, bytes | None]:
    """Tracked files changed in the work tree and not committed (a topic open in an editor):
    path -> bytes on disk, None when deleted. The history rewrite checks the tree out anew,
    which would throw them away."""
    listing = subprocess.run(["git", "-C", str(repo), "-c", "core.quotepath=off", "status", "--porcelain=v1",
                              "-z", "--untracked-files=no", "--no-renames"], capture_output=True).stdout
    edits: dict[str, bytes | None] = {}
    for item in listing.split(b"\0"):
        if len(item) < 4:
            continue
        path = item[3:].decode("utf-8", "surrogateescape")
        on_disk = repo / path
        edits[path] = on_disk.read_bytes() if on_disk.is_file() else None
    return edits


def _restore_edits(repo: Path, edits: dict[str, bytes | None], scrub: Scrubber) -> None:
    """Put the edits in progress back after the rewrite, scrubbed like everything else and
    under their new names where purge renamed the file; still uncommitted."""
    for path, data in edits.items():
        target = repo / scrub.renamed.get(path, path)
        if data is None:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(scrub.bytes(data) or data)  # the tree checkout just wrote this file: no one else's bytes


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


def _rewrite_history(repo: Path, scrub: Scrubber, *, rename: bool = False) -> dict[str, str]:
    """Every commit of every ref rewritten with the secret scrubbed from blobs and
    messages (and, with `rename`, from the names of topic files); old objects expired and
    pruned, the work tree checked out anew. Returns old commit id -> new."""
    import git_filter_repo as fr

    def filename(name: bytes) -> bytes:
        path = name.decode("utf-8", "surrogateescape")
        new = scrub.renamed.get(path) if path.startswith("topics/") else None
        return name if new is None else new.encode("utf-8", "surrogateescape")

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
            fr.RepoFilter(args, blob_callback=blob, commit_callback=commit,
                          filename_callback=filename if rename else None).run()
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
        if path.name == MAP_FILE:
            continue  # old -> new by design: mapped, it read new -> new and sync could not replace the remote
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
        "changed_files": [printable(report.shown(p.path)) for p in report.files],
        "renamed": [printable(r.new) for r in report.renames], "created_blocks": [], "retired": [], "archived": [],
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
        lines.append(f"  {p.matches:>5}  {printable(report.shown(p.path))}{note}")
    for r in report.repositories:
        lines.append(f"  {r.objects:>5}  {r.path}/.git (history: objects holding it)")
    for rename in report.renames:
        lines.append(f"         memory/{printable(rename.new)} (its name holds it: renamed, links to it rewritten)")
    for name in report.names_left:
        lines.append(f"         {name} (its name holds it: not renamed, only topic files are)")
    return "\n".join(lines)

