"""The workspace's git repository (GitPython): one commit per installed transaction.

Only the visible memory is versioned — topics, sources, the derived views; the
runtime directory is excluded (`.git/info/exclude`). Each commit message names the
transaction's kind and summary and carries a `Scriptorium-Transaction:` trailer, so
crash recovery can tell whether a transaction's commit was already made.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

import git

from ..git_locks import clear_stale_locks
from ..paths import RUNTIME_DIR

VERSIONED = ("core.md", "recent_events.jsonl", "commitments.jsonl", "relations.json", "sources", "topics", "timeline",
             "workspaces.json",  # the workspaces sharing this memory through sync (sessions/marker.py)
             "purges.json")  # the tags of purged secrets, replayed by every machine (purge/purge_record.py)
# Ignore everything at the top but the versioned names, so the first commit's `git add -A`
# stages exactly the memory; later commits take only an install's own paths (`commit`).
EXCLUDES = ("/.scriptorium*", "/.nativemem*", "/*", *(f"!/{name}" for name in VERSIONED))
TRAILER = "Scriptorium-Transaction:"
READY_MARKER = "scriptorium-memory-ready"
INIT_LOCK = "init.lock"  # in the runtime directory: held while the repository is first made
USER_NAME, USER_EMAIL = "Scriptorium Memory", "memory@scriptorium.local"
BRANCH = "main"  # the memory branch on every machine and on every remote
# Machine commits carry this identity whatever the user's git config says (or lacks): a state
# made under one HOME must write under another, and a test run with an empty HOME must pass.
IDENTITY_ENV = {"GIT_AUTHOR_NAME": USER_NAME, "GIT_AUTHOR_EMAIL": USER_EMAIL,
                "GIT_COMMITTER_NAME": USER_NAME, "GIT_COMMITTER_EMAIL": USER_EMAIL}


def ensure_repo(root: Path) -> git.Repo:
    """Open the repository, creating it (and a first commit of what is there) if needed."""
    if (root / ".git" / READY_MARKER).is_file():
        return git.Repo(root)
    from filelock import FileLock

    runtime = root / RUNTIME_DIR
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Its own lock (not write.lock, which a transaction opening the repository holds):
    # two first opens initialize once, and a git lock older than our hold is a killed
    # first commit's (git_locks.py).
    with FileLock(str(runtime / INIT_LOCK), mode=0o600, thread_local=False):
        clear_stale_locks(root / ".git", time.time())
        return _initialize(root)


def _initialize(root: Path) -> git.Repo:
    """Identity, excludes and the first commit, each skipped when already there (a killed
    earlier first open is completed); then the ready marker."""
    fresh = not (root / ".git").is_dir()
    repo = git.Repo.init(root, initial_branch=BRANCH)  # idempotent: also completes a killed `git init`
    if fresh or not repo.head.is_valid():
        repo.git.symbolic_ref("HEAD", f"refs/heads/{BRANCH}")  # whatever init.defaultBranch says
    with repo.config_reader("repository") as reader:  # this repository's own, whatever the user's global says
        missing = [key for key in ("name", "email") if not reader.has_option("user", key)]
    if missing:  # a person's `git commit` in memory works too; ours pass IDENTITY_ENV anyway
        with repo.config_writer("repository") as writer:
            for key in missing:
                writer.set_value("user", key, USER_NAME if key == "name" else USER_EMAIL)
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    missing = [e for e in EXCLUDES if e not in current.splitlines()]
    if missing:
        exclude.write_text(current + ("" if not current or current.endswith("\n") else "\n") + "\n".join(missing) + "\n",
                           encoding="utf-8")
    if not repo.head.is_valid():
        stage_all(repo)
        repo.git.commit("-q", "--no-verify", "--allow-empty", "-m", "memory: initialize history", env=IDENTITY_ENV)
    (root / ".git" / READY_MARKER).write_text("ready\n", encoding="utf-8")
    return repo


def stage_all(repo: git.Repo) -> None:
    """Stage everything versioned: only for the first commit, which takes what is there."""
    repo.git.add("-A")


COMMIT_INDEX = "scriptorium-commit.index"  # in .git: the temporary index an install commits from


def versioned_paths(paths: Iterable[str]) -> list[str]:
    """The paths under the versioned names (the runtime directory's and any other stay out)."""
    return sorted({p for p in paths if p.split("/", 1)[0] in VERSIONED})


def _git(repo: git.Repo, *args: str, stdin: bytes | None = None, index: Path | None = None) -> str:
    env = {**os.environ, **IDENTITY_ENV}
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    proc = subprocess.run(["git", *args], cwd=repo.working_tree_dir, input=stdin, capture_output=True, env=env)
    if proc.returncode != 0:
        raise git.GitCommandError(["git", *args], proc.returncode, proc.stderr)
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


def _nul_list(paths: list[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def commit(repo: git.Repo, message: str, txn: str, paths: Iterable[str]) -> str | None:
    """Commit exactly `paths` (as they are in the working tree now; a missing file is a
    deletion) on top of HEAD; None when that changes nothing.

    The commit is built in a temporary index read from HEAD, never in the person's own
    index: whatever they staged or left untracked in the memory repository stays as it
    was, out of the commit (a staged hand edit is not "installed" by the next writer).
    The paths reach git NUL-separated on stdin (`update-index -z --stdin`), literal (no
    pathspec globbing) and never on the command line, so thousands never hit E2BIG.
    HEAD moves by `update-ref` with the old value checked. Then the person's index is
    brought up to date for these paths only (`sync_index`), so `git status` shows them
    clean. The caller holds the workspace write lock, which also guards the temporary index."""
    wanted = versioned_paths(paths)
    if not wanted:
        return None
    git_dir = Path(repo.git_dir)
    index = git_dir / COMMIT_INDEX
    for stale in (index, git_dir / f"{COMMIT_INDEX}.lock"):  # a killed earlier install's
        stale.unlink(missing_ok=True)
    parent = head_sha(repo)
    try:
        _git(repo, "read-tree", *([parent] if parent else ["--empty"]), index=index)
        _git(repo, "update-index", "-z", "--add", "--remove", "--replace", "--stdin", stdin=_nul_list(wanted),
             index=index)
        tree = _git(repo, "write-tree", index=index)
    finally:
        index.unlink(missing_ok=True)
    if parent is not None and tree == _git(repo, "rev-parse", f"{parent}^{{tree}}"):
        return None
    body = f"{message}\n\n{TRAILER} {txn}\n"
    sha = _git(repo, "commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-", stdin=body.encode("utf-8"))
    _git(repo, "update-ref", "-m", f"commit: {message}", "HEAD", sha, parent or "")
    sync_index(repo, wanted)
    return sha


def sync_index(repo: git.Repo, paths: Iterable[str]) -> None:
    """Bring the person's index up to the working tree for `paths` (an install's, just
    committed) and leave every other entry alone. Best effort: a git of theirs holding the
    index right now leaves these entries stale (the commit is made either way)."""
    wanted = versioned_paths(paths)
    if not wanted:
        return
    try:
        if not (Path(repo.git_dir) / "index").exists():  # no index at all: start from HEAD's, not from nothing
            _git(repo, "read-tree", "HEAD")
        _git(repo, "update-index", "-z", "--add", "--remove", "--replace", "--stdin", stdin=_nul_list(wanted))
    except git.GitCommandError:
        pass


def head_transaction(repo: git.Repo) -> str | None:
    """The transaction id of HEAD's commit, if it was made by a transaction."""
    if not repo.head.is_valid():
        return None
    for line in reversed(str(repo.head.commit.message).splitlines()):
        if line.startswith(TRAILER):
            return line[len(TRAILER):].strip()
    return None


def head_sha(repo: git.Repo) -> str | None:
    return repo.head.commit.hexsha if repo.head.is_valid() else None
