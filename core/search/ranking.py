"""BM25+ ranking over token lists: built with bm25s, queried in plain Python, saved to disk.

Measured against rank-bm25's BM25Plus on 10,000 mixed English/Chinese blocks
(bench/search.py): identical top 5. bm25s precomputes a sparse score matrix (one
score per token and document containing it), which makes a query a sum over the
postings of its tokens; rank-bm25 rescans every document per query term.

The matrix is all a query needs, so it is kept as flat arrays (`array` module). A fresh
process — a hook before an agent's prompt — loads a saved index (`to_bytes` /
`from_bytes`) in milliseconds and sums postings in plain Python, where importing bm25s
alone costs a quarter of a second and rebuilding the index most of a second. A
long-lived process calls `vectorize()` (numpy views of the same arrays, no copy): a
query there costs about a millisecond instead of several. Both paths sum the same
float32 scores; only building needs bm25s.

BM25+ gives every document a floor score for every query term, matched or not (bm25s's
"non-occurrence" array); a document that shares no token with the query is not a hit,
so matches are taken from the postings, not from the scores. `baseline(query)` is that
floor: what a document with none of the query's words scores.
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from dataclasses import dataclass
from typing import Any

import orjson

# BM25Plus parameters as rank-bm25 (and OpenProgram's retrieval) use them.
K1 = 1.5
B = 0.75
DELTA = 1.0
_MAGIC = b"SCRBM25\x01"


@dataclass(frozen=True)
class Ranked:
    doc: int
    score: float


class Bm25Index:
    """An immutable BM25+ index over tokenized documents."""

    def __init__(self, docs: list[list[str]]) -> None:
        self.size = len(docs)
        self._vocab: dict[str, int] = {}
        ids = [[self._vocab.setdefault(token, len(self._vocab)) for token in doc] for doc in docs]
        self._data = array("f")
        self._indices = array("i")
        self._indptr = array("q", [0])
        self._floor = array("f")
        self._np: tuple | None = None
        if self.size and self._vocab:
            import bm25s
            from bm25s.tokenization import Tokenized

            model = bm25s.BM25(method="bm25+", k1=K1, b=B, delta=DELTA)
            model.index(Tokenized(ids=ids, vocab=dict(self._vocab)), show_progress=False)  # bm25s adds "" to it
            self._data = array("f", model.scores["data"].astype("float32").tobytes())
            self._indices = array("i", model.scores["indices"].astype("int32").tobytes())
            self._indptr = array("q", model.scores["indptr"].astype("int64").tobytes())
            self._floor = array("f", model.nonoccurrence_array.astype("float32").tobytes())
            self.vectorize()

    def vectorize(self) -> "Bm25Index":
        """Query with numpy from now on (for processes that answer many queries)."""
        import numpy as np

        self._np = tuple(np.frombuffer(a, dtype=a.typecode)
                         for a in (self._data, self._indices, self._indptr))
        return self

    def rank(self, query: list[str], k: int) -> list[Ranked]:
        """The best `k` documents sharing at least one token with `query`, best first.

        Ties keep document order (callers order documents canonically).
        """
        query_ids = [self._vocab[t] for t in query if t in self._vocab]
        if not query_ids or k <= 0:
            return []
        floor = self.baseline(query)
        if self._np is not None:
            return self._rank_numpy(query_ids, k, floor)
        scores: dict[int, float] = {}
        data, indices, indptr = self._data, self._indices, self._indptr
        for t in query_ids:  # a token repeated in the query counts again, as in bm25s
            start, end = indptr[t], indptr[t + 1]
            for doc, score in zip(indices[start:end], data[start:end]):
                scores[doc] = scores.get(doc, 0.0) + score
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [Ranked(doc, score + floor) for doc, score in best]

    def _rank_numpy(self, query_ids: list[int], k: int, floor: float) -> list[Ranked]:
        import numpy as np

        data, indices, indptr = self._np  # type: ignore[misc]
        spans = [(int(indptr[t]), int(indptr[t + 1])) for t in query_ids]
        docs = np.concatenate([indices[start:end] for start, end in spans])
        # one pass in query order: each document's sum adds up as the plain loop's does
        scores = np.bincount(docs, weights=np.concatenate([data[start:end] for start, end in spans]),
                             minlength=self.size)
        hit = np.zeros(self.size, dtype=bool)
        hit[docs] = True
        matched = np.flatnonzero(hit)
        if len(matched) > k:  # only the documents scoring at least the k-th best can be in the top k
            kth = np.partition(scores[matched], len(matched) - k)[len(matched) - k]
            matched = matched[scores[matched] >= kth]
        order = np.lexsort((matched, -scores[matched]))[:k]
        return [Ranked(int(matched[i]), float(scores[matched[i]]) + floor) for i in order]

    def baseline(self, query: list[str]) -> float:
        """The score of a document sharing no token with `query` (BM25+'s floor)."""
        return sum(self._floor[self._vocab[t]] for t in query if t in self._vocab)

    def to_bytes(self) -> bytes:
        """The index as one blob: a JSON header (size, vocabulary in id order), then the arrays."""
        header = json.dumps({"size": self.size, "vocab": list(self._vocab), "byteorder": sys.byteorder,
                             "lengths": [len(self._data), len(self._indices), len(self._indptr), len(self._floor)]},
                            ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        parts = [_MAGIC, struct.pack("<Q", len(header)), header]
        parts += [a.tobytes() for a in (self._data, self._indices, self._indptr, self._floor)]
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, blob: bytes) -> "Bm25Index":
        """An index saved by `to_bytes`; ValueError when the blob is not one (or was cut short)."""
        if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 8:
            raise ValueError("not a saved BM25 index")
        at = len(_MAGIC)
        (length,) = struct.unpack_from("<Q", blob, at)
        at += 8
        header = orjson.loads(blob[at:at + length])
        at += length
        if header.get("byteorder") != sys.byteorder:
            raise ValueError("saved BM25 index has another byte order")
        index = cls.__new__(cls)
        index.size = int(header["size"])
        index._vocab = dict(zip(header["vocab"], range(len(header["vocab"]))))
        arrays: list[Any] = []  # float32, int32, int64, float32
        for code, count in zip("fiqf", header["lengths"]):
            a = array(code)
            end = at + count * a.itemsize
            if end > len(blob):
                raise ValueError("saved BM25 index is cut short")
            a.frombytes(blob[at:end])
            arrays.append(a)
            at = end
        index._data, index._indices, index._indptr, index._floor = arrays
        index._np = None
        if index._vocab and len(index._indptr) != len(index._vocab) + 1:
            raise ValueError("saved BM25 index is inconsistent")
        return index
