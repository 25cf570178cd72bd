from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from pathlib import Path

import pytest

from scriptorium.core.sessions.nodes import Node
from scriptorium.core.sessions.store import SessionStore

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
CC_REWIND = FIXTURES / "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl"
CC_TOOL_HEAVY = FIXTURES / "claude-code__marot_spotter__tool_heavy.jsonl"
CC_MAIN = FIXTURES / "claude-code__marot_spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.first400KB.jsonl"
CC_AGENT = FIXTURES / "claude-code__marot_spotter__agent-aac57f5.jsonl"
CC_MAIN_ID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
PI_BRANCHING = FIXTURES / "pi__twKrash_pi-session-inspector__branching.jsonl"
PI_SMALL = FIXTURES / "pi__jazzyalex_agent-sessions__small.jsonl"
CODEX_SMALL = FIXTURES / "codex__jazzyalex_agent-sessions__small.jsonl"


@pytest.fixture()
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


@pytest.fixture()
def claude_project(tmp_path: Path) -> Path:
    """The real session and its sub-agent laid out as Claude Code stores them."""
    project = tmp_path / "projects" / "-home-user-spotter"
    (project / CC_MAIN_ID / "subagents").mkdir(parents=True)
    shutil.copyfile(CC_MAIN, project / f"{CC_MAIN_ID}.jsonl")
    shutil.copyfile(CC_AGENT, project / CC_MAIN_ID / "subagents" / "agent-aac57f5.jsonl")
    return project


def chain_children(nodes: list[Node]) -> Counter[str]:
    """How many conversation (user/assistant) children each node has."""
    return Counter(n.predecessor for n in nodes if n.kind in ("user", "assistant") and n.predecessor)


def forks(nodes: list[Node]) -> dict[str, set[str]]:
    kids: dict[str, set[str]] = {}
    for n in nodes:
        if n.kind in ("user", "assistant") and n.predecessor:
            kids.setdefault(n.predecessor, set()).add(n.id)
    return {parent: children for parent, children in kids.items() if len(children) > 1}


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}
