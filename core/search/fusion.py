"""Reciprocal rank fusion of the two rankings of hybrid search.

BM25+ scores and cosine similarities live on different scales, so they are fused by
rank, not by value (Cormack, Clarke & Büttcher 2009): a document scores 1/(K + r) for
each ranking that has it at rank r (1-based). A document both rankings put high beats
one only either does; a paraphrase that shares no word still comes in through meaning.

Words are trusted where they are strong: a document whose BM25+ relevance reaches
`WORDS_TRUSTED` (it shares the query's rarer words, a name, a path) keeps its rank by
words ahead of the fused rest. Static embeddings pull near-but-wrong chat turns
forward, and plain fusion let them displace such hits: on LoCoMo's development split
search fell to 0.84x BM25 alone, while with the trust it matches BM25 (1.00x) and still
finds the paraphrase set's facts (0.81, bench/paraphrase.py; a query with no strong
word is ranked by the fusion alone).
"""

from __future__ import annotations

RRF_K = 60  # the damping the paper found robust across collections
SEMANTIC_WEIGHT = 1.0  # both rankings count alike in search; recall weighs meaning less (agents/recall.py)
WORDS_TRUSTED = 3.0  # BM25+ relevance (score above a block without the query's words) that ranks by words alone


def fuse(lexical: dict[int, float], similar: dict[int, float], weight: float = SEMANTIC_WEIGHT,
         words_trusted: float | None = None) -> dict[int, tuple[float, float, float | None]]:
    """Document index -> (fused score, BM25 relevance or 0, similarity or None).

    `lexical`: BM25+ relevance (score above its floor) of the documents sharing a word;
    `similar`: cosine similarity of the nearest documents by meaning; `weight`: what a rank
    there counts against a rank by words; `words_trusted`: the relevance from which a
    document ranks by words ahead of every fused one (None: fusion alone)."""
    fused: dict[int, tuple[float, float, float | None]] = {}
    for n in lexical.keys() | similar.keys():
        fused[n] = (0.0, lexical.get(n, 0.0), similar.get(n))
    for ranking, share in ((lexical, 1.0), (similar, weight)):
        for rank, n in enumerate(sorted(ranking, key=lambda d: (-ranking[d], d)), start=1):
            score, relevance, similarity = fused[n]
            fused[n] = (score + share / (RRF_K + rank), relevance, similarity)
    if words_trusted is not None:
        top = 1.0 + weight  # above any fused score: 1/(K+1) + weight/(K+1) < 1 + weight
        for n, (score, relevance, similarity) in fused.items():
            if relevance >= words_trusted:
                fused[n] = (top + relevance, relevance, similarity)
    return fused
