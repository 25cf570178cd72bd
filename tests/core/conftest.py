from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import workspace_id
from scriptorium.core.sessions.store import SessionStore


@pytest.fixture()
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


@pytest.fixture()
def wid(store: SessionStore) -> str:
    return workspace_id(store.state_dir)
