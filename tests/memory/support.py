"""Shared builders for the memory tests: a seeded workspace and byte-exact snapshots."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from scriptorium.core.memory import SourceRecord, Transaction, Workspace, session_record

DAY = 1767312000.0  # 2026-01-02T00:00:00Z


def records(session: str = "s1", n: int = 4, start: float = DAY) -> list[SourceRecord]:
    return [session_record(session, f"m{i}", "user" if i % 2 == 0 else "assistant",
                           f"turn {i} of {session}", start + 60 * i) for i in range(n)]


def git(ws: Workspace, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws.root), *args], capture_output=True, text=True, check=True).stdout


def snapshot(ws: Workspace) -> dict[str, object]:
    """Every file of the workspace (the runtime directory included) and git's view of it."""
    files = {}
    for path in sorted(ws.root.rglob("*")):
        rel = path.relative_to(ws.root).as_posix()
        if rel == ".git" or rel.startswith(".git/") or not path.is_file():
            continue
        files[rel] = path.read_bytes()
    return {"files": files, "head": git(ws, "rev-parse", "HEAD").strip(), "status": git(ws, "status", "--porcelain")}


def git_agrees(ws: Workspace) -> bool:
    """No difference between the working tree, the index and HEAD."""
    return git(ws, "status", "--porcelain") == ""




@dataclass
class Seeded:
    ws: Workspace
    ada: list[str]  # block ids in people/ada.md, in order
    cache: str  # the block in projects/cache.md (links to ada[1])


def seed(ws: Workspace) -> Seeded:
    """Two topics citing archived records, one linking into the other, and a core."""
    with Transaction(ws, "write", "seed") as txn:
        txn.archive(records())
        txn.write_topic("people/ada.md", "# Ada\n\n## Drinks\n\nAda likes green tea.[^e1]\n\n"
                        "[^e1]: Time: `2026-01-02`; Sources: [tea](openprogram/s1/m0)\n\n## Work\n\n"
                        "Ada maintains the build cache.[^e1]\n\n[^e1]: Time: `2026-01-02`; Sources: [cache](openprogram/s1/m1)\n")
        first = txn.commit()
    assert first.outcome == "installed", first.diagnostics
    ada = [p.block_id for p in ws.topic("people/ada.md").blocks]
    with Transaction(ws, "write", "seed links") as txn:
        txn.archive(records())
        txn.write_topic("projects/cache.md", f"# Build cache\n\nThe cache is sized by [Ada](../people/ada.md#^{ada[1]}).[^e1]\n\n"
                        "[^e1]: Time: `2026-01-02`; Sources: [size](openprogram/s1/m2)\n")
        txn.write_topic("core.md", "# Core\n\nThe user is Ada.[^e1]\n\n[^e1]: Time: `undated`; Sources: [who](openprogram/s1/m3)\n")
        second = txn.commit()
    assert second.outcome == "installed", second.diagnostics
    cache = ws.topic("projects/cache.md").blocks[0].block_id
    return Seeded(ws, ada, cache)
