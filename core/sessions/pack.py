"""One git commit of many files, written as a single pack by `git fast-import`.

`git add` stores every file as its own loose object: one more file created per node,
which dominates a bulk import when creating a file costs a third of a millisecond (as
on this project's VMs). A batch instead streams each file to `git fast-import` as it
is written — git hashes and compresses on the other core meanwhile — and commits them
at the end as one pack; the git index is then brought in step for exactly those
paths. Small batches are declined before git is even started (below git's own
`fastimport.unpackLimit` of 100 objects the pack would be unpacked into loose objects
anyway, so `git add` is cheaper); so is anything unusual (detached HEAD, a branch
moved by someone else, a failing git). The caller then commits the ordinary way: the
files are on disk either way, and blobs already streamed are merely unreferenced.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess

_PIPE_BUFFER = 1 << 16  # small enough that git works while we write
MIN_FILES = 100  # git's default fastimport.unpackLimit
_UNSAFE = frozenset(b'\n"')  # fast-import would need C-style quoting for these paths


class PackedCommit:
    """Files streamed to one `git fast-import`, committed together by `commit`."""

    def __init__(self, workdir: Path, *, min_files: int = MIN_FILES) -> None:
        self.workdir = workdir
        self.min_files = min_files
        self._proc: subprocess.Popen[bytes] | None = None
        self._held: list[tuple[str, bytes]] = []  # until min_files is reached
        self._marks: dict[str, int] = {}
        self._last_mark = 0
        self._broken = False

    @classmethod
    def of_files(cls, workdir: Path, paths: list[str], message: str, *, name: str, email: str) -> bool:
        """Commit files already on disk on HEAD's branch as one pack (e.g. the thousands a
        killed import left uncommitted); False when declined, as `commit`."""
        pack = cls(workdir, min_files=0)
        try:
            pack._start()
        except OSError:
            return False
        return pack.commit(paths, message, name=name, email=email)

    def add(self, rel: str, data: bytes) -> None:
        """Stream one file's bytes (held back until the batch proves big enough);
        the latest bytes of a path win at commit."""
        if self._broken:
            return
        if self._proc is None:
            self._held.append((rel, data))
            if len(self._held) < self.min_files:
                return
            held, self._held = self._held, []
        else:
            held = [(rel, data)]
        try:
            out = self._start().stdin
            assert out is not None
            for path, blob in held:
                self._last_mark += 1
                out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (self._last_mark, len(blob), blob))
                self._marks[path] = self._last_mark
        except OSError:
            self._broken = True  # git died: commit() declines, the caller falls back

    def commit(self, paths: list[str], message: str, *, name: str, email: str,
               new_branch: str | None = None) -> bool:
        """Commit `paths` (relative; unstreamed ones are read from disk) on HEAD's branch,
        or as the first commit of `new_branch` in a repository that has no commit yet."""
        self._held = []
        if self._proc is None or self._broken or not all(map(_safe, paths)):
            self.close()
            return False
        if new_branch is not None:
            ref, parent_line = new_branch.encode(), b""
        else:
            ref = _git(self.workdir, "symbolic-ref", "-q", "HEAD") or b""
            if not ref.startswith(b"refs/heads/"):
                self.close()  # detached or odd: the ordinary commit handles those
                return False
            parent_line = b"from %s^0\n" % ref  # the branch as it is when git reads this
        msg = message.encode("utf-8")
        try:
            proc = self._start()
            out = proc.stdin
            assert out is not None
            out.write(b"commit %s\ncommitter %s <%s> %d +0000\ndata %d\n%s\n%s"
                      % (ref, name.encode(), email.encode(), int(time.time()), len(msg), msg, parent_line))
            for rel in paths:
                mark = self._marks.get(rel)
                if mark is not None:
                    out.write(b"M 100644 :%d %s\n" % (mark, rel.encode("utf-8")))
                    continue
                try:
                    data = (self.workdir / rel).read_bytes()
                except OSError:
                    self.close()
                    return False
                out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (rel.encode("utf-8"), len(data), data))
            out.write(b"\n")
        except OSError:
            self.close()
            return False
        if not self.close():
            return False  # e.g. the branch moved meanwhile: fast-import refuses a non-fast-forward
        return sync_index(self.workdir, paths)

    def close(self) -> bool:
        """End the stream; True if git finished cleanly (what was committed is kept)."""
        self._held = []
        proc, self._proc = self._proc, None
        if proc is None:
            return False
        try:
            proc.stdin.write(b"done\n")  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        return proc.wait() == 0

    def _start(self) -> subprocess.Popen[bytes]:
        import subprocess

        if self._proc is None:
            # zlib level 1 and no delta search: a third of git's CPU for a ~15% larger
            # pack (git gc can repack it later); the import is what the user waits for
            self._proc = subprocess.Popen(["git", "-c", "pack.compression=1", "fast-import", "--quiet", "--done",
                                           "--depth=0"], cwd=self.workdir,
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, bufsize=_PIPE_BUFFER)
        return self._proc


def _safe(path: str) -> bool:
    """Can fast-import take this path as it is (no quoting, valid UTF-8)?"""
    try:
        return not _UNSAFE & set(path.encode("utf-8"))
    except UnicodeEncodeError:
        return False


def sync_index(workdir: Path, paths: list[str]) -> bool:
    """Bring git's index in step with the work tree for exactly `paths` (which a commit
    just recorded with their bytes on disk), fed on stdin: argv would overflow with tens
    of thousands of paths, and `git reset --pathspec-from-file` matches every pathspec
    against every index entry (10k paths 1.7 s, 20k 6.9 s). `update-index` looks each
    path up once; its blobs are already in the pack, so it only hashes and stats."""
    import subprocess  # here and below: reading a session never loads it

    listing = b"".join(p.encode("utf-8") + b"\0" for p in paths)
    synced = subprocess.run(["git", "update-index", "--add", "--remove", "-z", "--stdin"], cwd=workdir,
                            input=listing, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return synced.returncode == 0


def _git(workdir: Path, *args: str) -> bytes | None:
    import subprocess

    run = subprocess.run(["git", *args], cwd=workdir, capture_output=True, check=False)
    return run.stdout.strip() if run.returncode == 0 else None
