"""Small file-system helpers shared by every writer of state: atomic replace."""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600, durable: bool = True) -> None:
    """Write `data` to `path` so that readers see the old or the new bytes, never a mix.

    Temp file `<name>.<uuid>.tmp` in the same directory, fsync, chmod, `os.replace`,
    fsync of the parent (the OpenProgram convention).
    """
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, durable=durable)
