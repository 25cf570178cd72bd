"""This state's memory workspace id (`w-` + 8 hex, DESIGN §4): the value of the written
marker on every turn this workspace wrote (`sessions/marker.py`).

A module of its own so that reading the id (every transaction's audit record) does not
import the session store.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .paths import StatePaths

WORKSPACE_ID_RE = re.compile(r"w-[0-9a-f]{8}\Z")  # match() anchors the start; \Z, not `$`: no trailing newline


class WorkspaceIdError(Exception):
    pass


def workspace_id(state_dir: str | os.PathLike[str]) -> str:
    """This state's memory workspace id (`w-` + 8 hex), created atomically exactly once.

    Creation links a fully written temp file into place (`os.link` fails if another
    process won the race), so no reader ever sees a half-written id.
    """
    runtime = StatePaths(Path(state_dir)).runtime
    path = runtime / "workspace-id"
    try:
        return _read_id(path)
    except FileNotFoundError:
        pass
    runtime.mkdir(parents=True, exist_ok=True)
    tmp = runtime / f"workspace-id.{os.urandom(8).hex()}.tmp"  # os.urandom is what `secrets` reads, without its imports
    tmp.write_text(f"w-{os.urandom(4).hex()}\n", encoding="ascii")
    try:
        os.chmod(tmp, 0o600)
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return _read_id(path)


def _read_id(path: Path) -> str:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if not WORKSPACE_ID_RE.match(text):
        raise WorkspaceIdError(f"corrupt workspace id in {path}: {text[:40]!r}")
    return text
