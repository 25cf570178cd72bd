"""Recall through the hook on LoCoMo, and what recall costs.

Usage: python bench/hook_recall.py [--quick] [--item-chars N] [PATH...] (LoCoMo
conversation files; the development split in ../shared/data/locomo-dev/ by default).
`--quick`: the first conversation only; `--item-chars N`: recall's `[recall] item_chars`
(0: whole items, no cut). Figures are given per split: `tune` (conversations 26, 30, 41: the
ranking's weights were chosen on them) and `held_out` (the others: 42, 43).

Search. The same questions through `search` (top 5 blocks; a block recalls the turns it
cites): hybrid (as `search` ranks by default), the same ranking with semantic off, and
plain BM25 over the blocks' own text (search as it ranked before blocks were ranked
through their evidence: the baseline of the 1.15x target).

Evidence. Per conversation and shape (bench/locomo_shapes.py: `speakers`, `imported`), the
offline writer writes the sessions, then every question of categories 1-4 goes through
`hook claude-code user-prompt-submit` (the hook's own entry, in this process) with a
fresh session id, with semantic search on and off. A question's evidence turn is among
the injected items when an injected record is that turn, or an injected block cites it;
a question scores the share of its evidence turns injected. Beside it, plain BM25 (the
same tokenizer and ranking) over the raw turns, given as many characters as the hook
injected (turns in rank order, each that still fits). An injected block counts for every
turn it cites, also when recall cut it to the sentences matching the prompt
(`[recall] item_chars`); so each is also scored by what the agent reads: the share of the
answer's words (LoCoMo's `answer`, search tokens less question words) in the injected
text, against the same share in the raw turns given its characters ("answer words").

Cost. A fresh hook process's recall (CPU of `scriptorium hook`, median of 7 prompts) on
the first conversation's memory, semantic on and off, recalling in its own process (no
warm recall process: the first recall of a state), and semantic on answered by the warm
recall process (the hook's CPU only); a warm query over 10,000 blocks (median of 50,
hybrid and BM25 alone); the vectors of 1,000 new blocks added to them. The hooks of the
evidence runs recall in their own process too (the same answer: recall_server.py), so no
warm process outlives the bench.
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
from scriptorium.core.agents.recall_server import WARM_ENV
from scriptorium.core.agents.recall_server import pid as warm_pid
from scriptorium.core.search import SearchIndex, tokenize
from scriptorium.core.search.query import QUESTION_TOKENS
from scriptorium.core.search.ranking import Bm25Index

CATEGORIES = (1, 2, 3, 4)
TUNE = ("26", "30", "41")  # the conversations the ranking was tuned on; the rest are held out
AGENT = "claude-code"


def questions(conv: dict, turns: dict[str, str]) -> list[tuple[str, set[str]]]:
    return [(question, evidence) for question, evidence, _ in asked_with_answers(conv, turns)]


def asked_with_answers(conv: dict, turns: dict[str, str]) -> list[tuple[str, set[str], set[str]]]:
    """(question, evidence turns, the answer's words) of every question scored."""
    out = []
    for qa in conv["qa"]:
        if qa.get("category") in CATEGORIES and qa.get("evidence"):
            evidence = {e.strip() for e in qa["evidence"] if e.strip() in turns}
            if evidence:
                out.append((qa["question"], evidence, set(tokenize(str(qa.get("answer", "")))) - QUESTION_TOKENS))
    return out


def answer_share(words: set[str], text: str) -> float:
    return len(words & set(tokenize(text))) / len(words)


RECALL_CONFIG = ""  # `--item-chars N`: "[recall] item_chars = N" (0: recall gives whole items)


def set_semantic(state: Path, on: bool) -> None:
    (state / "config.toml").write_text(("" if on else "[search]\nsemantic = false\n") + RECALL_CONFIG, encoding="utf-8")


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
            "chars_bm25": 0, "tokens_hybrid": 0, "search_hybrid": 0.0, "search_words": 0.0, "search_plain_bm25": 0.0,
            "answered": 0, "answer_hybrid": 0.0, "answer_raw_hybrid": 0.0}
    with_answers = asked_with_answers(conv, turns)
    asked = [(question, evidence) for question, evidence, _ in with_answers]
    cited = {h.block_id: {by_node[record_of[r].rsplit("/", 1)[-1]] for r in h.refs
                          if r in record_of and record_of[r].rsplit("/", 1)[-1] in by_node}
             for h in index.candidates() if h.kind == "block"}
    blocks = [h for h in index.candidates() if h.kind == "block"]
    plain = Bm25Index([tokenize("\n".join([h.text, h.path.removeprefix("topics/").removesuffix(".md").replace("/", " ")]))
                       for h in blocks])
    searchers = {"search_hybrid": SearchIndex(state / "memory", semantic=True),
                 "search_words": SearchIndex(state / "memory", semantic=False)}
    for question, evidence in asked:
        for name, searcher in searchers.items():
            got = set().union(*(cited.get(h.block_id, set()) for h in searcher.search(question, top_k=5)))
            sums[name] += len(evidence & got) / len(evidence)
        got = set().union(*(cited[blocks[r.doc].block_id] for r in plain.rank(tokenize(question), 5)))
        sums["search_plain_bm25"] += len(evidence & got) / len(evidence)
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
            answer = with_answers[n][2]
            if semantic and answer:
                sums["answered"] += 1
                sums["answer_hybrid"] += answer_share(answer, text)
                sums["answer_raw_hybrid"] += answer_share(answer, " ".join(turns[d] for d in picked))
    sums["questions"] = len(asked)
    set_semantic(state, True)
    return sums


def fresh_hook_cpu(state: Path, prompts: list[str], warm: bool = False) -> float:
    """Median CPU seconds of `scriptorium hook` processes answering `prompts`: recalling in
    their own process, or (`warm`) asking the state's warm recall process, ended after."""
    cpus = []
    env = {k: v for k, v in os.environ.items() if k != WARM_ENV} if warm else {**os.environ, WARM_ENV: "0"}
    for n, prompt in enumerate([prompts[0]] + prompts if warm else prompts):  # warm: the first one starts it
        doc = {"session_id": f"cold-{os.getpid()}-{n}-{time.time()}", "hook_event_name": "UserPromptSubmit",
               "prompt": prompt, "cwd": "/tmp", "transcript_path": "/tmp/none.jsonl"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "hook", AGENT,
                        "user-prompt-submit"], input=json.dumps(doc).encode(), capture_output=True, check=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if warm and (process := warm_pid(state)) is not None:
        os.kill(process, 15)
    return statistics.median(cpus[1:] if warm else cpus)


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


def summary(totals: dict) -> dict:
    q = max(totals["questions"], 1)
    row = {"questions": totals["questions"], "hook_hybrid": round(totals["hybrid"] / q, 4),
           "hook_bm25": round(totals["bm25"] / q, 4), "raw_at_hybrid_chars": round(totals["raw_hybrid"] / q, 4),
           "raw_at_bm25_chars": round(totals["raw_bm25"] / q, 4),
           "chars_hybrid": round(totals["chars_hybrid"] / q), "tokens_hybrid": round(totals["tokens_hybrid"] / q),
           "search_hybrid_top5": round(totals["search_hybrid"] / q, 4),
           "search_words_top5": round(totals["search_words"] / q, 4),
           "search_plain_bm25_top5": round(totals["search_plain_bm25"] / q, 4),
           "answer_words_hybrid": round(totals["answer_hybrid"] / max(totals["answered"], 1), 4),
           "answer_words_raw": round(totals["answer_raw_hybrid"] / max(totals["answered"], 1), 4)}
    row["answer_words_ratio"] = round(row["answer_words_hybrid"] / max(row["answer_words_raw"], 1e-9), 3)
    row["ratio_hybrid_over_raw"] = round(row["hook_hybrid"] / max(row["raw_at_hybrid_chars"], 1e-9), 3)
    row["ratio_bm25_over_raw"] = round(row["hook_bm25"] / max(row["raw_at_bm25_chars"], 1e-9), 3)
    row["search_ratio_over_plain_bm25"] = round(row["search_hybrid_top5"] / max(row["search_plain_bm25_top5"], 1e-9), 3)
    return row


def main(argv: list[str]) -> int:
    global RECALL_CONFIG
    os.environ[WARM_ENV] = "0"  # the evidence runs' hooks recall in this process (fresh_hook_cpu says otherwise)
    if "--item-chars" in argv:
        at = argv.index("--item-chars")
        RECALL_CONFIG, argv = f"[recall]\nitem_chars = {int(argv[at + 1])}\n", argv[:at] + argv[at + 2:]
    quick = "--quick" in argv
    paths = [Path(p) for p in argv if p != "--quick"] or sorted(DEFAULT_DATA.glob("*.json"))
    paths = paths[:1] if quick else paths
    result: dict = {}
    prompts = []
    with tempfile.TemporaryDirectory() as tmp:
        cold_state = None
        for shape in SHAPES:
            totals: dict[str, dict] = {"tune": {}, "held_out": {}}
            for path in paths:
                conv = load(path)
                state = Path(tmp) / f"{shape}-{path.stem}" / "state"
                built = build(shape, conv, state)
                write(built, state)
                count_ahead(state)
                sums = evaluate(conv, state, built.turns, f"{shape}-{path.stem}")
                split = totals["tune" if path.stem in TUNE else "held_out"]
                for k, v in sums.items():
                    split[k] = split.get(k, 0) + v
                if cold_state is None:
                    cold_state, prompts = state, [q for q, _ in questions(conv, built.turns)[:7]]
            for split, split_totals in totals.items():
                if not split_totals:
                    continue
                row = summary(split_totals)
                print(f"shape {shape}, {split}: {row['questions']} questions; evidence injected: hybrid "
                      f"{row['hook_hybrid']:.3f} (raw BM25 at its characters {row['raw_at_hybrid_chars']:.3f}, "
                      f"{row['ratio_hybrid_over_raw']}x), BM25-only hook {row['hook_bm25']:.3f} (raw "
                      f"{row['raw_at_bm25_chars']:.3f}, {row['ratio_bm25_over_raw']}x); mean {row['chars_hybrid']} chars / "
                      f"{row['tokens_hybrid']} tokens; search top 5: hybrid {row['search_hybrid_top5']:.3f}, semantic off "
                      f"{row['search_words_top5']:.3f}, plain BM25 over blocks {row['search_plain_bm25_top5']:.3f} "
                      f"({row['search_ratio_over_plain_bm25']}x); answer words shown: hook {row['answer_words_hybrid']:.3f}, "
                      f"raw {row['answer_words_raw']:.3f} ({row['answer_words_ratio']}x)")
                result.update({f"{shape}_{split}_{k}": v for k, v in row.items()})
        assert cold_state is not None
        set_semantic(cold_state, True)
        result["fresh_hook_cpu_s_hybrid"] = round(fresh_hook_cpu(cold_state, prompts), 3)
        result["fresh_hook_cpu_s_hybrid_via_warm"] = round(fresh_hook_cpu(cold_state, prompts, warm=True), 3)
        set_semantic(cold_state, False)
        result["fresh_hook_cpu_s_bm25"] = round(fresh_hook_cpu(cold_state, prompts), 3)
        print(f"fresh hook process, recall CPU (median of {len(prompts)}): in its own process hybrid "
              f"{result['fresh_hook_cpu_s_hybrid']} s, BM25 only {result['fresh_hook_cpu_s_bm25']} s; hybrid answered by "
              f"the warm recall process {result['fresh_hook_cpu_s_hybrid_via_warm']} s")
        result.update(warm_costs(Path(tmp)))
        print(f"warm query over 10,000 blocks: hybrid {result['warm_query_ms_hybrid_10k']} ms, BM25 only "
              f"{result['warm_query_ms_bm25_10k']} ms; vectors of 1,000 new blocks: {result['vectors_1000_new_cpu_s']} s CPU")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
