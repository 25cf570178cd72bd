"""How hybrid search scores a hit: words and meaning, a block through the evidence it cites.

A topic block is distilled from turns of a conversation; the turns themselves (the
evidence records it cites) keep the words a question is asked in. So a block is scored
by its own words and by its best record, and a record by its own words and meaning and
by its neighbours (the turn before it often holds the question it answers, the turn after
the answer to it). Scores are fused by value, not by rank: each signal is normalized by
the query's best of its kind, so a query's strongest match counts 1 whatever the scale
of BM25+ on it, and a weak signal adds little instead of a whole rank's worth.

The weights were chosen on three of LoCoMo's five development conversations (26, 30,
41) and checked on the other two (42, 43), bench/RESULTS.md: `search` top 5 against
plain BM25 over the blocks 1.15x (tuning) and 1.14x (held out), where reciprocal rank
fusion gave 1.00x.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

BLOCK_WORDS = 0.5  # a block's own words, against its best record's (1)
MEANING = 0.3  # cosine similarity to the query, added to a record's (or a block's) words
NEIGHBOUR = 0.3  # the share of a record's score the turns just before and after it get
# A record cited by n blocks lifts each by its score / n ** SHARED. A working session's turn
# is long (the agent's whole answer) and is distilled into several blocks; passed whole to
# each, its score let all of them outrank the one block the question is about, whose own
# words only count half (coding set, tune split: 32 -> 34 of 36 found; LoCoMo's turns are
# mostly cited by one block: unchanged within a question, bench/RESULTS.md).
SHARED = 0.25


@dataclass(frozen=True)
class Scored:
    score: float
    relevance: float  # BM25+ relevance of the document's own words (0: none shared)
    similarity: float | None  # cosine to the query, when semantic search looked at it
    evidence: float = 0.0  # a block's best cited record's BM25+ relevance


def fuse(block_words: dict[int, float], block_sims: dict[int, float], record_words: dict[int, float],
         record_sims: dict[int, float], neighbours: Callable[[int], Iterable[int]],
         citing: Callable[[int], Iterable[int]]) -> tuple[dict[int, Scored], dict[int, Scored]]:
    """(blocks, records): each scored document by its index in its own model.

    `block_words` / `record_words`: BM25+ relevance (above the floor) of the documents
    sharing a word; `*_sims`: cosine of the nearest by meaning; `neighbours(r)`: the
    records beside record r in its archive; `citing(r)`: the blocks that cite record r."""
    best_block = max(block_words.values(), default=0.0) or 1.0
    best_record = max(record_words.values(), default=0.0) or 1.0
    own = {r: record_words.get(r, 0.0) / best_record + MEANING * max(record_sims.get(r, 0.0), 0.0)
           for r in record_words.keys() | record_sims.keys()}
    context = dict(own)
    for r, score in own.items():
        for n in neighbours(r):
            context[n] = context.get(n, 0.0) + NEIGHBOUR * score
    records = {r: Scored(s, record_words.get(r, 0.0), record_sims.get(r)) for r, s in context.items()}
    through: dict[int, tuple[float, float]] = {}  # block -> (best record's score, its relevance)
    for r, s in context.items():
        blocks_citing = list(citing(r))
        share = s / max(len(blocks_citing), 1) ** SHARED
        for b in blocks_citing:
            if share > through.get(b, (-1.0, 0.0))[0]:
                through[b] = (share, record_words.get(r, 0.0))
    blocks = {}
    for b in block_words.keys() | block_sims.keys() | through.keys():
        best, evidence = through.get(b, (0.0, 0.0))
        score = BLOCK_WORDS * block_words.get(b, 0.0) / best_block + MEANING * max(block_sims.get(b, 0.0), 0.0) + best
        blocks[b] = Scored(score, block_words.get(b, 0.0), block_sims.get(b), evidence)
    return blocks, records
