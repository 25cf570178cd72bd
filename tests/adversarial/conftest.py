from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import MARK_KEY, workspace_id
from scriptorium.core.paths import RUNTIME_DIR, StatePaths
from scriptorium.core.sessions.store import SessionStore


@pytest.fixture()
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


def talk(store: SessionStore, sid: str, texts: list[str]) -> list[str]:
    """Append alternating user/assistant turns; returns their node ids."""
    return [store.append(sid, ("user", "assistant")[i % 2], text).id for i, text in enumerate(texts)]


def marked(store: SessionStore, sid: str) -> set[str]:
    wid = workspace_id(store.state_dir)
    return {e.id for e in store.index(sid).entries.values() if e.marks.get(MARK_KEY) == wid}


def memory_files(store: SessionStore) -> dict[str, bytes]:
    """Every file of the memory workspace but git's own and the runtime logs, plus HEAD:
    what "nothing already written is lost or changed" compares."""
    root = StatePaths(store.state_dir).memory
    out = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
           if p.is_file() and not {".git", RUNTIME_DIR} & set(p.relative_to(root).parts)}
    out["HEAD"] = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True).stdout
    return out


def nothing_lost(before: dict[str, bytes], after: dict[str, bytes]) -> bool:
    """Every topic byte-identical, and every archive only appended to (evidence goes first,
    in its own transaction, so a batch refused later leaves its records archived)."""
    topics = {k for k in before.keys() | after.keys() if k.startswith("topics/")}
    sources = [k for k in before if k.startswith("sources/")]
    return all(before.get(k) == after.get(k) for k in topics) and all(
        after.get(k, b"").startswith(before[k]) for k in sources)
