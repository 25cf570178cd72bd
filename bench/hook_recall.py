"""Recall through the hook on LoCoMo, and what recall costs.

Usage: python bench/hook_recall.py [--quick] [PATH...] (LoCoMo conversation files; the
development split in ../shared/data/locomo-dev/ by default). `--quick`: the first
conversation only.

Evidence. Per conversation and shape (bench/locomo_shapes.py: `speakers`, `imported`), the
offline writer writes the sessions, then every question of categories 1-4 goes through
`hook claude-code user-prompt-submit` (the hook's own entry, in this process) with a
fresh session id, with semantic search on and off. A question's evidence turn is among
the injected items when an injected record is that turn, or an injected block cites it;
a question scores the share of its evidence turns injected. Beside it, plain BM25 (the
same tokenizer and ranking) over the raw turns, given as many characters as the hook
injected (turns in rank order, each that still fits).

Cost. A fresh hook process's recall (CPU of `scriptorium hook`, median of 7 prompts) on
the first conversation's memory, semantic on and off; a warm query over 10,000 blocks
(median of 50, hybrid and BM25 alone); the vectors of 1,000 new blocks added to them.
Last line: one JSON object with all figures.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from locomo_shapes import DEFAULT_DATA, SHAPES, build, load, node_id, write
from scriptorium.core.agents import hook_log
from scriptorium.core.agents.hooks import run as run_hook
from scriptorium.core.agents.recall_tokens import count_ahead
from scriptorium.core.memory.sources import anchor_for
from scriptorium.core.search import SearchIndex, tokenize
from scriptorium.core.search.ranking import Bm25Index

CATEGORIES = (1, 2, 3, 4)
AGENT = "claude-code"


def questions(conv: dict, turns: dict[str, str]) -> list[tuple[str, set[str]]]:
    out = []
    for qa in conv["qa"]:
        if qa.get("category") in CATEGORIES and qa.get("evidence"):
            evidence = {e.strip() for e in qa["evidence"] if e.strip() in turns}
            if evidence:
                out.append((qa["question"], evidence))
    return out


def set_semantic(state: Path, on: bool) -> None:
    (state / "config.toml").write_text("" if on else "[search]\nsemantic = false\n", encoding="utf-8")


def hook(state: Path, prompt: str, session: str) -> tuple[str, list[dict]]:
    """The hook's injected text and the items it logged."""
    doc = {"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": "/tmp",
           "transcript_path": "/tmp/none.jsonl"}
    out = run_hook(AGENT, "user-prompt-submit", json.dumps(doc).encode("utf-8"), state)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    logged = hook_log.recent(state, limit=1)[0]
    return text, list(logged.detail.get("hits", [])) if text else []


def evaluate(conv: dict, state: Path, turns: dict[str, str], tag: str) -> dict:
    """Sums over the conversation's questions: evidence injected (semantic on, off), raw BM25 at equal characters."""
    by_node = {node_id(d): d for d in turns}
    index = SearchIndex(state / "memory", semantic=False)
    index.refresh(include_sources=True)
    record_of = {f"{h.path}#{anchor_for(h.block_id)}": h.block_id for h in index.candidates() if h.kind == "source"}
    refs = {h.block_id: h.refs for h in index.candidates() if h.kind == "block"}
    order = list(turns)
    raw = Bm25Index([tokenize(turns[d]) for d in order])
    sums = {"questions": 0, "hybrid": 0.0, "bm25": 0.0, "raw_hybrid": 0.0, "raw_bm25": 0.0, "chars_hybrid": 0,
            "chars_bm25": 0, "tokens_hybrid": 0}
    asked = questions(conv, turns)
    for semantic in (True, False):
        name = "hybrid" if semantic else "bm25"
        set_semantic(state, semantic)
        for n, (question, evidence) in enumerate(asked):
            text, items = hook(state, question, f"{tag}-{name}-{n}")
            sources = [i["block_id"] for i in items if i["kind"] == "source"]
            sources += [record_of[r] for i in items if i["kind"] == "block" for r in refs.get(i["block_id"], ()) if r in record_of]
            got = {by_node[s.rsplit("/", 1)[-1]] for s in sources if s.rsplit("/", 1)[-1] in by_node}
            sums[name] += len(evidence & got) / len(evidence)
            sums[f"chars_{name}"] += len(text)
            if semantic:
                sums["tokens_hybrid"] += hook_log.recent(state, limit=1)[0].detail.get("recall_tokens", 0) if text else 0
            picked: set[str] = set()
            used = 0
            for ranked in raw.rank(tokenize(question), len(order)) if text else ():
                size = len(turns[order[ranked.doc]])
                if used + size <= len(text):  # the hook's characters, fence and all
                    picked.add(order[ranked.doc])
                    used += size
            sums[f"raw_{name}"] += len(evidence & picked) / len(evidence)
    sums["questions"] = len(asked)
    set_semantic(state, True)
    return sums


def fresh_hook_cpu(state: Path, prompts: list[str]) -> float:
    """Median CPU seconds of `scriptorium hook` processes answering `prompts`."""
    cpus = []
    for n, prompt in enumerate(prompts):
        doc = {"session_id": f"cold-{os.getpid()}-{n}-{time.time()}", "hook_event_name": "UserPromptSubmit",
               "prompt": prompt, "cwd": "/tmp", "transcript_path": "/tmp/none.jsonl"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "hook", AGENT,
                        "user-prompt-submit"], input=json.dumps(doc).encode(), capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(cpus)


_WORDS = ("garden tomato meeting deploy cache runner budget invoice travel flight hotel doctor school piano "
          "soccer recipe kitchen paint novel poem camera server database backup outage release ticket laptop "
          "coffee bakery museum concert hiking river mountain beach winter summer puppy kitten horse bicycle").split()


def big_workspace(memory: Path, blocks: int, start: int = 0, name: str = "t") -> None:
    """`blocks` synthetic blocks, 100 per topic file."""
    import random

    rng = random.Random(start)
    folder = memory / "topics" / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    for f in range(0, blocks, 100):
        lines = ["# Bench\n"]
        for b in range(f, min(f + 100, blocks)):
            words = " ".join(rng.choice(_WORDS) for _ in range(14))
            lines.append(f"\nNote {start + b}: {words}. ^{start + b:08x}\n")
        (folder / f"{name}{f // 100:04d}.md").write_text("".join(lines), encoding="utf-8")


def warm_costs(tmp: Path) -> dict:
    memory = tmp / "big" / "memory"
    big_workspace(memory, 10_000)
    SearchIndex(memory).prepare()
    out: dict = {}
    for semantic, name in ((True, "hybrid"), (False, "bm25")):
        index = SearchIndex(memory, semantic=semantic)
        index.search("warmup")
        times = []
        for n in range(50):
            query = f"{_WORDS[n % len(_WORDS)]} and {_WORDS[(n * 7) % len(_WORDS)]} plans"
            t = time.perf_counter()
            index.search(query, refresh=False)
            times.append(time.perf_counter() - t)
        out[f"warm_query_ms_{name}_10k"] = round(statistics.median(times) * 1000, 2)
    index = SearchIndex(memory)
    index.search("warmup")
    big_workspace(memory, 1_000, start=10_000, name="new")
    index.refresh()
    t = time.process_time()
    index.vectors()
    out["vectors_1000_new_cpu_s"] = round(time.process_time() - t, 3)
    return out


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    paths = [Path(p) for p in argv if p != "--quick"] or sorted(DEFAULT_DATA.glob("*.json"))
    paths = paths[:1] if quick else paths
    result: dict = {}
    prompts = []
    with tempfile.TemporaryDirectory() as tmp:
        cold_state = None
        for shape in SHAPES:
            totals: dict = {}
            for path in paths:
                conv = load(path)
                state = Path(tmp) / f"{shape}-{path.stem}" / "state"
                built = build(shape, conv, state)
                write(built, state)
                count_ahead(state)
                sums = evaluate(conv, state, built.turns, f"{shape}-{path.stem}")
                for k, v in sums.items():
                    totals[k] = totals.get(k, 0) + v
                if cold_state is None:
                    cold_state, prompts = state, [q for q, _ in questions(conv, built.turns)[:7]]
            q = max(totals["questions"], 1)
            row = {"questions": totals["questions"], "hook_hybrid": round(totals["hybrid"] / q, 4),
                   "hook_bm25": round(totals["bm25"] / q, 4), "raw_at_hybrid_chars": round(totals["raw_hybrid"] / q, 4),
                   "raw_at_bm25_chars": round(totals["raw_bm25"] / q, 4),
                   "chars_hybrid": round(totals["chars_hybrid"] / q), "tokens_hybrid": round(totals["tokens_hybrid"] / q)}
            row["ratio_hybrid_over_raw"] = round(row["hook_hybrid"] / max(row["raw_at_hybrid_chars"], 1e-9), 3)
            row["ratio_bm25_over_raw"] = round(row["hook_bm25"] / max(row["raw_at_bm25_chars"], 1e-9), 3)
            print(f"shape {shape}: {row['questions']} questions; evidence injected: hybrid {row['hook_hybrid']:.3f} "
                  f"(raw BM25 at its characters {row['raw_at_hybrid_chars']:.3f}, {row['ratio_hybrid_over_raw']}x), "
                  f"BM25-only hook {row['hook_bm25']:.3f} (raw {row['raw_at_bm25_chars']:.3f}, "
                  f"{row['ratio_bm25_over_raw']}x); mean {row['chars_hybrid']} chars / {row['tokens_hybrid']} tokens")
            result.update({f"{shape}_{k}": v for k, v in row.items()})
        assert cold_state is not None
        set_semantic(cold_state, True)
        result["fresh_hook_cpu_s_hybrid"] = round(fresh_hook_cpu(cold_state, prompts), 3)
        set_semantic(cold_state, False)
        result["fresh_hook_cpu_s_bm25"] = round(fresh_hook_cpu(cold_state, prompts), 3)
        print(f"fresh hook process, recall CPU (median of {len(prompts)}): hybrid {result['fresh_hook_cpu_s_hybrid']} s, "
              f"BM25 only {result['fresh_hook_cpu_s_bm25']} s")
        result.update(warm_costs(Path(tmp)))
        print(f"warm query over 10,000 blocks: hybrid {result['warm_query_ms_hybrid_10k']} ms, BM25 only "
              f"{result['warm_query_ms_bm25_10k']} ms; vectors of 1,000 new blocks: {result['vectors_1000_new_cpu_s']} s CPU")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
