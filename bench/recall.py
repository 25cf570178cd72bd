"""Recall benchmark on LoCoMo (Maharana et al., ACL 2024): is the offline memory worth searching?

Usage: python bench/recall.py [--only speakers,imported,coding] PATH... (LoCoMo conversation files, e.g. the development
split in ../shared/data/locomo-dev/; that folder is the default when it exists). The data
is read where it lies, never copied into the project.

Two shapes (bench/locomo_shapes.py), each per conversation in a fresh state directory:
`speakers` (each LoCoMo session a session made through the store, speaker A as the user,
B as the assistant, their names as the session's speakers) and `imported` (the same
sessions as Claude Code transcript files, turns "Name: text", a working directory, no
speakers metadata, brought in by `scriptorium import claude-code`). Turns carry the
session's date as their time; the built-in offline model writes them (`finish` per
session, then one `sleep`). Then every question of categories 1-4 is searched (top
5). A question's evidence turn is recalled when a hit's block, or a record it cites,
holds it; a question scores the share of its evidence turns recalled. Beside it, on the
same questions, plain BM25 (the same tokenizer and ranking) over the raw turns as the
session holds them (with "Name: " in the imported shape), given as many words as the
five hits hold (turns in rank order, each that still fits in the words left). Memory
words are the words of every topic file (footnotes included); transcript words those
of the turns.
Last line: {"questions", "memory_recall5", "raw_recall_equal_words",
"memory_over_transcript_words", "write_cpu_s", "speakers_ratio"} for the speakers shape
and the same with an "imported_" prefix (and "imported_ratio") for the imported one;
each shape also gives "categoryN_recall5" and "categoryN_raw" per LoCoMo category (1 multi-hop,
the questions whose evidence spans sessions; 2 temporal; 3 open-domain; 4 single-hop);
then the coding-transcript set (bench/coding_set.py): its tune split with a "coding_" prefix, its held-out
split with "coding_heldout_" (`--only coding-tune` or `coding-heldout` runs one); the blind split
("coding_blind_") runs only when named, `--only coding-blind`, and prints no blocks; the fresh split
("coding_fresh_", `--only coding-fresh`) too, and prints its blocks; the second blind split ("coding_blind2_",
`--only coding-blind2`) too, and prints no blocks. Search is
hybrid (BM25+ fused with WordLlama similarity, as `search` ranks by default); each shape
also reports "bm25_only_recall5" (the same memory searched by words alone) and
"hybrid_over_bm25_only".
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

import coding_set
from locomo_shapes import DEFAULT_DATA, SHAPES, build, load, node_id, write
from scriptorium.core.search import SearchIndex, memory_get, tokenize
from scriptorium.core.search.ranking import Bm25Index

TOP_K = 5
CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_MARKS = re.compile(r"\[\^[^\]]*\]|(?<=\s)\^[0-9a-f]{8}\b")


def words(text: str) -> int:
    return len(text.split())


def cited_turns(index: SearchIndex, hits: list, by_node: dict[str, str]) -> set[str]:
    recalled: set[str] = set()
    for hit in hits:
        view = memory_get(index, hit.block_id)
        for citation in view.citations if view else ():
            for source in citation.sources:
                node = (source.source_id or "").rsplit("/", 1)[-1]
                if node in by_node:
                    recalled.add(by_node[node])
    return recalled


def bm25_only(conv: dict, state: Path, turns: dict[str, str]) -> float:
    """Recall@5 sum of the same memory searched by words alone (`[search] semantic = false`)."""
    index = SearchIndex(state / "memory", semantic=False)
    by_node = {node_id(d): d for d in turns}
    total = 0.0
    for qa in conv["qa"]:
        evidence = {e.strip() for e in qa.get("evidence") or () if e.strip() in turns}
        if qa.get("category") in CATEGORIES and evidence:
            total += len(evidence & cited_turns(index, index.search(qa["question"], top_k=TOP_K), by_node)) / len(evidence)
    return total


def evaluate(conv: dict, state: Path, turns: dict[str, str], by_category: dict | None = None) -> tuple[int, float, float]:
    """(questions, memory recall sum, raw recall sum) over the conversation's questions; `by_category`
    (category -> [questions, memory sum, raw sum]) gathers the same per LoCoMo category."""
    index = SearchIndex(state / "memory")
    by_node = {node_id(d): d for d in turns}
    order = list(turns)
    raw = Bm25Index([tokenize(turns[d]) for d in order])
    count, memory_sum, raw_sum = 0, 0.0, 0.0
    for qa in conv["qa"]:
        if qa.get("category") not in CATEGORIES or not qa.get("evidence"):
            continue
        evidence = {e.strip() for e in qa["evidence"] if e.strip() in turns}
        if not evidence:
            continue
        count += 1
        hits = index.search(qa["question"], top_k=TOP_K)
        budget = sum(words(_MARKS.sub("", hit.text)) for hit in hits)
        recalled = cited_turns(index, hits, by_node)
        memory_sum += len(evidence & recalled) / len(evidence)
        got: set[str] = set()
        used = 0
        for ranked in raw.rank(tokenize(qa["question"]), len(order)):
            size = words(turns[order[ranked.doc]])
            if used + size <= budget:  # greedy: the best turns that fit in the hits' words
                got.add(order[ranked.doc])
                used += size
        raw_sum += len(evidence & got) / len(evidence)
        if by_category is not None:
            row = by_category.setdefault(qa["category"], [0, 0.0, 0.0])
            row[0] += 1
            row[1] += len(evidence & recalled) / len(evidence)
            row[2] += len(evidence & got) / len(evidence)
    return count, memory_sum, raw_sum


def memory_words(state: Path) -> int:
    return sum(words(p.read_text(encoding="utf-8")) for p in (state / "memory" / "topics").rglob("*.md"))


def run_shape(shape: str, paths: list[Path]) -> dict:
    """One shape over every conversation: its table printed, its totals returned."""
    rows = []
    categories: dict[int, list] = {}
    totals = {"questions": 0, "memory": 0.0, "raw": 0.0, "memory_words": 0, "transcript_words": 0, "cpu": 0.0}
    for path in paths:
        conv = load(path)
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp) / "state"
            built = build(shape, conv, state)
            cpu = write(built, state)
            n, mem, raw = evaluate(conv, state, built.turns, categories)
            totals["bm25_only"] = totals.get("bm25_only", 0.0) + bm25_only(conv, state, built.turns)
            mw, tw = memory_words(state), sum(words(t) for t in built.turns.values())
        rows.append((path.stem, n, mem / max(n, 1), raw / max(n, 1), mw / max(tw, 1), cpu))
        for key, value in (("questions", n), ("memory", mem), ("raw", raw), ("memory_words", mw),
                           ("transcript_words", tw), ("cpu", cpu)):
            totals[key] += value
    q = max(totals["questions"], 1)
    summary = {"questions": totals["questions"], "memory_recall5": round(totals["memory"] / q, 4),
               "raw_recall_equal_words": round(totals["raw"] / q, 4),
               "memory_over_transcript_words": round(totals["memory_words"] / max(totals["transcript_words"], 1), 4),
               "write_cpu_s": round(totals["cpu"], 2)}
    summary["ratio"] = round(summary["memory_recall5"] / max(summary["raw_recall_equal_words"], 1e-9), 3)
    summary["bm25_only_recall5"] = round(totals["bm25_only"] / q, 4)  # the same memory, search by words alone
    summary["hybrid_over_bm25_only"] = round(summary["memory_recall5"] / max(summary["bm25_only_recall5"], 1e-9), 3)
    print(f"shape: {shape}")
    print(f"{'conversation':<14}{'questions':>10}{'memory@5':>10}{'raw@words':>11}{'mem/transcript':>16}{'write cpu s':>13}")
    for name, n, mem, raw, ratio, cpu in rows:
        print(f"{name:<14}{n:>10}{mem:>10.3f}{raw:>11.3f}{ratio:>16.2f}{cpu:>13.1f}")
    print(f"{'all':<14}{summary['questions']:>10}{summary['memory_recall5']:>10.3f}"
          f"{summary['raw_recall_equal_words']:>11.3f}{summary['memory_over_transcript_words']:>16.2f}"
          f"{summary['write_cpu_s']:>13.1f}   memory/raw {summary['ratio']:.2f}x")
    print(f"  search by words alone on the same memory: {summary['bm25_only_recall5']:.3f}; "
          f"hybrid/BM25-only {summary['hybrid_over_bm25_only']:.2f}x")
    for category in sorted(categories):  # 1 multi-hop (across sessions), 2 temporal, 3 open-domain, 4 single-hop
        n, mem, raw = categories[category]
        summary[f"category{category}_recall5"] = round(mem / max(n, 1), 4)
        summary[f"category{category}_raw"] = round(raw / max(n, 1), 4)
        print(f"  category {category} ({CATEGORY_NAMES[category]}): {n} questions, memory@5 {mem / max(n, 1):.3f}, "
              f"raw at equal words {raw / max(n, 1):.3f}")
    return summary


def main(argv: list[str]) -> int:
    only = set(SHAPES) | {"coding"}
    if argv[:1] == ["--only"] and len(argv) > 1:  # e.g. --only imported,coding
        only, argv = set(argv[1].split(",")), argv[2:]
    paths = [Path(p) for p in argv] or sorted(DEFAULT_DATA.glob("*.json"))
    if not paths:
        print("usage: python bench/recall.py LOCOMO_CONVERSATION.json ...", file=sys.stderr)
        return 2
    result: dict = {}
    for shape in (s for s in SHAPES if s in only):
        summary = run_shape(shape, paths)
        if shape == "speakers":  # the first shape keeps the original keys
            result.update({k: v for k, v in summary.items() if k != "ratio"})
            result["speakers_ratio"] = summary["ratio"]
        else:
            result.update({f"{shape}_{k}": v for k, v in summary.items() if k != "questions"})
    # the coding set's tune split keeps the original keys; the held-out one adds "heldout_"
    for split in (s for s in coding_set.SPLITS
                  if ("coding" in only and s in coding_set.DEFAULT_SPLITS) or f"coding-{s}" in only):
        prefix = "coding_" if split == "tune" else f"coding_{split}_"
        result.update({f"{prefix}{k}": v for k, v in run_coding(split).items()})
    print(json.dumps(result))
    return 0


def run_coding(split: str) -> dict:
    """One split of the coding-transcript set (bench/coding_set.py): its figures, and a sample of blocks."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        built = coding_set.build(state, split=split)
        cpu = coding_set.write(built, state)
        summary = {**coding_set.evaluate(built, state), "write_cpu_s": round(cpu, 2)}
        sample = coding_set.sample_blocks(state, 24) if split not in coding_set.UNSHOWN else []
    print(f"coding transcripts, {split}" + (f" (missing: {', '.join(built.missing)})" if built.missing else ""))
    print(f"  {summary['questions']} questions: memory found@5 {summary['memory_found5']:.3f}, raw at equal words "
          f"{summary['raw_found_equal_words']:.3f} ({summary['ratio']}x); memory/transcript words "
          f"{summary['memory_over_transcript_words']:.2f}; {summary['topic_files']} topic files "
          f"({summary['topics_per_2000_words']} per 2,000 words); bad names: {summary['bad_topic_names'] or 'none'}")
    print("  sample of blocks:" if sample else f"  ({split} split: no blocks shown)")
    for rel, text in sample:
        print(f"    {rel}: {text[:240]}")
    return summary


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
