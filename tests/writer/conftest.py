from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.memory import parse_topic
from scriptorium.core.sessions.marker import MARK_KEY, workspace_id
from scriptorium.core.paths import RUNTIME_DIR, StatePaths
from scriptorium.core.sessions.store import SessionStore


@pytest.fixture()
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


def chain(store: SessionStore, sid: str, names: list[str], predecessor: str | None = "ROOT", *, start: float = 1.7e9,
          text=lambda name: f"turn {name}", first_role: str = "user") -> list[str]:
    """Append alternating user/assistant turns with these node ids after `predecessor`."""
    roles = ("user", "assistant") if first_role == "user" else ("assistant", "user")
    with store.batch(sid, message="test turns"):
        for i, name in enumerate(names):
            store.append(sid, roles[i % 2], text(name), predecessor=predecessor, node_id=name, created_at=start + i)
            predecessor = name
    return names


def marked(store: SessionStore, sid: str) -> list[str]:
    """Node ids this workspace marked as written, in session order."""
    wid = workspace_id(store.state_dir)
    entries = store.index(sid).entries.values()
    return [e.id for e in sorted(entries, key=lambda e: e.seq) if e.marks.get(MARK_KEY) == wid]


def tree(root: Path) -> dict[str, bytes]:
    """Every visible regular file under `root` (no git, no runtime logs), for byte comparisons."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink() and not {".git", RUNTIME_DIR} & set(p.relative_to(root).parts)}


def topic_blocks(state: Path) -> dict[str, tuple[str, str]]:
    """Every block id -> (its topic, its text), and every topic parses."""
    out = {}
    for path, data in tree(state / "memory").items():
        if path.startswith("topics/"):
            doc = parse_topic(path[len("topics/"):], data.decode())
            assert doc.issues == [], doc.issues
            out.update({b.block_id: (path[len("topics/"):], " ".join(b.content.split())) for b in doc.blocks})
    return out


def history(store: SessionStore, stage: str | None = None) -> list[dict]:
    """Agent runs recorded in `.scriptorium/agent-history.jsonl` (optionally one stage)."""
    path = StatePaths(store.state_dir).runtime / "agent-history.jsonl"
    runs = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in runs if stage is None or r["stage"] == stage]


def refs(prompt: str) -> list[str]:
    """Node ids of the records a writer task hands over (the `ref` of each JSON line)."""
    out = []
    for line in prompt.splitlines():
        if line.startswith('{"ref"'):
            out.append(json.loads(line)["ref"].rsplit("/", 1)[1])
    return out
