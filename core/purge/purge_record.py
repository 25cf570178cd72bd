"""What a purge leaves for the other machines: `purges.json` in memory, and the commit map.

`purges.json` travels with memory (a union, like `workspaces.json`) and lists the tags of
the placeholders purges gave out (never the secret). A machine that still holds a secret
finds it by setting its text beside the other side's (core/sync/purges.py) and checking
the hidden span against a listed tag. `purge-map.json` (runtime, never travels) maps the
memory's commits before the rewrite to after: the purging machine's next sync sees the
remote's tip among the old ones and replaces it without fetching the secret back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

PURGES_FILE = "purges.json"
MAP_FILE = "purge-map.json"


def read_tags(data: bytes | None) -> set[str]:
    """The tags a `purges.json` lists (nothing for a missing or damaged file)."""
    try:
        doc = json.loads(data or b"{}")
    except ValueError:
        return set()
    tags = doc.get("purged") if isinstance(doc, dict) else None
    return {t for t in tags if isinstance(t, str) and len(t) == 8} if isinstance(tags, list) else set()


def purges_file(tags: Iterable[str]) -> bytes:
    return (json.dumps({"purged": sorted(set(tags))}, indent=2) + "\n").encode()


def record_purge(state_dir: Path, tags: Iterable[str]) -> None:
    """Add `tags` to memory's `purges.json` (a transaction of its own, after the rewrite)."""
    from ..memory import Transaction, Workspace

    ws = Workspace.open(state_dir)
    path = ws.root / PURGES_FILE
    current = read_tags(path.read_bytes() if path.exists() else None)
    if set(tags) <= current:
        return
    # kind sync: what it is for (the audit's one `purge` entry is the rewrite itself)
    with Transaction(ws, "sync", "record a purge for the machines that share this memory") as txn:
        txn.write_versioned(PURGES_FILE, purges_file(current | set(tags)))
        txn.commit()


def save_commit_map(runtime: Path, renames: Mapping[str, str]) -> None:
    if not renames:
        return
    current = {old: renames.get(new, new) for old, new in load_commit_map(runtime).items()}  # purged twice: old -> newest
    current.update(renames)
    tmp = runtime / f".{MAP_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps(current) + "\n", encoding="utf-8")
    os.replace(tmp, runtime / MAP_FILE)


def load_commit_map(runtime: Path) -> dict[str, str]:
    try:
        doc = json.loads((runtime / MAP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in doc.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(doc, dict) else {}
