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
        if self._proc is None or self._broken or any(_UNSAFE & set(p.encode("utf-8")) for p in paths):
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
        import subprocess  # here and below: reading a session never loads it

        listing = b"\0".join(p.encode("utf-8") for p in paths) + b"\0"
        synced = subprocess.run(["git", "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"],
                                cwd=self.workdir, input=listing, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, check=False)
        return synced.returncode == 0

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


def _git(workdir: Path, *args: str) -> bytes | None:
    import subprocess

    run = subprocess.run(["git", *args], cwd=workdir, capture_output=True, check=False)
    return run.stdout.strip() if run.returncode == 0 else None
