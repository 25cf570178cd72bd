"""The per-machine redaction key: `<state>/memory/.scriptorium/redact.key`.

The placeholder's hash is an HMAC under this key, so the same secret redacts the same way
on this machine while nothing (not even a guess checked against a known hash) can be
learned from a placeholder without the key. The runtime folder is excluded from the memory
repository (`.git/info/exclude`) and never travels with sync: the key stays here.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..paths import StatePaths

KEY_NAME = "redact.key"


def key_path(state_dir: Path) -> Path:
    return StatePaths(Path(state_dir)).runtime / KEY_NAME


def load_or_create_key(state_dir: Path) -> bytes:
    """The key, created once (0600, atomically: of two racing creators one wins, both read it)."""
    path = key_path(state_dir)
    try:
        data = path.read_bytes().strip()
        if len(data) >= 32:
            return data
    except FileNotFoundError:
        pass
    import secrets  # only the first writer on a machine creates the key

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_hex(32).encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if another process created it first: theirs wins
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return path.read_bytes().strip()
