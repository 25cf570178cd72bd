"""The memory repository's remotes, and the few git operations sync needs.

Remotes are ordinary git remotes of `<state>/memory/` (kept in its `.git/config`, so they
never travel). Memory lives on the `main` branch, here and on the remote; what was fetched
is kept at `refs/remotes/<name>/main`.

Every call that talks to a remote (`fetch`, `push`, `ls-remote`) runs in its own process
group under a deadline (`sync.timeout_seconds`, default 60): a remote that accepts the
connection and never answers is killed with its helpers (ssh, git-remote-http) and
reported as unreachable, never waited on.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..memory.history import BRANCH, IDENTITY_ENV
from ..outcome import ScriptoriumError

NETWORK_TIMEOUT_S = 60.0
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # whole names only: fullmatch
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
    """A local git command (no network): its output; RemoteError when it fails and `check`."""
    proc = subprocess.run(["git", "-C", str(root), *args], input=input, capture_output=True, env=_env())
    if check and proc.returncode != 0:
        raise RemoteError(_message(proc))
    return proc


def network_git(root: Path, name: str, *args: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """A git command that talks to remote `name`, killed (with every helper it started)
    once `timeout` seconds pass: RemoteUnreachable then, never a hang."""
    proc = subprocess.Popen(["git", "-C", str(root), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(timeout), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise RemoteUnreachable(f"remote {name!r} did not answer within {timeout:g} s") from None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _env(timeout: float = NETWORK_TIMEOUT_S) -> dict[str, str]:
    env = {**os.environ, **IDENTITY_ENV}  # a merge commit never needs the user's git identity
    env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait on a password prompt
    connect = max(1, min(15, int(timeout)))
    env.setdefault("GIT_SSH_COMMAND", f"ssh -o BatchMode=yes -o ConnectTimeout={connect} "
                                      f"-o ServerAliveInterval={connect} -o ServerAliveCountMax=2")
    # HTTP: a transfer slower than 1 byte/s for this long is given up by git itself too
    env.setdefault("GIT_HTTP_LOW_SPEED_LIMIT", "1")
    env.setdefault("GIT_HTTP_LOW_SPEED_TIME", str(connect * 2))
    return env


def _message(proc: subprocess.CompletedProcess[bytes]) -> str:
    text = (proc.stderr or proc.stdout or b"").decode("utf-8", "replace").strip()
    lines = [line.removeprefix("fatal: ").removeprefix("error: ") for line in text.splitlines() if line.strip()]
    return lines[0] if lines else f"git exited with {proc.returncode}"


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
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


def remote_tip(root: Path, name: str, timeout: float = NETWORK_TIMEOUT_S) -> str | None:
    """The commit the remote's `main` points at (no objects fetched), or None when it has none."""
    proc = network_git(root, name, "ls-remote", "--quiet", name, f"refs/heads/{BRANCH}", timeout=timeout)
    if proc.returncode != 0:
        _raise_unreachable_or(name, proc, "ls-remote")
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        sha, _, ref = line.partition("\t")
        if ref.strip() == f"refs/heads/{BRANCH}":
            return sha.strip()
    return None


def _raise_unreachable_or(name: str, proc: subprocess.CompletedProcess[bytes], what: str) -> None:
    message = _message(proc)
    if _UNREACHABLE.search(message):
        raise RemoteUnreachable(f"remote {name!r} is unreachable: {message}")
    raise RemoteError(f"{what} of {name!r} failed: {message}")


def fetch(root: Path, name: str, timeout: float = NETWORK_TIMEOUT_S) -> str | None:
    """Fetch the remote's memory; its commit, or None for an empty remote."""
    proc = network_git(root, name, "fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head", name,
                       f"+refs/heads/{BRANCH}:{tracking_ref(name)}", timeout=timeout)
    if proc.returncode != 0:
        message = _message(proc)
        if "couldn't find remote ref" in message.lower():
            git(root, "update-ref", "-d", tracking_ref(name), check=False)
            return None
        if _UNREACHABLE.search(message):
            raise RemoteUnreachable(f"remote {name!r} is unreachable: {message}")
        raise RemoteError(f"fetch from {name!r} failed: {message}")
    return rev(root, tracking_ref(name))


def push(root: Path, name: str, sha: str, timeout: float = NETWORK_TIMEOUT_S, *, replacing: str | None = None) -> bool:
    """Push `sha` as the remote's memory; False when the remote moved on (fetch and merge again).
    With `replacing`, the remote's tip is replaced even though `sha` does not descend from it,
    but only while the tip still is `replacing` (a purge's rewritten history)."""
    lease = [f"--force-with-lease=refs/heads/{BRANCH}:{replacing}"] if replacing else []
    proc = network_git(root, name, "push", "--quiet", "--porcelain", *lease, name, f"{sha}:refs/heads/{BRANCH}",
                       timeout=timeout)
    if proc.returncode == 0:
        git(root, "update-ref", tracking_ref(name), sha)
        return True
    text = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    if any(s in text for s in ("[rejected]", "non-fast-forward", "fetch first", "stale info")) or (
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


def ensure_main(root: Path) -> None:
    """Memory made before the branch was fixed sits on whatever `git init` defaulted to
    (`master`): move it to `main`, so a plain clone of the remote checks it out."""
    head = git(root, "symbolic-ref", "-q", "HEAD", check=False).stdout.decode().strip()
    if head and head != f"refs/heads/{BRANCH}" and rev(root, f"refs/heads/{BRANCH}") is None:
        git(root, "branch", "-m", head.removeprefix("refs/heads/"), BRANCH, check=False)


def point_head(root: Path, name: str) -> None:
    """A remote that is a bare repository on this machine gets its HEAD on `main` (a
    `git init --bare` names the default branch, often `master`: clones would check out
    nothing). Remotes on other hosts keep theirs; README says `git init --bare -b main`."""
    url = git(root, "config", "--get", f"remote.{name}.url", check=False).stdout.decode().strip()
    path = Path(url.removeprefix("file://")).expanduser()
    if not url or "://" in url.removeprefix("file://") or not (path / "HEAD").is_file() or not (path / "objects").is_dir():
        return
    head = subprocess.run(["git", "--git-dir", str(path), "symbolic-ref", "-q", "HEAD"], capture_output=True)
    if head.returncode == 0 and head.stdout.decode().strip() != f"refs/heads/{BRANCH}":
        subprocess.run(["git", "--git-dir", str(path), "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}"],
                       capture_output=True)


def top_level(root: Path, sha: str) -> list[str]:
    """The names at the top of commit `sha`'s tree."""
    listing = git(root, "ls-tree", "-z", "--name-only", sha).stdout
    return [n.decode("utf-8", "surrogateescape") for n in listing.split(b"\0") if n]


def delete_ref(root: Path, ref: str) -> None:
    git(root, "update-ref", "-d", ref, check=False)


def commit_on(root: Path, tree_of: str, parent: str, message: str) -> str:
    """A commit with `tree_of`'s tree whose only parent is `parent`."""
    tree = git(root, "rev-parse", f"{tree_of}^{{tree}}").stdout.decode().strip()
    return git(root, "commit-tree", tree, "-p", parent, "-m", message).stdout.decode().strip()
