"""Sync conflicts: found in the topics themselves, settled through the transaction.

A conflict is an incoming paragraph the merge placed beside the local block, reading
``Sync conflict (from NAME) with [the local version](file.md#^ID): <their text>``. Keeping
it in the topic (not in a local list) means every machine that shares the memory sees the
same conflicts, and settling one anywhere settles it everywhere.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..memory.topics import Paragraph, TopicDoc, parse_topic, without_block
from ..memory import Transaction, TransactionResult
from ..memory.reading import read_consistent
from ..memory.workspace import Workspace
from .blocks import CONFLICT_MARK

_PREFIX = re.compile(rf"^{re.escape(CONFLICT_MARK)} \(from (?P<remote>[^)]*)\) with "
                     r"\[the local version\]\((?P<path>[^)#]*)#\^(?P<bid>[A-Za-z0-9-]+)\): ")
_CITES = re.compile(r"\[\^[A-Za-z0-9_-]+\]")


@dataclass(frozen=True)
class SyncConflict:
    block_id: str  # the local block
    incoming_id: str  # the block holding the incoming text
    topic: str
    remote: str
    local: str  # texts without citations
    incoming: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def _find(docs: dict[str, TopicDoc]) -> list[tuple[SyncConflict, Paragraph, Paragraph | None, TopicDoc]]:
    homes = {p.block_id: (p, doc) for doc in docs.values() for p in doc.paragraphs if p.block_id}
    found = []
    for doc in docs.values():
        for p in doc.paragraphs:
            m = _PREFIX.match(p.text)
            if not m or p.block_id is None:
                continue
            local, _home = homes.get(m.group("bid"), (None, None))
            incoming = _CITES.sub("", p.body[m.end():]).strip()
            found.append((SyncConflict(m.group("bid"), p.block_id, doc.path, m.group("remote"),
                                       local.content if local else "", incoming), p, local, doc))
    return found


def list_conflicts(state_dir: str | os.PathLike[str]) -> list[SyncConflict]:
    return read_consistent(state_dir, _conflicts)


def _conflicts(state_dir: Path) -> list[SyncConflict]:
    ws = Workspace(state_dir)
    docs = {rel: doc for rel in ws.topic_paths() if (doc := ws.topic(rel)) is not None}
    return [c for c, *_ in _find(docs)]


def _replace(text: str, p: Paragraph, new: str) -> str:
    return text[: p.offset] + new + text[p.offset + len(p.text):]


def resolve_conflict(state_dir: str | os.PathLike[str], block_id: str, *, keep: str | None = None,
                     text: str | None = None) -> TransactionResult:
    """Settle the conflict on local block `block_id`: keep `local`, `incoming` or `both`
    texts, or replace them with `text` (the local block's citations stay)."""
    ws = Workspace.open(state_dir)
    docs = {rel: doc for rel in ws.topic_paths() if (doc := ws.topic(rel)) is not None}
    matches = [m for m in _find(docs) if block_id in (m[0].block_id, m[0].incoming_id)]
    if not matches:
        raise LookupError(f"no sync conflict on block {block_id!r} (scriptorium conflicts)")
    conflict, incoming, local, doc = matches[0]
    how = "your text" if text is not None else f"the {keep} text"
    with Transaction(ws, "edit", f"resolve sync conflict on ^{conflict.block_id}: keep {how}") as txn:
        body = doc.text
        prefix = _PREFIX.match(incoming.text)
        if keep == "both" or local is None:
            txn.write_topic(doc.path, _replace(body, incoming, incoming.text[prefix.end():] if prefix else incoming.text))
            return txn.commit()
        if keep == "incoming" or text is not None:
            if text is not None:
                cites = "".join(dict.fromkeys(f"[^{c.id}]" for c in local.citations))
                new_local = f"{text.strip()}{cites} ^{conflict.block_id}"
            else:
                new_local = f"{incoming.body[prefix.end() if prefix else 0:].rstrip()} ^{conflict.block_id}"
            local_doc = next(d for d in docs.values() if local in d.paragraphs)
            if local_doc is doc:
                body = _replace(body, local, new_local)
            else:
                txn.write_topic(local_doc.path, _replace(local_doc.text, local, new_local))
        txn.retire(conflict.incoming_id, f"sync conflict on ^{conflict.block_id} resolved: kept {how}")
        txn.write_topic(doc.path, without_block(parse_topic(doc.path, body), conflict.incoming_id))
        return txn.commit()
