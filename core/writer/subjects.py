"""One person's one subject across sessions (issue 24): a later session extends the block
that already tells it, and a changed value makes the old one past.

A conversation between people is written a session at a time, each into the person's
topic (`people/<name>.md`) as blocks of that day's thread. What one person says about
one thing (a hobby, their pets, a job, a plan) comes back session after session, and a
question about it ("What has Melanie painted?", "Where has Melanie camped?") needs
every one of those turns: filed as a block of each day's thread, its parts are far
apart in memory, each among other subjects of its day. So when a later session's note
shares its subject with a block the person's topic already holds — a stem rare in that
topic (the thing, not the person or the words of every day), and more of the note's
stems with that block than with any other — the note joins that block, said with its
own date and cited to its own turns, while the block stays small enough to be one hit
(EXTEND_WORDS). The block keeps its id and its citations; the note's turn gets a
footnote of its own.

And when a later note changes what an earlier one said is so (the same person's home,
job, school or partner: "Caroline moved to Boston" after "Caroline lives in Sweden"),
the new one stands and the earlier sentence is marked as past: "(until 14 August
2023)". Only a sentence that states a present state is marked ("lives", "works at");
an event ("moved from Sweden 4 years ago") was past already. Changes within one
session are the distiller's (distil.py); this is about what an earlier session wrote.

Only between people: a working session files by project and component (filing.py),
and sleep gathers those topics (gather.py); there the writer does not read a topic
before appending to it.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date

from ..memory.topics import Paragraph, parse_cached, parse_topic
from .distil import Note, spoken_date
from .filing import Filed
from .keywords import COMMON_WORDS, content_words, stem
from .people import concrete

RARE_SHARE = 0.1  # a subject stem is in at most this share of the topic's blocks (or in 2)
MIN_SHARED = 3  # stems a later block shares with the earlier one it sits beside, none in half the topic's blocks
MIN_RARE = 2  # of them subject stems

# the things a person has one of at a time, and the words that say it changed
_ATTRIBUTES = {
    "home": frozenset(stem(w) for w in "live lives living moved move relocated home house apartment flat city town "
                                       "neighborhood neighbourhood country".split()),
    "job": frozenset(stem(w) for w in "job work works working career company employer position role boss office "
                                      "hired promoted".split()),
    "school": frozenset(stem(w) for w in "school college university studies studying major degree".split()),
    "partner": frozenset(stem(w) for w in "boyfriend girlfriend partner husband wife married dating engaged "
                                          "fiance fiancee divorced".split()),
}
_CHANGED = re.compile(r"\b(?:moved|relocated|new (?:job|position|role|home|house|apartment|place|city|school|"
                      r"boyfriend|girlfriend|partner)|started (?:a new|working|at)|switched|changed|quit|left|"
                      r"no longer|(?:now|just) (?:lives?|works?|living|working|studies|studying)|got (?:a|the|"
                      r"\w+'s) (?:new )?job|got married|got engaged|transferred|broke up|divorced)\b", re.I)
_STATE = re.compile(r"\b(?:lives|living|works|working|studies|studying|is (?:a|an|the|dating|married|engaged|with)|"
                    r"has (?:a|an) (?:job|boyfriend|girlfriend|partner|husband|wife|home|house|apartment))\b", re.I)
_UNTIL = re.compile(r"\(until \d{1,2} \w+ \d{4}\)")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[A-Z\"“(])")


@dataclass
class _Block:
    paragraph: Paragraph
    stems: frozenset[str]


@functools.lru_cache(maxsize=8192)
def _stems(text: str) -> frozenset[str]:
    """The concrete words' stems (no numbers: a date is when, not what); remembered, since
    every session of a conversation reads the blocks the sessions before it wrote."""
    return frozenset(stem(w) for w in concrete([w for w in content_words(text) if w not in COMMON_WORDS])
                     if not any(ch.isdigit() for ch in w))


def _day(stamp: str) -> date | None:
    try:
        return date.fromisoformat(stamp[:10])
    except ValueError:
        return None


def beside_earlier(filed: list[Filed], topics: dict[str, str]) -> dict[int, str]:
    """For each block of the batch (by index in `filed`) that is about what a block an
    earlier session wrote in the same person's topic tells (`topics`: path -> its text,
    the topics read whole), that block's id: the new block goes right after it."""
    by_topic: dict[str, list[_Block]] = {}
    out: dict[int, str] = {}
    for i, item in enumerate(filed):
        text = topics.get(item.path)
        if text is None or item.block.core or not item.path.startswith("people/"):
            continue
        blocks = by_topic.get(item.path)
        if blocks is None:
            doc = parse_cached(item.path, text)
            blocks = by_topic[item.path] = [_Block(p, _stems(p.content)) for p in doc.blocks
                                            if p.block_id and not p.legacy]
        target = _subject_block(item.block.notes, blocks)
        if target is not None and target.paragraph.block_id:
            out[i] = target.paragraph.block_id
    return out


def _subject_block(notes: list[Note], blocks: list[_Block]) -> _Block | None:
    """The earlier block these notes are about: they share MIN_SHARED stems with it (the
    people talking and the words of half the topic's blocks aside), MIN_RARE of them
    subject stems (in few of its blocks), and more (by weight) than with any other; or
    the last of the blocks about it that follow it (placed beside it before), so a
    subject's blocks stay in the order they were said."""
    df = Counter(s for b in blocks for s in b.stems)
    n = max(len(blocks), 1)
    rare = {s for s, k in df.items() if k <= max(2, RARE_SHARE * n)}
    names = {stem(w.casefold()) for note in notes for who in (note.turn.speaker, note.turn.other) for w in who.split()}
    mine = set().union(*(_stems(note.text) for note in notes)) - names
    def shared(block: _Block) -> set[str]:
        return {s for s in mine & block.stems if df[s] <= n / 2 or n < 4}

    def about(block: _Block) -> bool:
        both = shared(block)
        return len(both) >= MIN_SHARED and len(both & rare) >= MIN_RARE

    best, score = None, 0.0
    for k, block in enumerate(blocks):
        weight = sum(math.log((n + 1) / df[s]) for s in shared(block)) if about(block) else 0.0
        if weight > score:
            best, score = k, weight
    if best is None:
        return None
    while best + 1 < len(blocks) and about(blocks[best + 1]):  # after the blocks already placed beside it
        best += 1
    return blocks[best]


def superseded(notes: list[Note], topics: dict[str, str]) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """Earlier sentences later notes change (`topics`: what earlier sessions wrote, the
    person topics and the core): by topic and block id, each such sentence and the same
    marked "(until <the note's day>)"."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for note, (path, text) in ((n, t) for n in notes for t in topics.items()):
        day = _day(note.turn.time)
        if day is None or not _CHANGED.search(note.text):
            continue
        mine = _stems(note.text)
        kinds = [k for k, words in _ATTRIBUTES.items() if mine & words]
        if not kinds:
            continue
        for p in parse_cached(path, text).blocks:
            if not p.block_id or p.legacy:
                continue
            done = out.setdefault(path, {}).setdefault(p.block_id, [])
            for sentence in _SENTENCE_END.split(p.content):
                theirs = _stems(sentence)
                if (_STATE.search(sentence) and not _UNTIL.search(sentence) and not _CHANGED.search(sentence)
                        and any(theirs & _ATTRIBUTES[k] for k in kinds) and theirs - _ATTRIBUTES_ALL - mine
                        and _same_person(sentence, note) and sentence not in {old for old, _ in done}):
                    end = len(sentence.rstrip(".!…"))
                    done.append((sentence, f"{sentence[:end]} (until {spoken_date(day)}){sentence[end:]}"))
    return {path: {bid: pairs for bid, pairs in blocks.items() if pairs} for path, blocks in out.items()}


_ATTRIBUTES_ALL = frozenset().union(*_ATTRIBUTES.values())


def _same_person(sentence: str, note: Note) -> bool:
    """The sentence is about the one the note is about (its subject's name begins both)."""
    who = note.subject.split()[0] if note.subject else ""
    return bool(who) and _DAY_FIRST.sub("", sentence).startswith(who)


_DAY_FIRST = re.compile(r"^On \d{1,2} [A-Z][a-z]+ \d{4}, ")


def rewritten(path: str, text: str, beside: dict[str, list[str]],
              past: dict[str, list[tuple[str, str]]]) -> str:
    """The topic's text with each new block (`beside`: earlier block id -> the rendered new
    blocks, their definitions after them) right after the earlier block it is about (and
    its definitions), and changed sentences marked as past."""
    doc = parse_topic(path, text)
    lines = list(doc.lines)
    for p in reversed(doc.blocks):
        bid = p.block_id
        if not bid or (bid not in beside and bid not in past):
            continue
        if bid in beside:
            at = p.end
            while at < len(lines) and (not lines[at].strip() or _DEFINITION.match(lines[at])):
                at += 1
            while at > p.end and not lines[at - 1].strip():
                at -= 1
            lines[at:at] = [line for rendered in beside[bid] for line in ("", *rendered.split("\n"))]
        if bid in past:
            body = p.body
            for old, marked in past[bid]:
                body = body.replace(old, marked, 1)  # a sentence is never split by a citation
            suffix = p.text[p.suffix_start:] if p.suffix_start is not None else ""
            lines[p.start:p.end] = (body + suffix).split("\n")
    return "\n".join(lines).rstrip("\n") + "\n"


_DEFINITION = re.compile(r"^\[\^[^\]]+\]:")
