from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.session_store import SessionStore


@pytest.fixture()
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


def chain(store: SessionStore, sid: str, names: list[str], predecessor: str | None = "ROOT", *, start: float = 1.7e9,
          text=lambda name: f"turn {name}") -> list[str]:
    """Append alternating user/assistant turns with these node ids after `predecessor`."""
    with store.batch(sid, message="test turns"):
        for i, name in enumerate(names):
            store.append(sid, "user" if i % 2 == 0 else "assistant", text(name), predecessor=predecessor,
                         node_id=name, created_at=start + i)
            predecessor = name
    return names
