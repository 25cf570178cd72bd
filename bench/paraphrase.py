"""Paraphrase recall: questions that share no word with the fact that answers them.

The set (tests/fixtures/search/paraphrases.json, written for this project: 36
question/fact pairs with no common token after stemming and stop words, and 40
unrelated facts) becomes one memory workspace of 76 blocks. Each question is searched
(top 5) by hybrid search (BM25 fused with WordLlama similarity) and by BM25 alone on
the same index; a question counts when its fact is among the hits.
Last line: {"pairs", "blocks", "hybrid_top5", "bm25_top5"}.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from scriptorium.core.search import SearchIndex

SET = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "search" / "paraphrases.json"
TOP_K = 5


def write_facts(memory: Path, facts: list[str]) -> list[str]:
    """One topic file holding each fact as a block; returns the block ids in order."""
    ids = [f"{n:08x}" for n in range(1, len(facts) + 1)]
    (memory / "topics").mkdir(parents=True, exist_ok=True)
    body = "".join(f"\n{fact} ^{block}\n" for block, fact in zip(ids, facts))
    (memory / "topics" / "notes.md").write_text("# Notes\n" + body, encoding="utf-8")
    return ids


def main() -> int:
    data = json.loads(SET.read_text(encoding="utf-8"))
    pairs, distractors = data["pairs"], data["distractors"]
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "state" / "memory"
        ids = write_facts(memory, [p["fact"] for p in pairs] + distractors)
        found = {"hybrid": 0, "bm25": 0}
        for semantic, name in ((True, "hybrid"), (False, "bm25")):
            index = SearchIndex(memory, semantic=semantic)
            for n, pair in enumerate(pairs):
                hits = index.search(pair["question"], top_k=TOP_K)
                found[name] += ids[n] in [h.block_id for h in hits]
    print(f"{'':<8}{'top-5':>8}")
    for name in ("hybrid", "bm25"):
        print(f"{name:<8}{found[name] / len(pairs):>8.3f}")
    print(json.dumps({"pairs": len(pairs), "blocks": len(ids), "hybrid_top5": round(found["hybrid"] / len(pairs), 4),
                      "bm25_top5": round(found["bm25"] / len(pairs), 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
