"""The coding-transcript set: what an engineer asks at the start of the next session.

bench/data/coding_questions.json names public agent transcripts (Claude Code, Codex,
pi; kept under bench/data/coding/, sources and licences in its SOURCES.md) and, for
each, questions with the key words of their answer, and its split: `tune` (read while
changing the writer), `heldout` (only measured; looked at since), `blind` (measured
only before and after a session's changes, never while choosing them; its blocks are
not printed, and were read by hand once, on 2026-12-04, as the untuned check), `fresh` (two transcripts of projects no other split has, added 2026-12-04;
run only when named) or `blind2` (six transcripts no split had, added 2026-12-04 night, questions written before the writer ran on them;
run only when named, its blocks not printed; see bench/RESULTS.md for whether it has been read since). A split's transcripts are
imported into one state with `scriptorium import <agent>` (as a user's memory holds
many projects) and written by the offline writer (`finish` per session, one `sleep`).
A question's answer is found when every key (casefolded) is in the text read: the top 5
search hits for memory; for raw BM25, the best-ranked turns of all transcripts that
fit in as many words as those hits hold. Also measured: topic files, new topics per
2,000 words, and topic names that are a single stop word, hex or a fragment of
another script.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from scriptorium.core.search import SearchIndex, tokenize
from scriptorium.core.search.ranking import Bm25Index
from scriptorium.core.sessions.records import branch_records
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer.stopwords import STOPWORDS_EN_PLUS

from locomo_shapes import write  # the offline writer over every session, then sleep: its CPU seconds

QUESTIONS = Path(__file__).resolve().parent / "data" / "coding_questions.json"
FIXTURES = Path(os.environ.get("SCRIPTORIUM_CODING_FIXTURES")
                or Path(__file__).resolve().parent / "data")  # data/coding/: the transcripts, SOURCES.md says whose
TOP_K = 5
_MARKS = re.compile(r"\[\^[^\]]*\]|(?<=\s)\^[0-9a-f]{8}\b")
_HEX = re.compile(r"^[0-9a-f]{6,}$")


def words(text: str) -> int:
    return len(text.split())


def clean(text: str) -> str:
    return _MARKS.sub("", text)


@dataclass
class Built:
    store: SessionStore
    session_ids: list[str]
    questions: list[tuple[str, list[str]]]
    missing: list[str]


SPLITS = ("tune", "heldout", "blind", "fresh", "blind2")
DEFAULT_SPLITS = ("tune", "heldout")  # `--only coding`; the blind, fresh and blind2 splits run only when named
UNSHOWN = ("blind", "blind2")  # splits whose blocks bench/recall.py does not print


def build(state: Path, spec: Path = QUESTIONS, fixtures: Path = FIXTURES, split: str = "tune") -> Built:
    """Every transcript of the split imported into `state` (not yet written)."""
    doc = json.loads(spec.read_text(encoding="utf-8"))
    sids: list[str] = []
    questions: list[tuple[str, list[str]]] = []
    missing: list[str] = []
    for item in (t for t in doc["transcripts"] if t.get("split", "tune") == split):
        path = fixtures / item["file"]
        if not path.is_file():
            missing.append(item["file"])
            continue
        done = subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "import",
                               item["kind"], str(path), "--json"], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"import {path.name} failed ({done.returncode}): {done.stderr.strip()}")
        report = json.loads(done.stdout)
        sids.extend(s for s in report["session_ids"] if s not in sids)
        questions.extend((q["q"], [k.casefold() for k in q["keys"]]) for q in item["questions"])
    return Built(SessionStore(state), sids, questions, missing)


def bad_topic_name(rel: str) -> bool:
    """A single stop word, a hex string, or a name holding another script's fragment."""
    stem = Path(rel).stem
    if stem in STOPWORDS_EN_PLUS or _HEX.match(stem):
        return True
    return any(ord(ch) > 0x2000 for ch in stem) and not all(ord(ch) > 0x2000 or ch == "-" for ch in stem)


def evaluate(built: Built, state: Path) -> dict:
    index = SearchIndex(state / "memory")
    turns = [r.text for sid in built.session_ids for r in branch_records(built.store, sid)]
    raw = Bm25Index([tokenize(t) for t in turns])
    memory_found = raw_found = 0
    for question, keys in built.questions:
        hits = index.search(question, top_k=TOP_K)
        read = " ".join(clean(h.text) for h in hits)
        budget = words(read)
        memory_found += all(k in read.casefold() for k in keys)
        got, used = [], 0
        for ranked in raw.rank(tokenize(question, parts=False), len(turns)):
            size = words(turns[ranked.doc])
            if used + size <= budget:
                got.append(turns[ranked.doc])
                used += size
        raw_text = " ".join(got).casefold()
        raw_found += all(k in raw_text for k in keys)
    topics = sorted(p.relative_to(state / "memory" / "topics").as_posix()
                    for p in (state / "memory" / "topics").rglob("*.md"))
    transcript_words = sum(words(t) for t in turns)
    memory_words = sum(words((state / "memory" / "topics" / t).read_text(encoding="utf-8")) for t in topics)
    n = max(len(built.questions), 1)
    return {"questions": len(built.questions), "memory_found5": round(memory_found / n, 4),
            "raw_found_equal_words": round(raw_found / n, 4),
            "ratio": round(memory_found / max(raw_found, 1e-9), 3) if raw_found else None,
            "memory_over_transcript_words": round(memory_words / max(transcript_words, 1), 4),
            "topic_files": len(topics), "topics_per_2000_words": round(len(topics) * 2000 / max(transcript_words, 1), 3),
            "bad_topic_names": [t for t in topics if bad_topic_name(t)]}


def sample_blocks(state: Path, count: int, seed: int = 24) -> list[tuple[str, str]]:
    """`count` blocks drawn at random from every topic (for reading by hand)."""
    from scriptorium.core.memory.topics import parse_topic

    blocks = []
    for path in sorted((state / "memory" / "topics").rglob("*.md")):
        rel = path.relative_to(state / "memory" / "topics").as_posix()
        for block in parse_topic(rel, path.read_text(encoding="utf-8")).blocks:
            blocks.append((rel, " ".join(clean(block.content).split())))
    return random.Random(seed).sample(blocks, min(count, len(blocks)))
