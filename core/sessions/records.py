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
    out = []
    for nid in node_ids:
        node = store.node(sid, nid)
        if not node.is_record or node.rewound:
            continue
        out.append(Record(node.id, sid, node.kind, node.text, node.created_at, store.token_count(sid, nid)))
    return out


def branch_records(store: SessionStore, sid: str, tip: str | None = None) -> list[Record]:
    """Every record of a branch, root to tip (reads every node: for naive checks and exports)."""
    return records_for(store, sid, [e.id for e in store.branch_entries(sid, tip) if e.is_record])
