"""The search index of a memory workspace, cached by file content.

Per file, the cache keeps the content hash and what was extracted from it
(`memory/.scriptorium/search-cache.json`). A refresh stats every file; a file whose
size or mtime moved is re-hashed, and only a file whose hash changed is parsed again.
The BM25 model is rebuilt only when the set of (file, hash) pairs changed, so queries
between edits reuse it. The topic model is also saved (`search-model.bin`, stamped
with a digest of those pairs): a fresh process whose files match loads it instead of
rebuilding — a hook answering before an agent's prompt costs a stat per file, the
cache's JSON and the saved arrays, never bm25s or numpy (`vectorize=False`).
"""

from __future__ import annotations

import hashlib
import json
import os
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..config import load_config
from ..fsutil import atomic_write_bytes, atomic_write_text
from ..memory.names import Skipped, list_topic_files, printable, unsafe_problem
from ..paths import RUNTIME_DIR
from .corpus import SOURCES, TOPICS, Doc, source_docs, topic_docs, untrusted_targets
from .fusion import fuse
from .query import query_tokens
from .ranking import Bm25Index
from .tokenize import VERSION as TOKENS_VERSION, tokenize

if TYPE_CHECKING:
    from .embed import Embedder

CACHE_FILE = "search-cache.json"
MODEL_FILE = "search-model.bin"
# per model (topic blocks alone, or blocks and source records): its saved BM25 arrays, its vectors
MODEL_FILES = {False: MODEL_FILE, True: "search-model-sources.bin"}
VECTORS_FILES = {False: "search-vectors.bin", True: "search-vectors-sources.bin"}
# which blocks cite each record (indices into the two models), stamped with the models' digests
CITATIONS_FILE = "search-citations.json"
# Cosine similarity a document must reach to be a hit by meaning alone (WordLlama's
# unrelated pairs sit below it nine times in ten; a paraphrase's fact usually above).
SEMANTIC_FLOOR = 0.05
CACHE_VERSION = 1
DEFAULT_TOP_K = 5
# records ranked by words, and by meaning, per query: what can lift a block (fewer: the weak
# matches of a common word lift no block; LoCoMo tuning split, `search` 1.14x -> 1.15x plain BM25)
RECORDS_WANT = 100
# Only channel archives can hold untrusted (pending) evidence (formats §2.6).
_CHANNEL_PREFIX = "channel-"


@dataclass(frozen=True)
class Hit:
    block_id: str  # a topic block id, or a source id for a source record
    path: str
    line: int
    score: float  # words, meaning and a block's evidence fused by value (fusion.py)
    text: str
    kind: str = "block"
    relevance: float = 0.0  # what the matching words earned, BM25+ above its floor (a block: it or its best record)
    similarity: float | None = None  # cosine to the query when semantic search found it
    refs: tuple[str, ...] = ()  # a block's cited records, as root-relative `path#anchor`s

    def to_json(self) -> dict:
        return {"block_id": self.block_id, "path": self.path, "line": self.line, "score": round(self.score, 4), "text": self.text}


@dataclass
class RefreshReport:
    parsed: list[str] = field(default_factory=list)  # files (re)parsed in this refresh
    rebuilt: bool = False  # whether the BM25 model was rebuilt
    stale: bool = False  # the model needed a rebuild bigger than `max_build` allowed: not searchable yet


@dataclass
class _FileEntry:
    sha256: str
    size: int
    mtime_ns: int
    items: list[Any]  # Docs, or as read from the cache: dicts, made Docs when first needed
    untrusted: list[str] = field(default_factory=list)  # channel archives: pending `path#anchor`s

    @property
    def docs(self) -> list[Doc]:
        if self.items and not isinstance(self.items[0], Doc):
            self.items = [Doc.from_json(d) for d in self.items]
        return self.items

    def doc(self, i: int) -> Doc:
        item = self.items[i]
        return item if isinstance(item, Doc) else Doc.from_json(item)


class _Docs(Sequence[Doc]):
    """The model's documents in index order, over the files' entries: a query that loads
    a saved model parses only its hits' documents out of the cache."""

    def __init__(self, rels: list[str], entries: list[_FileEntry]) -> None:
        self._rels = rels
        self._entries = entries
        self._starts = list(accumulate((len(e.items) for e in entries), initial=0))
        self.records = sum(len(e.items) for r, e in zip(rels, entries) if r.startswith(f"{SOURCES}/"))

    def rel(self, i: int) -> str:
        """The file document `i` is in, without parsing it."""
        return self._rels[bisect_right(self._starts, i) - 1]

    def is_record(self, i: int) -> bool:
        return self.rel(i).startswith(f"{SOURCES}/")

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not 0 <= i < len(self):
            raise IndexError(i)
        n = bisect_right(self._starts, i) - 1
        return self._entries[n].doc(i - self._starts[n])

    def __iter__(self) -> Iterator[Doc]:
        for entry in self._entries:
            yield from entry.docs


class SearchIndex:
    def __init__(self, memory_dir: Path, *, vectorize: bool = True, semantic: bool | None = None) -> None:
        """`vectorize`: query a loaded model with numpy (long-lived processes); a
        one-shot process passes False and never imports numpy for a saved model.
        `semantic`: fuse BM25 with embedding similarity (None: as `[search] semantic` in
        the state's config.toml says, on by default; off never imports the model)."""
        self.memory = Path(memory_dir)
        self.vectorize = vectorize
        self._semantic = semantic
        self._embedder: Embedder | None | bool = False  # False: not resolved yet
        self._cache_path = self.memory / RUNTIME_DIR / CACHE_FILE
        self._files: dict[str, _FileEntry] = self._load_cache()
        self._models: dict[bool, tuple[tuple, _Docs, Bm25Index, str]] = {}
        self._vectors: dict[bool, tuple[str, Any]] = {}  # per model: (its digest, rows in document order)
        self._untrusted: set[str] = set()
        self._cites: tuple[str, dict[int, list[int]]] | None = None
        self.skipped: list[Skipped] = []  # as of the last refresh: files left out for their names (names.py)

    def refresh(self, *, include_sources: bool = False, max_build: int | None = None) -> RefreshReport:
        """Bring the index up to date with the files; parse only what changed.

        `max_build`: rebuild the model only for at most that many documents; past it a
        model that neither is current nor can be loaded leaves the report `stale` (a
        caller that must answer at once — recall before a prompt — has it rebuilt
        elsewhere instead of waiting)."""
        report = RefreshReport()
        files: dict[str, _FileEntry] = {}
        if not include_sources:  # source entries not looked at now stay cached as they are
            files = {rel: e for rel, e in self._files.items() if rel.startswith(f"{SOURCES}/") and not _is_channel(rel)}
        dirty = False
        for rel in self._list(include_sources=include_sources):
            entry, status = self._entry(rel)
            if entry is None:
                continue
            files[rel] = entry
            dirty |= status != "same"
            if status == "parsed":
                report.parsed.append(rel)
        dirty |= set(files) != set(self._files)
        self._files = files
        self._untrusted = {t for rel, e in files.items() if _is_channel(rel) for t in e.untrusted}
        if dirty:
            self._save_cache()
        # blocks alone; and with sources, blocks and records (search ranks a block through its records)
        for sources in (False, True) if include_sources else (False,):
            rels = [rel for rel in sorted(files) if sources or rel.startswith(f"{TOPICS}/")]
            fingerprint = tuple((rel, files[rel].sha256) for rel in rels)
            model = self._models.get(sources)
            if model is not None and model[0] == fingerprint:
                continue
            if sources and self._models[False][0] == fingerprint:  # no archive: the blocks' model is the same
                self._models[True] = self._models[False]
                continue
            docs = _Docs(rels, [files[rel] for rel in rels])
            digest = _digest(fingerprint)
            bm25 = self._load_model(sources, digest, len(docs))
            if bm25 is None:
                if max_build is not None and len(docs) > max_build:
                    report.stale = True
                    return report
                bm25 = Bm25Index([tokenize(d.search_text()) for d in docs])
                report.rebuilt = True
                self._save_model(sources, digest, bm25)
            self._models[sources] = (fingerprint, docs, bm25, digest)
        return report

    def search(self, query: str, *, top_k: int = DEFAULT_TOP_K, include_sources: bool = False,
               refresh: bool = True) -> list[Hit]:
        """The best `top_k` blocks for `query` (and source records if asked), best first.

        A block is ranked by its own words and meaning and by the evidence records it cites
        (fusion.py), so the archive is looked at either way. Blocks citing untrusted
        (pending) evidence are left out of recall. `refresh=False` skips looking at the
        files, for a caller that knows they did not change (the MCP server checks a
        cheaper fingerprint).
        """
        if refresh or True not in self._models:
            self.refresh(include_sources=True)
        _, blocks, block_index, _ = self._models[False]
        _, docs, index, _ = self._models[True]
        want = max(top_k * 4, top_k + 10)
        tokens = query_tokens(query)
        query_row = self._query_row(query)
        block_words = _lexical(block_index, tokens, want)
        block_sims = self._similar(query_row, False, want)
        record_words: dict[int, float] = {}
        record_sims: dict[int, float] = {}
        if docs.records:
            record_words = {n: s for n, s in _lexical(index, tokens, RECORDS_WANT).items() if docs.is_record(n)}
            record_sims = {n: s for n, s in self._similar(query_row, True, RECORDS_WANT).items() if docs.is_record(n)}
        cites = self._citations() if docs.records else {}

        def neighbours(n: int) -> list[int]:
            rel = docs.rel(n)
            return [m for m in (n - 1, n + 1) if 0 <= m < len(docs) and docs.rel(m) == rel]

        scored_blocks, scored_records = fuse(block_words, block_sims, record_words, record_sims, neighbours,
                                             lambda n: cites.get(n, ()))
        hits: list[Hit] = []
        for n, s in scored_blocks.items():
            doc = blocks[n]
            if not self._pending(doc):
                hits.append(Hit(doc.id, doc.path, doc.line, s.score, doc.text, doc.kind, max(s.relevance, s.evidence),
                                s.similarity, doc.refs))
        for n, s in scored_records.items() if include_sources else ():
            doc = docs[n]
            hits.append(Hit(doc.id, doc.path, doc.line, s.score, doc.text, doc.kind, s.relevance, s.similarity))
        hits.sort(key=lambda h: (-h.score, h.path, h.line, h.block_id))
        return hits[:top_k]

    @property
    def embedder(self) -> "Embedder | None":
        """The embedding model of semantic search here, or None (off, or it does not load)."""
        if self._embedder is False:
            config = load_config(self.memory.parent)
            on = config.flag("search.semantic", True) if self._semantic is None else self._semantic
            if on:
                from .embed import DEFAULT_MODEL, load_model

                self._embedder = load_model(config.text("search.model") or DEFAULT_MODEL)
            else:
                self._embedder = None
        return self._embedder  # type: ignore[return-value]

    def _query_row(self, query: str) -> Any:
        """The query's embedding, or None (semantic search off, or nothing to embed)."""
        if self.embedder is None or not query.strip():
            return None
        return self.embedder.embed([query])[0]

    def _similar(self, query_row: Any, include_sources: bool, k: int) -> dict[int, float]:
        """The `k` documents most similar to the query that clear `SEMANTIC_FLOOR`: index -> cosine."""
        if query_row is None:
            return {}
        rows = self.vectors(include_sources)
        if rows is None or not len(rows):
            return {}
        import numpy as np

        # in slices of 256 rows: OpenBLAS threads a bigger product, which on two shared
        # cores costs 5-10x more than computing it in one thread
        scores = np.empty(len(rows), dtype=np.float32)
        for at in range(0, len(rows), 256):
            np.dot(rows[at:at + 256], query_row, out=scores[at:at + 256])
        top = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        return {int(i): float(scores[i]) for i in top if scores[i] >= SEMANTIC_FLOOR}

    def _citations(self) -> dict[int, list[int]]:
        """Record (index in the model with sources) -> the blocks citing it (indices in the
        blocks' model); computed once per pair of models and saved beside them, so a fresh
        process reads it instead of parsing every document."""
        _, blocks, _, block_digest = self._models[False]
        _, docs, _, digest = self._models[True]
        stamp = f"{block_digest}:{digest}"
        if self._cites is not None and self._cites[0] == stamp:
            return self._cites[1]
        path = self.memory / RUNTIME_DIR / CITATIONS_FILE
        cites: dict[int, list[int]] | None = None
        try:
            raw = orjson.loads(path.read_bytes())
            if raw.get("stamp") == stamp:
                cites = {int(r): [int(b) for b in bs] for r, bs in raw["cites"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            cites = None
        if cites is None:
            from ..memory.sources import anchor_for

            by_target = {f"{docs.rel(n)}#{anchor_for(docs[n].id)}": n for n in range(len(docs)) if docs.is_record(n)}
            cites = {}
            for b, doc in enumerate(blocks):
                for ref in doc.refs:
                    if ref in by_target:
                        cites.setdefault(by_target[ref], []).append(b)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(path, orjson.dumps({"stamp": stamp, "cites": {str(r): bs for r, bs in cites.items()}}),
                                   durable=False)
            except OSError:
                pass  # saving only saves time
        self._cites = (stamp, cites)
        return cites

    def vectors(self, include_sources: bool = False) -> Any:
        """The embedding rows of the current model's documents (built or loaded once per
        document set), or None when semantic search is off."""
        model = self.embedder
        if model is None or include_sources not in self._models:
            return None
        _, docs, _, digest = self._models[include_sources]
        cached = self._vectors.get(include_sources)
        if cached and cached[0] == digest:
            return cached[1]
        from . import vectors

        path = self.memory / RUNTIME_DIR / VECTORS_FILES[include_sources]
        rows = vectors.load(path, digest, model.name, len(docs))
        if rows is None:
            sibling = self.memory / RUNTIME_DIR / VECTORS_FILES[not include_sources]
            rows = vectors.build(path, digest, model, [d.semantic_text() for d in docs], (sibling,))
        self._vectors[include_sources] = (digest, rows)
        return rows

    def prepare(self) -> None:
        """Refresh both models (blocks; blocks and records), their vectors and which blocks
        cite which records, so that the next fresh process (a hook before a prompt) only
        loads what is saved."""
        if not self.refresh(include_sources=True).stale:
            self.vectors(False)
            self.vectors(True)
            if self._models[True][1].records:
                self._citations()

    def candidates(self) -> Iterator[Hit]:
        """Every block and record of the last refresh with sources, as hits (unscored)."""
        model = self._models.get(True)
        for doc in model[1] if model else ():
            yield Hit(doc.id, doc.path, doc.line, 0.0, doc.text, doc.kind, refs=doc.refs)

    def cited_by(self, block_ids: set[str] | frozenset[str]) -> set[str]:
        """The records (`path#anchor`) the blocks carrying any of `block_ids` cite, as of the last refresh."""
        return {ref for rel, entry in self._files.items() if rel.startswith(f"{TOPICS}/")
                for doc in entry.docs if not block_ids.isdisjoint(doc.ids) for ref in doc.refs}

    def locate(self, block_id: str) -> Doc | None:
        """The block carrying `block_id` (an identity or an alias)."""
        self.refresh()
        for rel, entry in sorted(self._files.items()):
            for doc in entry.docs:
                if doc.kind == "block" and block_id in doc.ids:
                    return doc
        return None

    def _pending(self, doc: Doc) -> bool:
        return any(ref in self._untrusted for ref in doc.refs)

    def _list(self, *, include_sources: bool) -> list[str]:
        """Topic files, and archives: all of them, or only channel ones (for trust).

        Plain `os.scandir` and string paths: this runs before every search, and pathlib's
        per-file objects cost more than the stats themselves."""
        roots = [TOPICS]
        if include_sources:
            roots.append(SOURCES)
        else:
            try:
                with os.scandir(os.path.join(self.memory, SOURCES)) as it:
                    roots += [f"{SOURCES}/{e.name}" for e in it
                              if _is_channel(f"{SOURCES}/{e.name}") and e.is_dir(follow_symlinks=False)]
            except OSError:
                pass
        found: list[str] = []
        base = str(self.memory)
        skipped: list[Skipped] = []
        for root in roots:
            if os.path.isdir(os.path.join(base, root)) and not os.path.islink(os.path.join(base, root)):
                if root == TOPICS:
                    topics = list_topic_files(os.path.join(base, root))
                    found += [f"{TOPICS}/{rel}" for rel in topics.paths]
                    skipped += topics.skipped
                else:
                    _walk(base, root, found, skipped)
        self.skipped = skipped
        return sorted(found)

    def _entry(self, rel: str) -> tuple[_FileEntry | None, str]:
        """The file's entry and how it was had: "same" (stat unchanged), "rehashed", "parsed"."""
        path = f"{self.memory}/{rel}"
        try:
            st = os.stat(path)
            cached = self._files.get(rel)
            if cached and cached.size == st.st_size and cached.mtime_ns == st.st_mtime_ns:
                return cached, "same"
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None, "gone"
        digest = hashlib.sha256(data).hexdigest()
        if cached and cached.sha256 == digest:
            return _FileEntry(digest, st.st_size, st.st_mtime_ns, cached.items, cached.untrusted), "rehashed"
        if rel.startswith(f"{TOPICS}/"):
            entry = _FileEntry(digest, st.st_size, st.st_mtime_ns, topic_docs(rel, data.decode("utf-8", errors="replace")))
        else:
            untrusted = sorted(untrusted_targets(rel, data)) if _is_channel(rel) else []
            entry = _FileEntry(digest, st.st_size, st.st_mtime_ns, source_docs(rel, data), untrusted)
        return entry, "parsed"

    def _load_cache(self) -> dict[str, _FileEntry]:
        try:
            raw = orjson.loads(self._cache_path.read_bytes())
            if raw.get("version") != CACHE_VERSION:
                return {}
            return {
                rel: _FileEntry(e["sha256"], int(e["size"]), int(e["mtime_ns"]), list(e["docs"]),
                                list(e.get("untrusted", [])))
                for rel, e in raw["files"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):  # orjson's error is a ValueError
            return {}

    def _load_model(self, include_sources: bool, digest: str, size: int) -> Bm25Index | None:
        try:
            blob = (self.memory / RUNTIME_DIR / MODEL_FILES[include_sources]).read_bytes()
        except OSError:
            return None
        if blob[:len(digest)] != digest.encode("ascii"):
            return None
        try:
            bm25 = Bm25Index.from_bytes(blob[len(digest):])
        except (ValueError, KeyError, TypeError):
            return None
        if bm25.size != size:
            return None
        return bm25.vectorize() if self.vectorize else bm25

    def _save_model(self, include_sources: bool, digest: str, bm25: Bm25Index) -> None:
        path = self.memory / RUNTIME_DIR / MODEL_FILES[include_sources]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, digest.encode("ascii") + bm25.to_bytes(), durable=False)
        except OSError:
            pass  # like the cache: saving only saves time

    def _save_cache(self) -> None:
        doc = {
            "version": CACHE_VERSION,
            "files": {
                rel: {"sha256": e.sha256, "size": e.size, "mtime_ns": e.mtime_ns, "docs": [d.to_json() if isinstance(d, Doc) else d for d in e.items],
                      "untrusted": e.untrusted}
                for rel, e in sorted(self._files.items())
            },
        }
        try:
            self._cache_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self._cache_path, json.dumps(doc, ensure_ascii=False, separators=(",", ":")), durable=False)
        except OSError:
            pass  # the cache only saves time; a read-only workspace still searches


def _walk(base: str, rel: str, found: list[str], skipped: list[Skipped]) -> None:
    """`.md` files under `base/rel`, as `rel/…` paths; symbolic links are not followed.
    An archive named so it cannot be shown or stored (names.py) is skipped, and said."""
    try:
        with os.scandir(os.path.join(base, rel)) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            _walk(base, f"{rel}/{entry.name}", found, skipped)
        elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
            if problem := unsafe_problem(f"{rel}/{entry.name}"):
                skipped.append(Skipped(printable(f"{rel}/{entry.name}"), problem))
            else:
                found.append(f"{rel}/{entry.name}")


def _lexical(index: Bm25Index, tokens: list[str], k: int) -> dict[int, float]:
    """The best `k` documents sharing a token: index -> BM25+ relevance (score above its floor)."""
    floor = index.baseline(tokens)
    return {r.doc: r.score - floor for r in index.rank(tokens, k)}


def _digest(fingerprint: tuple) -> str:
    """sha256 of the model's (file, hash) pairs and the tokens' scheme: the saved model's stamp."""
    return hashlib.sha256(json.dumps([TOKENS_VERSION, fingerprint], ensure_ascii=False).encode("utf-8")).hexdigest()


def _is_channel(rel: str) -> bool:
    return rel.startswith(f"{SOURCES}/{_CHANNEL_PREFIX}")
