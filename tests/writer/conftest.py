from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.memory import parse_topic
from scriptorium.core.sessions.marker import MARK_KEY, workspace_id
from scriptorium.core.paths import RUNTIME_DIR, StatePaths
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish


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


# The real transcript excerpts kept as fixtures (tests/fixtures/transcripts/SOURCES.md).
HERE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CODEX = HERE / "codex__codemie-ai_codemie-code__rollout.excerpt.jsonl"
PI = HERE / "pi__badlogic_pi-mono__before-compaction.shortened.jsonl"
CC_COMPACT = HERE / "claude-code__marot_spotter__compaction" / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
NARRATION = re.compile(r"\b(?:let me|i'll|decided to|is going to|will now|is running|is adding|is rerunning)\b",
                       re.I)


def imported_session(tmp_path: Path, kind: str, path: Path) -> tuple[SessionStore, str]:
    """A store under `tmp_path` holding the one session `scriptorium import <kind>` reads from `path`."""
    store = SessionStore(tmp_path / "state")
    report = import_sources(store, kind, [path])
    (sid,) = report.to_json()["session_ids"]
    return store, sid


def topics_text(store: SessionStore) -> dict[str, list[str]]:
    """Each topic file (relative to topics/) and its blocks' text."""
    out = {}
    for path, data in tree(store.state_dir / "memory").items():
        if path.startswith("topics/"):
            rel = path[len("topics/"):]
            doc = parse_topic(rel, data.decode())
            assert doc.issues == [], doc.issues
            out[rel] = [" ".join(b.content.split()) for b in doc.blocks]
    return out


def written_topics(store: SessionStore, sid: str) -> dict[str, list[str]]:
    """The offline writer's `finish` of `sid` (it must succeed), then every topic's blocks."""
    result = finish(store, sid)
    assert result.outcome == "ok", result.message
    return topics_text(store)
