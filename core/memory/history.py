"""The workspace's git repository (GitPython): one commit per installed transaction.

Only the visible memory is versioned — topics, sources, the derived views; the
runtime directory is excluded (`.git/info/exclude`). Each commit message names the
transaction's kind and summary and carries a `Scriptorium-Transaction:` trailer, so
crash recovery can tell whether a transaction's commit was already made.
"""

from __future__ import annotations

import time
from pathlib import Path

import git

from ..git_locks import clear_stale_locks
from ..paths import RUNTIME_DIR

VERSIONED = ("core.md", "recent_events.jsonl", "commitments.jsonl", "relations.json", "sources", "topics", "timeline",
             "workspaces.json")  # the workspaces sharing this memory through sync (sessions/marker.py)
# Ignore everything at the top but the versioned names, so one `git add -A` stages
# exactly the memory (and deletions), whichever of those names exist right now.
EXCLUDES = ("/.scriptorium*", "/.nativemem*", "/*", *(f"!/{name}" for name in VERSIONED))
TRAILER = "Scriptorium-Transaction:"
READY_MARKER = "scriptorium-memory-ready"
INIT_LOCK = "init.lock"  # in the runtime directory: held while the repository is first made
USER_NAME, USER_EMAIL = "Scriptorium Memory", "memory@scriptorium.local"


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
    repo = git.Repo.init(root)  # idempotent: also completes a killed `git init`
    with repo.config_reader() as reader:
        has_name = reader.has_option("user", "name")
        has_email = reader.has_option("user", "email")
    if not (has_name and has_email):
        with repo.config_writer() as writer:
            if not has_name:
                writer.set_value("user", "name", USER_NAME)
            if not has_email:
                writer.set_value("user", "email", USER_EMAIL)
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    missing = [e for e in EXCLUDES if e not in current.splitlines()]
    if missing:
        exclude.write_text(current + ("" if not current or current.endswith("\n") else "\n") + "\n".join(missing) + "\n",
                           encoding="utf-8")
    if not repo.head.is_valid():
        stage_all(repo)
        repo.git.commit("-q", "--no-verify", "--allow-empty", "-m", "memory: initialize history")
    (root / ".git" / READY_MARKER).write_text("ready\n", encoding="utf-8")
    return repo


def stage_all(repo: git.Repo) -> None:
    repo.git.add("-A")


def commit(repo: git.Repo, message: str, txn: str) -> str | None:
    """Commit the versioned files; None when git sees nothing to commit."""
    stage_all(repo)
    status, out, err = repo.git.execute(
        ["git", "commit", "-q", "--no-verify", "-m", f"{message}\n\n{TRAILER} {txn}"],
        with_exceptions=False, with_extended_output=True,
    )
    if status != 0:
        if "nothing to commit" in out + err or "no changes added" in out + err:
            return None
        raise git.GitCommandError(["git", "commit"], status, err)
    return repo.head.commit.hexsha


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
