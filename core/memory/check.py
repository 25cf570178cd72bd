"""Does the whole workspace validate as it stands? For operations that rewrite it outside
a transaction (`purge`), which must leave it valid: no half-done install, git agreeing
with the files, every topic parsing with unique block ids, links and citations resolving,
archives readable to their end, and HEAD holding the newest audited commit."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Collection
from pathlib import Path

from ..paths import StatePaths
from . import install
from .names import name_problem, printable
from .sources import SourceIndex, scan_archive
from .topics import UNUSED_DEFINITION, parse_cached, resolve_topic_link
from .workspace import Workspace


def workspace_problems(state_dir: Path, *, edits_in_progress: Collection[str] = ()) -> list[str]:
    """Everything wrong with the workspace; [] = it validates. Topics named in
    `edits_in_progress` (`topics/x.md`: changed by a person, not yet saved) are left out."""
    paths = StatePaths(Path(state_dir))
    root = paths.memory
    if not (root / ".git").is_dir():
        return []
    out = []
    if (paths.runtime / install.JOURNAL).exists() or (root / install.BACKUP).exists():
        out.append("an interrupted install is left (journal or backup)")
    status = _disagreements(root, skip=edits_in_progress)
    if status:
        out.append(f"git disagrees with the files: {status[:300]!r}")
    ws = Workspace(state_dir)
    docs = {rel: parse_cached(rel, ws.read_topic(rel) or "") for rel in ws.topic_paths()}
    homes: dict[str, str] = {}
    for rel, doc in docs.items():
        if f"topics/{rel}" in edits_in_progress:
            continue
        out += [f"topics/{rel}:{i.line}: {i.rule}: {i.message}" for i in doc.issues if i.rule != UNUSED_DEFINITION]
        for bid, line in doc.block_ids:
            if bid in homes:
                out.append(f"topics/{rel}:{line}: block id ^{bid} also in topics/{homes[bid]}")
            homes.setdefault(bid, rel)
    sources = SourceIndex(root)
    for rel, doc in docs.items():
        for p in doc.paragraphs:
            for _link, path, bid in p.block_refs():
                if homes.get(bid) != resolve_topic_link(rel, path):
                    out.append(f"topics/{rel}:{p.line}: dangling link to ^{bid}")
        out += [f"topics/{rel}: cites a missing source {t}" for t in sorted(doc.cited_targets) if sources.resolve(t) is None]
    for archive in sorted(ws.sources.rglob("*.md")):
        rel = archive.relative_to(root).as_posix()
        scan = scan_archive(archive.read_bytes(), rel)
        if not scan.complete:
            out.append(f"{rel}: unreadable at line {scan.error_line}: {scan.error}")
    newest = _newest_audited_commit(paths.runtime)
    head = _git(root, "rev-parse", "-q", "--verify", "HEAD").strip()
    if newest is not None and newest != head and not _ancestor(root, newest, head):
        out.append(f"HEAD {head[:10]} does not hold the newest audited commit {newest[:10]}")
    return out


def _ancestor(root: Path, older: str, newer: str) -> bool:
    """HEAD may move past the newest audited commit (a sync's pull or merge, a person's own
    commit), never away from it (history rewritten, or put back, behind the audit log)."""
    return subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", older, newer],
                          capture_output=True).returncode == 0


def edits_in_progress(state_dir: Path) -> list[str]:
    """Topic files a person changed or added in the work tree and has not saved through
    Scriptorium (`topics/x.md`): work of theirs, not damage (a deleted topic is not one)."""
    root = StatePaths(Path(state_dir)).memory
    raw = subprocess.run(["git", "-C", str(root), "-c", "core.quotepath=off", "status", "--porcelain", "-z",
                          "--untracked-files=all", "--no-renames", "--", "topics"], capture_output=True).stdout
    out = []
    for entry in (e.decode("utf-8", "surrogateescape") for e in raw.split(b"\0") if e):
        code, path = entry[:2], entry[3:]
        if "D" not in code and path.endswith(".md") and name_problem(path[len("topics/"):]) is None:
            out.append(path)
    return out


def _disagreements(root: Path, skip: Collection[str] = ()) -> str:
    """`git status --porcelain`, less the untracked files memory skips for their names
    (names.py: `.trash/old.md`, a name that is not UTF-8): never installed, so never
    committed, and no sign of a broken workspace; less the paths in `skip`."""
    raw = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "-z", "--untracked-files=all"],
                         capture_output=True).stdout
    entries = [e.decode("utf-8", "surrogateescape") for e in raw.split(b"\0") if e]
    kept, skip_next = [], False
    for entry in entries:
        if skip_next:  # a rename's or copy's original path
            skip_next = False
            continue
        code, path = entry[:2], entry[3:]
        skip_next = code[0] in "RC"
        if path in skip:
            continue
        if code == "??" and path.startswith("topics/") and name_problem(path[len("topics/"):]) is not None:
            continue
        kept.append(f"{code} {printable(path)}")
    return "\n".join(kept)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True).stdout


def _newest_audited_commit(runtime: Path) -> str | None:
    """The commit of the newest audit record that has one, sync's aside (reads the log's
    tail only): a sync audits commits its merge then replaces (`take origin's memory`, a
    merge redone), so a synced workspace's HEAD need not hold them."""
    try:
        with open(runtime / "audit.jsonl", "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - 262_144))
            lines = fh.read().decode("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return None
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("commit") and record.get("kind") != "sync":
            return record["commit"]
    return None
