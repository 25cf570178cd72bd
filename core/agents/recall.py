"""Recall before an agent's prompt: what memory holds for it, ranked, deduplicated, within a token budget.

Candidates are topic blocks and the evidence records of the archive (the turns the
blocks cite, and those no block cites yet), ranked together by hybrid search (BM25+
and embedding similarity fused by value, a block also through the records it cites, a
record also through the turns beside it: `core.search.fusion`). A block and the records
it cites are one candidate: whichever ranks first stands for the others. A candidate is
kept when its words (a block's, or its best record's) earned at least `min_relevance`
above BM25+'s floor (and `relative_floor` of the best such hit), or when its meaning is
at least `min_similarity` close to the
prompt's; candidates this agent session was already given (the core at session start,
earlier recalls) are skipped; the rest are added best first while the injected text
stays within `budget_tokens` (and `budget_chars`, when set).

The injected text is plain: a block's claim without footnote markers, anchors or source
paths, a record as `2023-05-08, Caroline: what was said` (its date and speaker, named
by its session or its turn rather than "Owner": `recall_text.Speakers`, so temporal
questions can be answered), a block followed by its one reference line
`(memory_get <id>)`. An item longer than `item_chars` is cut to its sentences sharing the
most of the prompt's words, and the sentence after each (`recall_text.focused`, gaps
marked " … "): a conversation's block holds a dozen turns' worth of sentences, and the
budget goes to more items' matching sentences instead of one item's others (LoCoMo
tuning split, bench/RESULTS.md: the answer's words among the injected text 0.647 -> 0.659;
held out 0.617 -> 0.613). The budget is counted in tokens without loading the tokenizer when the
lines were counted before (`recall_tokens`: the write job counts every candidate ahead).

Settings (`config.toml`, table `[recall]`): `enabled` (default true; recall is also off
when `core.inject` is false), `top_k` (8), `min_relevance` (1.0), `relative_floor`
(0.3), `min_similarity` (0.35), `budget_tokens` (500), `budget_chars` (no limit unless set),
`item_chars` (600; 0: whole items).

Runs in a fresh process before every prompt, so the index is opened with
`vectorize=False`: saved BM25 arrays are loaded and the vectors memory-mapped, never
rebuilt when nothing changed. When memory changed elsewhere and the saved index is out
of date, a small workspace is rebuilt on the spot; a big one (over `INLINE_BUILD`
documents) is rebuilt by a detached process while this prompt goes without recall.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Config, load_config
from ..fence import AGENT_NOTE, fence_memory
from ..paths import StatePaths
from .recall_text import Focus, Speakers, item_lines
from .recall_tokens import LineTokens

if TYPE_CHECKING:
    from ..search import Hit, SearchIndex

DEFAULTS: dict[str, Any] = {"enabled": True, "top_k": 8, "min_relevance": 1.0, "relative_floor": 0.3,
                            "min_similarity": 0.35, "budget_tokens": 500, "budget_chars": None, "item_chars": 600}
_CANDIDATES = 4  # hits ranked per hit wanted: room for the seen, the duplicates and the over-budget ones
INLINE_BUILD = 5000  # documents: a bigger stale index is rebuilt in a detached process, not while the agent waits


@dataclass
class RecallSettings:
    enabled: bool = DEFAULTS["enabled"]
    top_k: int = DEFAULTS["top_k"]
    min_relevance: float = DEFAULTS["min_relevance"]
    relative_floor: float = DEFAULTS["relative_floor"]
    min_similarity: float = DEFAULTS["min_similarity"]
    budget_tokens: int = DEFAULTS["budget_tokens"]
    budget_chars: int | None = DEFAULTS["budget_chars"]
    item_chars: int = DEFAULTS["item_chars"]

    @classmethod
    def from_config(cls, config: Config) -> "RecallSettings":
        """The `[recall]` table; a value of the wrong type or out of range reads as its default."""
        chars = config.integer("recall.budget_chars", 0)
        return cls(
            enabled=config.flag("recall.enabled", True) and config.flag("core.inject", True),
            top_k=config.integer("recall.top_k", DEFAULTS["top_k"]),
            min_relevance=config.number("recall.min_relevance", DEFAULTS["min_relevance"]),
            relative_floor=config.number("recall.relative_floor", DEFAULTS["relative_floor"], high=1),
            min_similarity=config.number("recall.min_similarity", DEFAULTS["min_similarity"], high=1),
            budget_tokens=config.integer("recall.budget_tokens", DEFAULTS["budget_tokens"]),
            budget_chars=chars or None,
            item_chars=config.integer("recall.item_chars", DEFAULTS["item_chars"], low=0),
        )


@dataclass
class Recall:
    text: str  # fenced, or "" (nothing to add)
    reason: str  # "recalled" | "off" | "no hits" | "all seen" | "over budget" | "index rebuilding"
    hits: list[dict[str, Any]] = field(default_factory=list)  # block_id, kind, path, score, relevance, similarity
    skipped_seen: int = 0
    skipped_budget: int = 0
    tokens: int = 0  # of `text`

    @property
    def blocks(self) -> list[str]:
        """Ids of what was given (blocks, and records by source id): skipped next time."""
        return [h["block_id"] for h in self.hits]


def record_target(hit: "Hit") -> str:
    """A record's `path#anchor`, as the blocks citing it name it."""
    from ..memory.sources import anchor_for

    return f"{hit.path}#{anchor_for(hit.block_id)}"


def relevant(hits: list["Hit"], settings: RecallSettings) -> list["Hit"]:
    """The hits that clear the floors: by their words, or by their meaning."""
    best = max((h.relevance for h in hits), default=0.0)
    lexical_floor = max(settings.min_relevance, settings.relative_floor * best)
    return [h for h in hits
            if h.relevance >= lexical_floor or (h.similarity is not None and h.similarity >= settings.min_similarity)]


def recall_for_prompt(state_dir: Path, prompt: str, seen: set[str] | frozenset[str] = frozenset(),
                      settings: RecallSettings | None = None,
                      index_for: Callable[[Path], SearchIndex] | None = None) -> Recall:
    """What to add to the agent's context for `prompt`. `index_for(memory)`: the search
    index of the live state's memory, kept by a long-lived caller (`recall_server`);
    by default a fresh one, as a hook's one-shot process has nothing to keep."""
    settings = settings or RecallSettings.from_config(load_config(Path(state_dir)))
    if not settings.enabled:
        return Recall("", "off")
    if not prompt.strip():
        return Recall("", "no hits")
    from ..memory.reading import read_consistent
    from ..search import SearchIndex

    def rank(state: Path) -> tuple[list[Hit], set[str]] | None:
        live = state == Path(state_dir)  # else a snapshot of an install still pending: built here, once
        memory = StatePaths(state).memory
        index = index_for(memory) if index_for is not None and live else SearchIndex(memory, vectorize=False)
        if index.refresh(include_sources=True, max_build=INLINE_BUILD if live else None).stale:
            return None
        hits = index.search(prompt, top_k=settings.top_k * _CANDIDATES + len(seen), include_sources=True,
                            refresh=False)
        return hits, index.cited_by(seen) if seen else set()

    found = read_consistent(state_dir, rank)
    if found is None:
        from .jobs import spawn_index_refresh

        spawn_index_refresh(Path(state_dir))
        return Recall("", "index rebuilding")
    ranked, seen_records = found
    counts = LineTokens(StatePaths(state_dir).memory)
    focus = None
    if settings.item_chars:
        from ..search.query import query_tokens

        focus = Focus(frozenset(query_tokens(prompt)), settings.item_chars)
    chosen = select(relevant(ranked, settings), seen, settings, counts, seen_records, Speakers(Path(state_dir)), focus)
    counts.save()
    return chosen


def select(candidates: list["Hit"], seen: set[str] | frozenset[str], settings: RecallSettings,
           counts: LineTokens, seen_records: set[str] = set(), speakers: Speakers | None = None,
           focus: Focus | None = None) -> Recall:
    """Best first: skip what was seen and what another candidate already stands for, stop at the budget.
    `seen_records`: the records the seen blocks cite (the session has them through their blocks);
    `focus`: long items are cut to the prompt's sentences (`recall_text.focused`)."""
    kept: list[Hit] = []
    rendered: dict[int, list[str]] = {}  # id(hit) -> its lines
    covered = set(seen_records)  # records (`path#anchor`) a kept or seen block cites, and the kept records
    seen_n = over = 0
    text, tokens = "", 0
    citing: dict[str, Hit] = {}  # record -> the best-ranked candidate block citing it: it stands for the record
    for hit in candidates:
        for ref in hit.refs:
            citing.setdefault(ref, hit)
    for hit in candidates:
        if hit.kind == "source":
            hit = citing.get(record_target(hit), hit)
            if hit in kept:
                continue
        if len(kept) >= settings.top_k:
            break
        if hit.block_id in seen:
            seen_n += 1
            continue
        if hit.kind == "source" and record_target(hit) in covered:
            seen_n += not kept and record_target(hit) in seen_records
            continue  # its block is in already
        if hit.kind == "block" and hit.refs and all(ref in covered for ref in hit.refs):
            continue  # every record it rests on is in already
        for item in kept + [hit]:
            if id(item) not in rendered:
                rendered[id(item)] = item_lines(item, speakers, focus)
        lines = [line for item in kept + [hit] for line in rendered[id(item)]]
        trial, trial_tokens = fence_memory("\n".join(lines), AGENT_NOTE), counts.text(lines)
        if trial_tokens > settings.budget_tokens or (settings.budget_chars and len(trial) > settings.budget_chars):
            over += 1
            continue
        kept.append(hit)
        text, tokens = trial, trial_tokens
        covered.update(hit.refs if hit.kind == "block" else (record_target(hit),))
    hits = [{"block_id": h.block_id, "kind": h.kind, "path": h.path, "score": round(h.score, 4),
             "relevance": round(h.relevance, 3),
             "similarity": None if h.similarity is None else round(h.similarity, 3)} for h in kept]
    reason = "recalled" if kept else ("all seen" if seen_n else "over budget" if over else "no hits")
    return Recall(text, reason, hits, seen_n, over, tokens)
