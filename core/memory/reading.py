"""Readers see one committed state, never half an install (issue 19, item 5).

An install (install.py) moves its files into place one by one under a redo journal,
`.scriptorium/journal.json`; a process killed in between leaves the journal and a tree
half old, half new until someone repairs it. Every reader entry point (`search`, `get`,
`core`, the MCP tools and resources, the hooks' injection and recall, the TUI's models)
reads through `read_consistent(state_dir, read)`, which calls `read(state)` with a state
directory that shows one committed state:

- No journal, the normal case: the state directory itself, at the cost of four stats:
  the journal and the audit log (every install appends to it), before and after the
  read; when an install began or ended meanwhile, the read is done again.
- A journal: the reader takes the write lock without waiting and runs the writers'
  recovery (`Workspace.recover_locked`). A holder of the lock is most likely the live
  writer finishing that install (a transaction repairs before anything else), so the
  reader polls for up to `WAIT` seconds.
- Still pending (a holder that does not finish, a read-only state, a recovery that
  failed): `read` gets a snapshot, a temporary copy of the memory with the journal
  applied as recovery would apply it (the new state; the old one for a rollback), which
  is removed afterwards. Nothing in the state directory changes.

`read` must return plain data (it may not keep paths into a snapshot). Nothing heavy is
imported until a journal is found: a cold `search` still loads neither git nor filelock.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..paths import INSTALL_BACKUP, INSTALL_JOURNAL, RUNTIME_DIR, StatePaths
from ..values import TYPE_CHECKING
from .audit import AUDIT_NAME

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

WAIT = 1.0  # seconds a reader waits on a live writer's install before it reads a snapshot
POLL = 0.05
ATTEMPTS = 3  # reads redone while installs keep landing under them; the last one is kept
_SKIP_TOP = frozenset({".git", INSTALL_BACKUP})
_SKIP_RUNTIME = frozenset({INSTALL_JOURNAL, "write.lock"})

_Mark = tuple[bool, "tuple[int, int] | None"]


def read_consistent(state_dir: str | os.PathLike[str], read: Callable[[Path], T], *, wait: float = WAIT) -> T:
    """`read(state)` against one committed state of `state_dir`'s memory (see the module
    note): `state` is `state_dir` itself, or a snapshot while an install stays pending."""
    state = Path(state_dir)
    runtime = os.path.join(state, "memory", RUNTIME_DIR)  # StatePaths(state).runtime, without pathlib's cost
    watched = (os.path.join(runtime, INSTALL_JOURNAL), os.path.join(runtime, AUDIT_NAME))
    for attempt in range(ATTEMPTS):
        last = attempt == ATTEMPTS - 1
        before = _mark(*watched)
        if before[0]:
            if not _settle(state, wait):
                snapshot = _read_snapshot(state, read)
                if snapshot is not None:
                    return snapshot[0]
                continue  # the journal changed under the copy: look again
            before = _mark(*watched)
            if before[0] and not last:
                continue
        value = read(state)
        if last or _mark(*watched) == before:
            return value
    return read(state)  # journals kept changing under every snapshot: the tree as it is


def _exists(path: str | Path) -> bool:
    try:
        os.stat(path)
    except OSError:  # absent, or a state we may not read (the read itself reports that)
        return False
    return True


def _mark(journal: str, audit_log: str) -> _Mark:
    """Journal present, and the audit log's size and mtime: what any install changes."""
    try:
        st = os.stat(audit_log)
        audit: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
    except OSError:
        audit = None
    return _exists(journal), audit


def _settle(state: Path, wait: float) -> bool:
    """Have the pending install completed (by us, or by the live writer holding the lock);
    True when no journal is left."""
    from .errors import LockBusy
    from .workspace import Workspace

    ws = Workspace(state)
    journal = ws.runtime / INSTALL_JOURNAL
    deadline = time.monotonic() + wait
    while _exists(journal):
        try:
            with ws.lock(0):
                ws.recover_locked()
        except LockBusy:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL)
        except Exception:  # noqa: BLE001 - read-only, full disk, git failing: a reader still answers
            return not _exists(journal)
    return True


def _load_journal(runtime: Path) -> tuple[bool, dict[str, Any] | None]:
    """(present, the journal if it is one of ours)."""
    try:
        journal = json.loads((runtime / INSTALL_JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False, None
    except (OSError, ValueError):
        return True, None
    if (not isinstance(journal, dict) or journal.get("phase") not in ("install", "rollback")
            or not isinstance(journal.get("entries"), list)
            or not all(isinstance(e, dict) and _safe(e.get("path")) for e in journal["entries"])):
        return True, None
    return True, journal


def _safe(rel: object) -> bool:
    return isinstance(rel, str) and bool(rel) and not os.path.isabs(rel) and ".." not in Path(rel).parts


def _read_snapshot(state: Path, read: Callable[[Path], T]) -> tuple[T] | None:
    """(`read(snapshot)`,), or None when the journal went away or changed while the
    snapshot was made (the live tree moved on: the caller looks again)."""
    import tempfile  # with shutil: loaded only for a snapshot (a hook's start-up stays small)

    paths = StatePaths(state)
    present, journal = _load_journal(paths.runtime)
    if not present:
        return None
    if journal is None:  # not ours to interpret (writers refuse it too): the tree as it is
        return (read(state),)
    with tempfile.TemporaryDirectory(prefix="scriptorium-read-", ignore_cleanup_errors=True) as tmp:
        snap = StatePaths(Path(tmp) / "state")
        try:
            _copy_state(paths, snap, journal)
        except OSError:  # no room for a copy: the tree as it is rather than no answer
            return (read(state),)
        if _load_journal(paths.runtime) != (True, journal):
            return None
        return (read(snap.root),)


def _copy_state(src: StatePaths, dst: StatePaths, journal: dict[str, Any]) -> None:
    import shutil

    dst.memory.mkdir(parents=True)
    if src.config.is_file():
        shutil.copy2(src.config, dst.config)
    _copy_tree(src.memory, dst.memory)
    _apply_journal(src.memory, dst.memory, journal)


def _copy_tree(src: Path, dst: Path) -> None:
    """The memory without git, the install's backup, its journal and the lock; symbolic
    links are left out (no reader follows one)."""
    import shutil

    for dirpath, dirnames, filenames in os.walk(src):
        base = Path(dirpath)
        rel = base.relative_to(src)
        skip: frozenset[str] = _SKIP_RUNTIME if rel == Path(RUNTIME_DIR) else frozenset()
        dirnames[:] = [d for d in dirnames if not (base / d).is_symlink() and not (base == src and d in _SKIP_TOP)]
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for name in filenames:
            if name in skip or (base / name).is_symlink():
                continue
            try:
                shutil.copy2(base / name, dst / rel / name)  # mtimes kept: the search cache stays valid
            except FileNotFoundError:
                pass  # an install's deletion, finished meanwhile: the journal says what it is


def _apply_journal(live: Path, snap: Path, journal: dict[str, Any]) -> None:
    """Each file the install touches as recovery will leave it: a roll forward takes the
    staged new bytes (or the file, once moved into place), a rollback the kept old ones."""
    backup = live / INSTALL_BACKUP
    forward = journal["phase"] == "install"
    for entry in journal["entries"]:
        rel = entry["path"]
        keep = bool(entry.get("write")) if forward else bool(entry.get("existed"))
        data = None
        if keep:
            data = _read(backup / f"{entry.get('slot')}.{'new' if forward else 'old'}")
            if data is None:  # already moved into place
                data = _read(live / rel)
        target = snap / rel
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
