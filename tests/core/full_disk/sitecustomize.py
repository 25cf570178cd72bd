"""A simulated full disk, for the CLI failure tests where no tmpfs can be mounted (a
developer who is not root): put this directory first on PYTHONPATH and set
SCRIPTORIUM_TEST_FULL_DISK to the bytes still free. Python's writes to regular files
then succeed up to that many bytes (per process) and fail from there on as a full disk
fails them: the part that fits is written, then OSError(ENOSPC). Nothing else changes:
reads, renames, unlinks, creating empty files and directories all work, as on a full
tmpfs. Git is a separate program, so the test puts a stand-in first on PATH that lets
reading commands through and fails every other one with git's own full-disk message."""

from __future__ import annotations

import builtins
import errno
import io
import os
import stat
from typing import Any


def _enospc(what: object = None) -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), what)


def install(free: int) -> None:
    """From now on, this process has `free` bytes left to write."""
    left = [max(free, 0)]
    real_open, real_write = io.open, os.write

    def take(n: int) -> int:
        n = min(n, left[0])
        left[0] -= n
        return n

    def regular(fd: int) -> bool:
        try:
            return stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            return False

    class Full:
        """A file opened for writing on the full disk (everything but writing is the file's own)."""

        def __init__(self, fh: Any) -> None:
            self._fh = fh

        def write(self, data: Any) -> int:
            n = take(len(data))
            if n < len(data):
                if n:
                    self._fh.write(data[:n])
                    self._fh.flush()
                raise _enospc(getattr(self._fh, "name", None))
            return int(self._fh.write(data))

        def writelines(self, lines: Any) -> None:
            for line in lines:
                self.write(line)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self._fh.close()

        def __iter__(self) -> Any:
            return iter(self._fh)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._fh, name)

    def full_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        fh = real_open(file, mode, *args, **kwargs)
        if any(c in mode for c in "wax+"):
            try:
                fd = fh.fileno()
            except (OSError, ValueError):
                return fh
            if regular(fd):
                return Full(fh)
        return fh

    def full_write(fd: int, data: Any) -> int:
        if not regular(fd):
            return real_write(fd, data)
        n = take(len(data))
        if n == 0 and len(data):
            raise _enospc()
        return real_write(fd, memoryview(data)[:n]) if n < len(data) else real_write(fd, data)

    def no_copy(*args: Any, **kwargs: Any) -> int:
        raise _enospc()

    builtins.open = io.open = full_open  # type: ignore[assignment]
    os.write = full_write
    os.sendfile = no_copy  # shutil's fast copies
    if hasattr(os, "copy_file_range"):
        os.copy_file_range = no_copy


if os.environ.get("SCRIPTORIUM_TEST_FULL_DISK") is not None:
    install(int(os.environ["SCRIPTORIUM_TEST_FULL_DISK"]))
