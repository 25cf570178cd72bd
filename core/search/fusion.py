"""Reciprocal rank fusion of the two rankings of hybrid search.

BM25+ scores and cosine similarities live on different scales, so they are fused by
rank, not by value (Cormack, Clarke & Büttcher 2009): a document scores 1/(K + r) for
each ranking that has it at rank r (1-based). A document both rankings put high beats
one only either does; a paraphrase that shares no word still comes in through meaning.
"""

from __future__ import annotations

RRF_K = 60  # the damping the paper found robust across collections
SEMANTIC_WEIGHT = 1.0  # both rankings count alike in search; recall weighs meaning less (agents/recall.py)


def fuse(lexical: dict[int, float], similar: dict[int, float],
         weight: float = SEMANTIC_WEIGHT) -> dict[int, tuple[float, float, float | None]]:
    """Document index -> (fused score, BM25 relevance or 0, similarity or None).

    `lexical`: BM25+ relevance (score above its floor) of the documents sharing a word;
    `similar`: cosine similarity of the nearest documents by meaning; `weight`: what a rank
    there counts against a rank by words."""
    fused: dict[int, tuple[float, float, float | None]] = {}
    for n in lexical.keys() | similar.keys():
        fused[n] = (0.0, lexical.get(n, 0.0), similar.get(n))
    for ranking, share in ((lexical, 1.0), (similar, weight)):
        for rank, n in enumerate(sorted(ranking, key=lambda d: (-ranking[d], d)), start=1):
            score, relevance, similarity = fused[n]
            fused[n] = (score + share / (RRF_K + rank), relevance, similarity)
    return fused
