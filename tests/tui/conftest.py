"""TUI fixtures: the demo state (built once, copied per test) and OpenProgram-shaped sessions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scriptorium.core.demo import build_demo
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.nodes import ROOT_ID, Node
from scriptorium.core.sessions.paths import SessionPaths

WORKSPACE = "w-5c0ffee5"  # fixed, so marks and snapshots are the same on every run
DEMO_NOW = 1_767_268_800.0 - 3600  # the demo was built an hour before the app's fixed clock


def fix_workspace_id(state: Path) -> None:
    runtime = StatePaths(state).runtime
    runtime.mkdir(parents=True, exist_ok=True)
    (runtime / "workspace-id").write_text(WORKSPACE + "\n", encoding="ascii")


@pytest.fixture(scope="session")
def built_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    state = tmp_path_factory.mktemp("demo-template") / "state"
    fix_workspace_id(state)
    build_demo(state, now=DEMO_NOW)
    return state


@pytest.fixture()
def demo_state(built_demo: Path, tmp_path: Path) -> Path:
    """A private copy of the demo state: a test may change it freely."""
    state = tmp_path / "state"
    shutil.copytree(built_demo, state, symlinks=True)
    return state


def write_openprogram_session(state: Path, sid: str, turns: list[dict], *, title: str, head: str) -> None:
    """Write a session the way OpenProgram lays it out on disk (formats §1), without git:
    fast enough for a 10,000-turn session in a unit test."""
    layout = SessionPaths.of(state, sid)
    layout.history.mkdir(parents=True)
    nodes = [Node(id=ROOT_ID, seq=0, role="user", output="", metadata={"display": "root"}, created_at=1.0)]
    for seq, turn in enumerate(turns, start=1):
        nodes.append(Node(id=turn["id"], seq=seq, role=turn.get("role", "user"), output=turn["text"],
                          predecessor=turn.get("predecessor", ROOT_ID), metadata=turn.get("metadata", {}),
                          name=turn.get("name", ""), input=turn.get("input"), caller=turn.get("caller", ""),
                          created_at=turn.get("created_at", 1000.0 + seq)))
    for node in nodes:
        layout.node(node.filename).write_bytes(node.to_json_bytes())
    meta = {"id": sid, "agent_id": "main", "title": title, "source": "web", "created_at": 1.0,
            "updated_at": 1000.0 + len(turns), "project_id": "default", "head_id": head}
    layout.meta.write_text(json.dumps(meta), encoding="utf-8")


CORE_FACTS = [
    "The user is Ada Lovelace, a build engineer on the platform team; she prefers concise answers.",
    "Always answer in the language the user wrote in; the team works in English and Chinese.",
    "Production deploys happen Tuesday to Thursday mornings; Friday is for approved hotfixes only.",
    "The CI fleet has 12 runners with 500 GB disks; the shared build cache is capped at 50 GB each.",
    "Rust target directories are cached only for main and release branches, keyed by Cargo.lock.",
]


@pytest.fixture()
def overflowing_core_state(tmp_path: Path) -> Path:
    """A workspace whose canonical core (topics/core.md) is several times the 2000-token budget,
    every block citing archived evidence with fixed times (so ids and text are deterministic)."""
    from scriptorium.core.memory import Transaction, Workspace, session_record

    state = tmp_path / "state"
    fix_workspace_id(state)
    workspace = Workspace.open(state)
    day = 1_767_312_000.0
    records = [session_record("demo", f"c{i}", "user", f"fact {i}", day + 60 * i) for i in range(40)]
    paragraphs = [
        f"{CORE_FACTS[i % len(CORE_FACTS)]} Note {i}: " + "runner caches and deploy windows, " * 6
        + f"in short.[^e1]\n\n[^e1]: Time: `2026-01-02`; Sources: [note](openprogram/demo/c{i})"
        for i in range(40)
    ]
    with Transaction(workspace, "write", "core") as txn:
        txn.archive(records)
        txn.write_topic("core.md", "# Core\n\n" + "\n\n".join(paragraphs) + "\n")
        result = txn.commit()
    assert result.outcome == "installed", result.diagnostics
    return state


@pytest.fixture()
def anyio_backend() -> str:
    """Async tests (`pytest.mark.anyio`) drive the app on asyncio, Textual's loop."""
    return "asyncio"
