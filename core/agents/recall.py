"""Recall before an agent's prompt: the best blocks for it, above a floor, within a budget.

BM25+ scores every document at least its "floor" (see `search.ranking`), and the floor
grows with the query, so the relevance of a hit is what its matching words earned: its
score minus the floor. A hit is kept when that is at least `recall.min_relevance` and at
least `recall.relative_floor` of the best hit's; blocks this agent session was already
given (the core at session start, earlier recalls) are skipped; hits are added best
first while the fenced text stays within `recall.budget_chars`.

Settings (`config.toml`, table `[recall]`): `enabled` (default true; recall is also off
when `core.inject` is false), `top_k` (5), `min_relevance` (1.0), `relative_floor`
(0.5), `budget_chars` (2000, about 500 tokens).

Runs in a fresh process before every prompt, so the index is opened with
`vectorize=False`: a saved model is loaded, never rebuilt when nothing changed. When
memory changed elsewhere (an edit in the app, sleep, sync) and the saved model is out of
date, a small workspace is rebuilt on the spot; a big one (over `INLINE_BUILD` blocks,
about a second) is rebuilt by a detached process while this prompt goes without recall.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Config, load_config
from ..fence import AGENT_NOTE, fence_memory
from ..paths import StatePaths

if TYPE_CHECKING:
    from ..search import Hit

DEFAULTS: dict[str, Any] = {"enabled": True, "top_k": 5, "min_relevance": 1.0, "relative_floor": 0.5,
                            "budget_chars": 2000}
_CANDIDATES = 4  # hits ranked per hit wanted: room for the seen and the over-budget ones
INLINE_BUILD = 2000  # blocks: a bigger stale index is rebuilt in a detached process, not while the agent waits


@dataclass
class RecallSettings:
    enabled: bool = DEFAULTS["enabled"]
    top_k: int = DEFAULTS["top_k"]
    min_relevance: float = DEFAULTS["min_relevance"]
    relative_floor: float = DEFAULTS["relative_floor"]
    budget_chars: int = DEFAULTS["budget_chars"]

    @classmethod
    def from_config(cls, config: Config) -> "RecallSettings":
        """The `[recall]` table; a value of the wrong type or out of range reads as its default."""
        return cls(
            enabled=config.flag("recall.enabled", True) and config.flag("core.inject", True),
            top_k=config.integer("recall.top_k", DEFAULTS["top_k"]),
            min_relevance=config.number("recall.min_relevance", DEFAULTS["min_relevance"]),
            relative_floor=config.number("recall.relative_floor", DEFAULTS["relative_floor"], high=1),
            budget_chars=config.integer("recall.budget_chars", DEFAULTS["budget_chars"]),
        )


@dataclass
class Recall:
    text: str  # fenced, or "" (nothing to add)
    reason: str  # "recalled" | "off" | "no hits" | "all seen" | "over budget" | "index rebuilding"
    hits: list[dict[str, Any]] = field(default_factory=list)  # block_id, path, score, relevance
    skipped_seen: int = 0
    skipped_budget: int = 0

    @property
    def blocks(self) -> list[str]:
        return [h["block_id"] for h in self.hits]


def recall_for_prompt(state_dir: Path, prompt: str, seen: set[str] | frozenset[str] = frozenset(),
                      settings: RecallSettings | None = None) -> Recall:
    """What to add to the agent's context for `prompt`."""
    settings = settings or RecallSettings.from_config(load_config(Path(state_dir)))
    if not settings.enabled:
        return Recall("", "off")
    if not prompt.strip():
        return Recall("", "no hits")
    from ..memory.reading import read_consistent
    from ..search import SearchIndex, render_hit

    def rank(state: Path) -> tuple[list[Hit], float] | None:
        index = SearchIndex(StatePaths(state).memory, vectorize=False)
        live = state == Path(state_dir)  # else a snapshot of an install still pending: built here, once
        if index.refresh(max_build=INLINE_BUILD if live else None).stale:  # changed outside a hook's write job
            return None
        return index.search(prompt, top_k=settings.top_k * _CANDIDATES + len(seen)), index.baseline(prompt)

    found = read_consistent(state_dir, rank)
    if found is None:
        from .jobs import spawn_index_refresh

        spawn_index_refresh(Path(state_dir))
        return Recall("", "index rebuilding")
    ranked, floor = found
    relevant = [(hit, hit.score - floor) for hit in ranked if hit.score - floor >= settings.min_relevance]
    if relevant:
        best = relevant[0][1]
        relevant = [(hit, rel) for hit, rel in relevant if rel >= settings.relative_floor * best]
    kept: list[dict[str, Any]] = []
    pieces: list[str] = []
    seen_n, over = 0, 0
    for hit, relevance in relevant:
        if len(kept) >= settings.top_k:
            break
        if hit.block_id in seen:
            seen_n += 1
            continue
        trial = pieces + [render_hit(hit)]
        if len(fence_memory("\n\n".join(trial), AGENT_NOTE)) > settings.budget_chars:
            over += 1
            continue
        pieces = trial
        kept.append({"block_id": hit.block_id, "path": hit.path, "score": round(hit.score, 3),
                     "relevance": round(relevance, 3)})
    text = fence_memory("\n\n".join(pieces), AGENT_NOTE) if pieces else ""
    reason = "recalled" if kept else ("all seen" if seen_n else "over budget" if over else "no hits")
    return Recall(text, reason, kept, seen_n, over)
