"""What the Sync screen shows and does, through `scriptorium.core.sync` (no Textual here;
everything runs in worker threads: git and the transaction take time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scriptorium.core.sync.conflicts import SyncConflict
from scriptorium.core.sync.status import RemoteState, SyncStatus

__all__ = ["RemoteState", "SyncConflict", "SyncStatus", "add_remote", "load_status", "resolve", "sync_now"]


def load_status(state_dir: Path) -> SyncStatus:
    from scriptorium.core.sync.status import sync_status

    return sync_status(state_dir)


def add_remote(state_dir: Path, name: str, url: str) -> str | None:
    """Add remote `name`: None when added, else the engine's reason (a bad name, a taken one,
    a local path that does not exist)."""
    from scriptorium.core.memory.workspace import Workspace
    from scriptorium.core.sync.remote import RemoteError
    from scriptorium.core.sync.remote import add_remote as add

    try:
        add(Workspace.open(state_dir).root, name, url)
    except RemoteError as exc:
        return str(exc)
    return None


def sync_now(state_dir: Path) -> Any:
    """One sync with the default remote: a `SyncResult` (outcome, code, message, conflicts)."""
    from scriptorium.core.sync.run import sync

    return sync(state_dir)


def resolve(state_dir: Path, block_id: str, *, keep: str | None = None, text: str | None = None) -> Any:
    """Settle a conflict through the transaction: a `TransactionResult` (installed or rejected)."""
    from scriptorium.core.sync.conflicts import resolve_conflict

    return resolve_conflict(state_dir, block_id, keep=keep, text=text)
