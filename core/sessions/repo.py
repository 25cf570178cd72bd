"""The git side of a session directory: one repository per session (formats §1).

Repositories are created with Scriptorium's identity and `.scriptorium/` excluded;
commits stage exactly the paths they name. Plain `git` processes, no GitPython: these
few commands are all a session needs, and `session append` should not pay for loading
it. A write that puts files on disk ahead of their commit raises a flag in `.scriptorium/uncommitted` first and lowers it after
the commit, so whatever a killed writer left behind is found — by one stat — and
committed by the next writer (`leftovers`).
"""

from __future__ import annotations

import os
from pathlib import Path

from .nodes import FILENAME_RE
from .paths import COMMITTED_RELS, GIT_EXCLUDE, HISTORY_REL, UNCOMMITTED_REL, SessionPaths

GIT_NAME = "Scriptorium"
GIT_EMAIL = "scriptorium@local"


class GitError(RuntimeError):
    """A git command failed (its stderr is the message)."""


def git(d: Path, *args: str) -> str:
    """Run `git args...` in the session directory `d`; its stdout."""
    import subprocess  # here and below: reading a session never loads it

    done = subprocess.run(["git", *args], cwd=d, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        error = GitError(f"git {args[0]} failed in {d}: {done.stderr.strip() or done.returncode}")
        raise error from _os_cause(done.stderr)
    return done.stdout


_OS_CAUSES = (("no space left on device", "ENOSPC"), ("out of diskspace", "ENOSPC"), ("disk quota", "EDQUOT"),
              ("read-only file system", "EROFS"), ("permission denied", "EACCES"))


def _os_cause(stderr: str) -> OSError | None:
    """The lasting OS condition git's message names, if any (a full disk is DISK_FULL to the
    CLI, not an internal error)."""
    import errno

    text = stderr.lower()
    for needle, name in _OS_CAUSES:
        if needle in text:
            code = getattr(errno, name)
            return OSError(code, os.strerror(code))
    return None


READY = "scriptorium-ready"  # in .git/: written once init and identity are complete


def open_repo(d: Path) -> Path:
    """Make sure the session directory `d` is a repository (created when there is none yet,
    completed when a killed `git init` or `git config` left it half made); `d`."""
    ready = SessionPaths(d).git / READY
    if not ready.exists():
        for attempt in range(5):  # two importers may create one session at once: git init is idempotent
            try:
                git(d, "init", "--quiet", "--initial-branch=main")
                git(d, "config", "user.name", GIT_NAME)
                git(d, "config", "user.email", GIT_EMAIL)
                ready.write_bytes(b"")
                break
            except (GitError, OSError):
                if attempt == 4:
                    raise
                import time

                time.sleep(0.05 * (attempt + 1))
    ensure_excluded(d)
    return d


def ensure_excluded(d: Path) -> None:
    exclude = SessionPaths(d).git_exclude
    try:
        text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    except OSError:
        return
    if GIT_EXCLUDE not in text.splitlines():
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with exclude.open("a", encoding="utf-8") as fh:
            fh.write(("" if text.endswith("\n") or not text else "\n") + GIT_EXCLUDE + "\n")


def commit_paths(d: Path, paths: list[str], message: str) -> None:
    """Stage the given paths as they are on disk and commit. However many there are (a
    recovery after a killed import commits tens of thousands): the paths reach git on
    stdin, never argv (E2BIG), and from MIN_FILES on they are committed as one pack (no
    loose object per file). A named path that is gone leaves git's index too: a failed
    append that staged its node file before removing it again (see `unstage`) must not
    have the next commit bring the node back."""
    from .pack import MIN_FILES, PackedCommit  # here: a reader of sessions never commits

    existing = sorted({p for p in paths if (d / p).exists()})
    present = set(existing)
    gone = sorted({p for p in paths if p not in present})
    if not gone and len(existing) >= MIN_FILES and not _in_head(d, existing) and PackedCommit.of_files(
            d, existing, message, name=GIT_NAME, email=GIT_EMAIL):
        return
    if existing:
        stage(d, existing)
    if gone:
        stage(d, gone, remove=True)
    git(d, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", message)


def _in_head(d: Path, paths: list[str]) -> bool:
    """Is the newest node file among `paths` committed already? Then git's index merely lags
    behind HEAD (a kill between a packed commit and its index sync): the blobs exist, and
    `stage` only hashes; a pack would read and stream every file once more."""
    nodes = [p for p in paths if p.startswith(HISTORY_REL + "/")]
    return bool(nodes) and committed(d, nodes[-1])


def stage(d: Path, paths: list[str], *, remove: bool = False) -> None:
    """`git add` of files (`remove`: `git rm --cached` of paths gone from disk), given on
    stdin: linear in their number (`git add --pathspec-from-file` matches every pathspec
    against every file, quadratic), and no argument list to overflow."""
    import subprocess

    listing = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    how = "--force-remove" if remove else "--add"
    done = subprocess.run(["git", "update-index", how, "-z", "--stdin"], cwd=d, input=listing,
                          capture_output=True, check=False)
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        raise GitError(f"git update-index failed in {d}: {stderr.strip() or done.returncode}") from _os_cause(stderr)


def unstage(d: Path, paths: list[str]) -> None:
    """Put git's index back to the last commit for `paths` (after a commit that failed)."""
    git(d, "reset", "--quiet", "--", *paths)


def committed(d: Path, path: str) -> bool:
    """Does the last commit hold `path`?"""
    import subprocess

    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"HEAD:{path}"], cwd=d,
                          capture_output=True, check=False)
    return done.returncode == 0


def leftovers(d: Path) -> list[str]:
    """Node files and meta.json that differ from the last commit (never a stray temp file)."""
    import subprocess

    status = subprocess.run(["git", "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--",
                             *COMMITTED_RELS], cwd=d, capture_output=True, check=False)
    if status.returncode != 0:
        return []
    paths = [entry[3:].decode("utf-8", "surrogateescape") for entry in status.stdout.split(b"\0") if len(entry) > 3]
    prefix = HISTORY_REL + "/"
    return sorted(p for p in paths if not p.startswith(prefix) or FILENAME_RE.match(p[len(prefix):]))


def flag_is_up(d: Path) -> bool:
    try:
        return SessionPaths(d).uncommitted.stat().st_size > 0
    except OSError:
        return False


def set_flag(d: Path | str, up: bool) -> None:
    """Rewritten in place (never created and deleted per write: cheap on every disk). Raised
    without a truncation, and not rewritten when it is up already (marks raise it over and
    over until a writer commits): a truncate-then-write has ext4 start the file's writeback
    at close (its replace-via-truncate heuristic), which on a busy disk waits."""
    path = f"{d}/{UNCOMMITTED_REL}"
    try:
        if not up:
            with open(path, "wb"):
                pass
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            if os.pread(fd, 1, 0) != b"1":
                os.pwrite(fd, b"1", 0)
        finally:
            os.close(fd)
    except OSError:
        pass  # without the flag, recovery merely waits for someone to notice
