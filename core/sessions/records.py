"""Records: the user and assistant turns memory writes from (DESIGN §3).

A record's id is its node id — never a position. Tool calls and results, runtime
turns and compaction summaries are never records (see `nodes.classify`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .store import SessionStore


@dataclass(frozen=True)
class Record:
    id: str
    session_id: str
    role: str  # "user" | "assistant"
    text: str
    created_at: float
    tokens: int


def records_for(store: SessionStore, sid: str, node_ids: Iterable[str]) -> list[Record]:
    """Full records for the given turns (e.g. a batch cut from `pending`), in that order."""
    index = store.index(sid)
    nodes = [n for n in store.nodes_by_id(sid, node_ids, index) if n.is_record and not n.rewound]
    tokens = store.token_counts(sid, nodes, index)
    return [Record(node.id, sid, node.kind, node.text, node.created_at, n) for node, n in zip(nodes, tokens)]


def branch_records(store: SessionStore, sid: str, tip: str | None = None) -> list[Record]:
    """Every record of a branch, root to tip (reads every node: for naive checks and exports)."""
    return records_for(store, sid, [e.id for e in store.branch_entries(sid, tip) if e.is_record])
