"""Search benchmark (issue: provider interface, BM25 search, trilogy).

Builds a workspace of 10,000 topic blocks (400 topics x 25 blocks, half English, half
Chinese, Zipf-distributed vocabulary) and measures, side by side in one run:
  * the chosen library (bm25s, BM25+) and the alternative (rank-bm25's BM25Plus):
    index build time over the same tokenized blocks, median query time over 200 mixed
    English/Chinese queries (tokenize + rank + keep documents sharing a query token),
    and the overlap of their top 5;
  * the whole path through `SearchIndex`: cold refresh (parse every topic, tokenize,
    build), warm refresh (stat only), and a warm `search()`.
Last line: one JSON object of the key figures.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from rank_bm25 import BM25Plus

from scriptorium.core.memory.sources import MARKER, SourceRecord, anchor_for
from scriptorium.core.search import SearchIndex, tokenize
from scriptorium.core.search.corpus import topic_docs
from scriptorium.core.search.ranking import B, DELTA, K1, Bm25Index

TOPICS, PER_TOPIC = 400, 25
BLOCKS = TOPICS * PER_TOPIC
QUERIES = 200
TOP_K = 5
SEED = 7
# Common Chinese characters, roughly by frequency.
HANZI = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法"
    "所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政"
    "四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最"
    "立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根"
    "论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联"
    "什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米"
    "整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办"
)
SOURCE_ID = "openprogram/bench/m1"
ARCHIVE = "sources/openprogram/_v2/bench.md"


def english_vocabulary(size: int = 6000) -> list[str]:
    """Real English words, most frequent first: the standard library's own prose."""
    counts: Counter[str] = Counter()
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:250]:
        counts.update(w.lower() for w in re.findall(r"[A-Za-z]{3,12}", path.read_text(encoding="utf-8", errors="ignore")))
    return [w for w, _ in counts.most_common(size)]


def zipf_weights(n: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(n)]


def make_blocks(rng: random.Random) -> list[str]:
    words = english_vocabulary()
    word_weights = zipf_weights(len(words))
    chinese_words = ["".join(rng.sample(HANZI[:300], 2)) for _ in range(3000)] + list(HANZI)
    chinese_weights = zipf_weights(len(chinese_words))
    blocks = []
    for n in range(BLOCKS):
        if n % 2:
            text = " ".join(rng.choices(words, word_weights, k=rng.randint(15, 45))).capitalize() + "."
        else:
            pieces = rng.choices(chinese_words, chinese_weights, k=rng.randint(10, 35))
            for _ in range(rng.randint(0, 2)):
                pieces.insert(rng.randrange(len(pieces)), f" {rng.choice(words[:500])} ")
            text = "，".join("".join(pieces[i : i + 5]) for i in range(0, len(pieces), 5)) + "。"
        blocks.append(text.replace("[", "(").replace("]", ")").replace("^", ""))
    return blocks


def make_queries(rng: random.Random, blocks: list[str]) -> list[str]:
    """Queries drawn from the blocks, so that most have real answers."""
    queries = []
    for n in range(QUERIES):
        source = blocks[rng.randrange(0, BLOCKS, 2) + (n % 2)]
        if n % 2:
            words = source.rstrip(".").split()
            start = rng.randrange(max(1, len(words) - 3))
            queries.append(" ".join(words[start : start + rng.randint(2, 4)]))
        else:
            run = re.sub(r"[^\u4e00-\u9fff]", "", source)
            start = rng.randrange(max(1, len(run) - 6))
            queries.append(run[start : start + rng.randint(2, 6)])
    return queries


def write_workspace(memory: Path, blocks: list[str]) -> None:
    archive = memory / ARCHIVE
    archive.parent.mkdir(parents=True)
    record = SourceRecord(source_id=SOURCE_ID, timestamp="2026-01-02T10:00:00+00:00", content="bench")
    archive.write_text(MARKER + "\n\n" + record.render(), encoding="utf-8")
    target = f"../../{ARCHIVE}#{anchor_for(SOURCE_ID)}"
    for t in range(TOPICS):
        path = memory / "topics" / f"area{t % 20:02d}" / f"topic{t:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        parts = [f"# Topic {t}\n"]
        for b in range(PER_TOPIC):
            parts.append(f"\n{blocks[t * PER_TOPIC + b]}[^e-b{b}] ^{t:04x}{b:04x}\n")
        parts.append("\n" + "\n".join(f"[^e-b{b}]: Time: `2026-01-02`; Sources: [bench]({target})" for b in range(PER_TOPIC)) + "\n")
        path.write_text("".join(parts), encoding="utf-8")


class RankBm25:
    """The alternative, used exactly as the chosen one is: BM25+ scores, matched docs only."""

    def __init__(self, docs: list[list[str]]) -> None:
        self.model = BM25Plus(docs, k1=K1, b=B, delta=DELTA)

    def rank(self, query: list[str], k: int) -> list[int]:
        scores = self.model.get_scores(query)
        present = set(query)
        matched = [i for i, freqs in enumerate(self.model.doc_freqs) if not present.isdisjoint(freqs)]
        matched.sort(key=lambda i: (-scores[i], i))
        return matched[:k]


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def main() -> int:
    rng = random.Random(SEED)
    blocks = make_blocks(rng)
    queries = make_queries(rng, blocks)
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        write_workspace(memory, blocks)

        index = SearchIndex(memory)
        cold_s, report = timed(index.refresh)
        assert len(report.parsed) == TOPICS
        warm_s, _ = timed(index.refresh, repeat=5)
        docs = [d for path in sorted((memory / "topics").rglob("*.md"))
                for d in topic_docs(path.relative_to(memory).as_posix(), path.read_text(encoding="utf-8"))]
        tokenized = [tokenize(d.search_text()) for d in docs]
        assert len(tokenized) == BLOCKS

        build_s, chosen = timed(lambda: Bm25Index(tokenized), repeat=3)
        alt_build_s, alternative = timed(lambda: RankBm25(tokenized), repeat=3)

        chosen_ms, alt_ms, overlaps = [], [], []
        for query in queries:
            start = time.perf_counter()
            a = [r.doc for r in chosen.rank(tokenize(query), TOP_K)]
            chosen_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            b = alternative.rank(tokenize(query), TOP_K)
            alt_ms.append((time.perf_counter() - start) * 1000)
            if a or b:
                overlaps.append(len(set(a) & set(b)) / TOP_K)
        search_ms = [timed(lambda q=q: index.search(q))[0] * 1000 for q in queries[:50]]

    query_ms, alt_query_ms = statistics.median(chosen_ms), statistics.median(alt_ms)
    overlap = statistics.mean(overlaps)
    rows = [
        ("library", "build (s)", "median query (ms)"),
        ("bm25s BM25+ (chosen)", f"{build_s:.3f}", f"{query_ms:.3f}"),
        ("rank-bm25 BM25Plus", f"{alt_build_s:.3f}", f"{alt_query_ms:.3f}"),
    ]
    print(f"{BLOCKS} blocks ({TOPICS} topics), {len(queries)} queries (half English, half Chinese)")
    for row in rows:
        print(f"  {row[0]:<24} {row[1]:>10} {row[2]:>18}")
    print(f"  top-5 overlap: {overlap:.3f} over {len(overlaps)} queries with hits; query speed-up {alt_query_ms / query_ms:.0f}x")
    print(f"  SearchIndex: cold refresh {cold_s:.2f} s (parse+tokenize+build), warm refresh {warm_s * 1000:.1f} ms,"
          f" warm search median {statistics.median(search_ms):.2f} ms")
    print(json.dumps({
        "blocks": BLOCKS,
        "query_ms": round(query_ms, 3),
        "build_s": round(build_s, 3),
        "alt_name": "rank-bm25 BM25Plus",
        "alt_query_ms": round(alt_query_ms, 3),
        "top5_overlap": round(overlap, 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
