"""Hybrid search: BM25+ fused with WordLlama similarity, its vector cache, and semantic off."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scriptorium.core.search import SearchIndex

PARAPHRASES = Path(__file__).resolve().parents[1] / "fixtures" / "search" / "paraphrases.json"
VECTORS = Path(".scriptorium") / "search-vectors.bin"


def facts_workspace(memory: Path) -> tuple[list[dict], list[str]]:
    data = json.loads(PARAPHRASES.read_text(encoding="utf-8"))
    facts = [p["fact"] for p in data["pairs"]] + data["distractors"]
    ids = [f"{n:08x}" for n in range(1, len(facts) + 1)]
    (memory / "topics").mkdir(parents=True)
    body = "".join(f"\n{fact} ^{block}\n" for block, fact in zip(ids, facts))
    (memory / "topics" / "notes.md").write_text("# Notes\n" + body, encoding="utf-8")
    return data["pairs"], ids


def top5(index: SearchIndex, pairs: list[dict], ids: list[str]) -> list[bool]:
    return [ids[n] in [h.block_id for h in index.search(p["question"], top_k=5)] for n, p in enumerate(pairs)]


def test_paraphrases_are_found_by_meaning_and_not_by_words(tmp_path: Path):
    pairs, ids = facts_workspace(tmp_path / "state" / "memory")
    hybrid = top5(SearchIndex(tmp_path / "state" / "memory"), pairs, ids)
    bm25 = top5(SearchIndex(tmp_path / "state" / "memory", semantic=False), pairs, ids)
    assert sum(bm25) == 0  # no question shares a word with its fact
    assert sum(hybrid) >= 0.8 * len(pairs)
    hits = SearchIndex(tmp_path / "state" / "memory").search("What pet does she have?")
    dog = next(h for h in hits if h.text.startswith("I adopted a dog"))
    assert dog.relevance == 0 and dog.similarity > 0.2


def test_semantic_off_in_config_imports_no_model(tmp_path: Path):
    state = tmp_path / "state"
    facts_workspace(state / "memory")
    (state / "config.toml").write_text("[search]\nsemantic = false\n", encoding="utf-8")
    SearchIndex(state / "memory").refresh()  # the saved BM25 arrays, as after any write
    code = ("import sys\nfrom scriptorium.core.search import SearchIndex\n"
            f"hits = SearchIndex({str(state / 'memory')!r}, vectorize=False).search('adopted dog')\n"
            "assert hits and hits[0].similarity is None\n"
            "print(sorted(m for m in ('numpy', 'tokenizers', 'wordllama', 'scriptorium.core.search.embed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert not (state / "memory" / VECTORS).exists()
    # on (the default), the same search loads the model and keeps the vectors
    (state / "config.toml").write_text("", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", code.replace("assert hits and hits[0].similarity is None\n", "")],
                         capture_output=True, text=True, check=True).stdout
    assert "tokenizers" in out and (state / "memory" / VECTORS).exists()


def test_a_corrupt_vector_cache_is_rebuilt(tmp_path: Path):
    memory = tmp_path / "state" / "memory"
    pairs, ids = facts_workspace(memory)
    first = SearchIndex(memory).search(pairs[0]["question"])
    saved = (memory / VECTORS).read_bytes()
    damaged = bytearray(saved)
    damaged[-100] ^= 0xFF  # one flipped byte in a row
    for broken in (bytes(damaged), saved[: len(saved) // 2], b"\x00garbage"):
        (memory / VECTORS).write_bytes(broken)
        again = SearchIndex(memory).search(pairs[0]["question"])
        assert [(h.block_id, round(h.score, 6)) for h in again] == [(h.block_id, round(h.score, 6)) for h in first]
        assert (memory / VECTORS).read_bytes() == saved  # rebuilt whole


def test_vectors_are_computed_once_per_content(tmp_path: Path, monkeypatch):
    memory = tmp_path / "state" / "memory"
    facts_workspace(memory)
    index = SearchIndex(memory)
    index.search("pets")
    model = index.embedder
    embedded: list[int] = []
    real = type(model).embed
    monkeypatch.setattr(type(model), "embed", lambda self, texts: embedded.append(len(texts)) or real(self, texts))
    notes = memory / "topics" / "notes.md"
    notes.write_text(notes.read_text(encoding="utf-8") + "\nA brand new fact about kites. ^0000ffff\n", encoding="utf-8")
    assert index.search("kites")[0].block_id == "0000ffff"
    assert embedded == [1, 1]  # the new block, then the query: the 76 others came from the cache
    embedded.clear()
    fresh = SearchIndex(memory)  # another process: the saved rows, memory-mapped
    fresh.search("kites")
    assert embedded == [1]


def test_a_hit_strong_by_words_is_not_pushed_out_by_near_meanings(tmp_path: Path):
    """The one block naming the person asked about shares none of the query's meaning, while
    sixty blocks about spare keys are near it: reciprocal rank fusion ranked it out of the top
    5 (on LoCoMo that cost search 16% against BM25 alone); fused by value it stays first."""
    import itertools

    names = ["Marek", "Ines", "Tomas", "Priya", "Jonah", "Leila", "Oskar", "Hana", "Dev", "Ruth", "Kemal", "Ana"]
    things = ["spare house key", "spare car key", "spare office key", "spare shed key", "spare bike lock key"]
    places = ["on a hook by the door", "in the kitchen drawer", "under the doormat"]
    facts = ["Zofia: inside the old biscuit tin, behind the flour."]
    facts += [f"{n} keeps the {t} {p}." for n, t, p in itertools.islice(itertools.product(names, things, places), 60)]
    memory = tmp_path / "state" / "memory"
    (memory / "topics").mkdir(parents=True)
    ids = [f"{n:08x}" for n in range(1, len(facts) + 1)]
    (memory / "topics" / "notes.md").write_text(
        "# Notes\n" + "".join(f"\n{fact} ^{block}\n" for block, fact in zip(ids, facts)), encoding="utf-8")
    query = "Where does Zofia keep her spare key?"
    hits = SearchIndex(memory).search(query, top_k=5)
    assert hits[0].block_id == ids[0]
    assert any(h.similarity for h in hits[1:])  # the rest still come by meaning as well
