"""The memory repository's remotes, and the few git operations sync needs.

Remotes are ordinary git remotes of `<state>/memory/` (kept in its `.git/config`, so they
never travel). Memory lives on the remote's `main` branch whatever the local branch is
called; what was fetched is kept at `refs/remotes/<name>/main`.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..outcome import ScriptoriumError

BRANCH = "main"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# What git says when it cannot reach a remote at all: offline, a host that does not answer,
# a path on a drive that is not mounted. Retrying later can heal these.
_UNREACHABLE = re.compile(
    r"could not read from remote|unable to access|could not resolve host|connection (?:refused|timed out|reset)"
    r"|network is unreachable|does not appear to be a git repository|no route to host|operation timed out"
    r"|unable to connect|the remote end hung up",
    re.IGNORECASE,
)


class RemoteError(ScriptoriumError):
    code = "REMOTE_ERROR"


class RemoteUnreachable(RemoteError):
    code = "REMOTE_UNREACHABLE"
    retryable = True


@dataclass(frozen=True)
class Remote:
    name: str
    url: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "url": self.url}


def git(root: Path, *args: str, check: bool = True, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(["git", "-C", str(root), *args], input=input, capture_output=True,
                          env=_env(), timeout=600)
    if check and proc.returncode != 0:
        raise RemoteError(_message(proc))
    return proc


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait on a password prompt
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=15")
    return env


def _message(proc: subprocess.CompletedProcess[bytes]) -> str:
    text = (proc.stderr or proc.stdout or b"").decode("utf-8", "replace").strip()
    lines = [line.removeprefix("fatal: ").removeprefix("error: ") for line in text.splitlines() if line.strip()]
    return lines[0] if lines else f"git exited with {proc.returncode}"


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise RemoteError(f"invalid remote name {name!r}: letters, digits, '.', '_' and '-' only")
    return name


def list_remotes(root: Path) -> list[Remote]:
    proc = git(root, "config", "--get-regexp", r"^remote\..*\.url$", check=False)
    out = []
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        key, _, url = line.partition(" ")
        out.append(Remote(key[len("remote."):-len(".url")], url))
    return out


def local_path(url: str) -> Path | None:
    """The directory a remote URL names on this machine (a path or file://), None for a
    network URL (scheme://… or git's scp-like host:path)."""
    if url.startswith("file://"):
        return Path(url.removeprefix("file://"))
    if "://" in url or re.match(r"^[^/]+:", url):
        return None
    return Path(url).expanduser()


def add_remote(root: Path, name: str, url: str) -> Remote:
    """Add remote `name`; a local path must exist (a typo would make every sync fail) and is
    kept absolute (git would read a relative one from memory's own folder, not the caller's)."""
    check_name(name)
    if not url.strip() or url.startswith("-"):
        raise RemoteError(f"invalid remote URL {url!r}")
    if (path := local_path(url)) is not None:
        if not path.exists():
            raise RemoteError(f"no repository at {url}: the path does not exist "
                              f"(create one with `git init --bare {url}`)", code="REMOTE_NOT_FOUND")
        if not url.startswith("file://"):
            url = os.path.abspath(path)
    if any(r.name == name for r in list_remotes(root)):
        raise RemoteError(f"remote {name!r} already exists (remove it first)")
    git(root, "remote", "add", name, url)
    return Remote(name, url)


def remove_remote(root: Path, name: str) -> None:
    if not any(r.name == name for r in list_remotes(root)):
        raise RemoteError(f"no remote named {name!r}")
    git(root, "remote", "remove", name)


def tracking_ref(name: str) -> str:
    return f"refs/remotes/{name}/{BRANCH}"


def fetch(root: Path, name: str) -> str | None:
    """Fetch the remote's memory; its commit, or None for an empty remote."""
    proc = git(root, "fetch", "--quiet", "--no-tags", "--prune", name,
               f"+refs/heads/{BRANCH}:{tracking_ref(name)}", check=False)
    if proc.returncode != 0:
        message = _message(proc)
        if "couldn't find remote ref" in message.lower():
            git(root, "update-ref", "-d", tracking_ref(name), check=False)
            return None
        if _UNREACHABLE.search(message):
            raise RemoteUnreachable(f"remote {name!r} is unreachable: {message}")
        raise RemoteError(f"fetch from {name!r} failed: {message}")
    return rev(root, tracking_ref(name))


def push(root: Path, name: str, sha: str) -> bool:
    """Push `sha` as the remote's memory; False when the remote moved on (fetch and merge again)."""
    proc = git(root, "push", "--quiet", "--porcelain", name, f"{sha}:refs/heads/{BRANCH}", check=False)
    if proc.returncode == 0:
        git(root, "update-ref", tracking_ref(name), sha)
        return True
    text = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    if any(s in text for s in ("[rejected]", "non-fast-forward", "fetch first")) or (
            "[remote rejected]" in text and "lock" in text):
        return False
    message = _message(proc)
    if _UNREACHABLE.search(text):
        raise RemoteUnreachable(f"remote {name!r} is unreachable: {message}")
    raise RemoteError(f"push to {name!r} failed: {message}")


def rev(root: Path, ref: str) -> str | None:
    proc = git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def merge_base(root: Path, a: str, b: str) -> str | None:
    proc = git(root, "merge-base", a, b, check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def is_ancestor(root: Path, a: str, b: str) -> bool:
    return git(root, "merge-base", "--is-ancestor", a, b, check=False).returncode == 0


def count(root: Path, spec: str) -> int:
    proc = git(root, "rev-list", "--count", spec, check=False)
    return int(proc.stdout.decode().strip() or 0) if proc.returncode == 0 else 0


def changed_paths(root: Path, a: str, b: str) -> set[str]:
    """Paths whose bytes differ between commits `a` and `b`."""
    listing = git(root, "diff", "--no-renames", "--name-only", "-z", a, b).stdout
    return {p.decode("utf-8", "surrogateescape") for p in listing.split(b"\0") if p}


def tree_files(root: Path, sha: str | None, paths: Iterable[str]) -> dict[str, bytes]:
    """The files at `paths` (files, or folders taken whole) in commit `sha`
    ({path: bytes}); {} for None. Symlinks never come in."""
    if sha is None:
        return {}
    entries: list[tuple[str, str]] = []
    wanted = sorted(set(paths))
    for i in range(0, len(wanted), 500):  # argument lists stay short whatever the change
        listing = git(root, "ls-tree", "-r", "-z", "--full-tree", sha, "--", *wanted[i:i + 500]).stdout
        for item in listing.split(b"\0"):
            if not item:
                continue
            meta, _, path = item.partition(b"\t")
            mode, kind, obj = meta.split()
            if kind == b"blob" and mode != b"120000":
                entries.append((path.decode("utf-8", "surrogateescape"), obj.decode()))
    if not entries:
        return {}
    batch = git(root, "cat-file", "--batch", input="".join(f"{o}\n" for _p, o in entries).encode()).stdout
    out: dict[str, bytes] = {}
    pos = 0
    for rel, _obj in entries:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        out[rel] = batch[header_end + 1: header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return out


def commit_merge(root: Path, parent: str, other: str, message: str) -> str:
    """A merge commit with `parent`'s tree and both parents: the histories join, the files stay."""
    tree = git(root, "rev-parse", f"{parent}^{{tree}}").stdout.decode().strip()
    return git(root, "commit-tree", tree, "-p", parent, "-p", other, "-m", message).stdout.decode().strip()


def same_tree(root: Path, a: str, b: str) -> bool:
    trees = git(root, "rev-parse", f"{a}^{{tree}}", f"{b}^{{tree}}").stdout.decode().split()
    return len(trees) == 2 and trees[0] == trees[1]
