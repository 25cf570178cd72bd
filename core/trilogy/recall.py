"""Per-turn recall for the trilogy: BM25 over what the session-start injection left out.

The injected files are already in front of the model; searching them again would only
repeat them. What the budget cut — older log entries, the archive, trimmed PROJECT.md
sections — is what a query can still bring back.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..search.ranking import Bm25Index
from ..search.tokenize import tokenize
from . import templates
from .archive import archived_entries
from .injection import Injection, entry_key
from .layout import TrilogyPaths
from .log import parse_log
from .sections import split_sections
from .snapshot import Snapshot


@dataclass(frozen=True)
class RecallHit:
    source: str  # "SESSIONS.md", "DECISIONS.md", "PROJECT.md", "archive"
    heading: str
    text: str
    score: float


def recall(paths: TrilogyPaths, snapshot: Snapshot, injection: Injection | None, query: str, top_k: int = 5) -> list[RecallHit]:
    candidates: list[tuple[str, str, str]] = []
    injected = injection.injected_entries if injection else frozenset()
    for name in (templates.SESSIONS, templates.DECISIONS):
        for entry in parse_log(snapshot.text(name)).entries:
            if entry_key(name, entry) not in injected:
                candidates.append((name, entry.heading, entry.clean))
    cut = {s.name for s in injection.sections if s.cut} if injection else None
    for section in split_sections(snapshot.project).sections:
        if cut is None or section.heading in cut:
            candidates.append((templates.PROJECT, section.heading, section.text.rstrip("\n") + "\n"))
    for entry in archived_entries(paths):
        candidates.append(("archive", entry.heading, entry.clean))
    if not candidates:
        return []
    index = Bm25Index([tokenize(f"{heading}\n{text}") for _, heading, text in candidates])
    return [
        RecallHit(candidates[r.doc][0], candidates[r.doc][1], candidates[r.doc][2], r.score)
        for r in index.rank(tokenize(query), top_k)
    ]


def render_hits(hits: list[RecallHit]) -> str:
    return "\n".join(f"--- {hit.source} · {hit.heading}\n{hit.text}" for hit in hits)
