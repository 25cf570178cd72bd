"""Sleep gathers the topics that are about one subject into one (issue 24, DESIGN §8).

The writer files each session by itself, so one subject can end up in several topics:
`theme.md` beside `themes.md`, `people/john.md` beside `people/john-smith.md`, a
component topic of one or two blocks beside the project topic those blocks read like.
Sleep merges them. Two topics of one folder are about the same subject when

1. their names are one name: the same stems once separators, plurals and a
   possessive's "s" are set aside (`theme`/`themes`, `agent-session`/`agentsession`,
   `john-s`/`john`);
2. one name begins the other, or abbreviates it (its words are the other's first
   words, its last word the start of the other's word, or its one word the other's
   initials: `john`/`john-smith`, `config`/`configuration`, `tui`/`terminal-user-interface`),
   it begins no other name of the folder, and by their words the other is its
   nearest topic there;
3. (not between people, not between top-level topics, which are projects or people)
   one topic is small (at most SMALL blocks, and no larger than the other) and most of
   its blocks read more like other topics of its project than like the rest of their
   own: it goes to the one topic most of them read like, else to its project's topic
   (`pi-mono/x.md` into `pi-mono.md`). A topic of many blocks is a subject of its own
   whatever its blocks read like; the parts a split made (split.py) are never small.

And one subject is gathered: a block of a project's topic that names one of its
components (every word of the component's name is among its words) and reads more like
that component's topic than like the rest of the project's moves there, so that the
next session finds the component's notes in one place (`pi-mono.md`'s "`AgentSession`
becomes the testable core …" joins `pi-mono/agentsession.md`).

"Read like" is the cosine of TF-IDF weights over content-word stems: a block against
the sum of another topic's blocks (its own topic without it). The merged topic keeps
the larger one's name; every block keeps its id and its citations, the definitions
travel with the blocks that cite them (their relative links rebased), and every link
to a moved block, in any topic, is repointed at the file it now lives in. Nothing is
retired: no block leaves memory.
"""

from __future__ import annotations

import functools
import math
import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from ..memory.core_render import CORE_TOPIC
from ..memory.topics import Paragraph, TopicDoc, parse_cached, parse_topic
from .keywords import content_words, stem
from .split import Part, relinked, render_part, tidy

PEOPLE = "people"
SMALL = 5  # rule 3: a topic of at most this many blocks is small (a split's parts are far larger)
BELONGS = 0.5  # rule 3: more than this share of its blocks read most like the other topic
MIN_AFFINITY = 0.1  # rule 3: and each of them that much at least (cosine)
_SEPARATORS = re.compile(r"[-_\s.]+")
_DEFINITION = re.compile(r"^\[\^([^\]]+)\]:")


@dataclass(frozen=True)
class Merge:
    source: str  # the topic that goes (relative to topics/)
    target: str  # the topic that takes its blocks
    why: str

    def describe(self) -> str:
        return f"merged {self.source} into {self.target} ({self.why})"


# -- names -----------------------------------------------------------------------------------


def name_words(rel: str) -> list[str]:
    """The stems of a topic file's name: `agent-sessions.md` -> ["agent", "session"]; a
    possessive's lone "s" (`john-s`) is no word."""
    words = [w for w in _SEPARATORS.split(PurePosixPath(rel).stem.casefold()) if w]
    return [stem(w) for w in words if w != "s"] or [stem(w) for w in words]


def _key(rel: str) -> str:
    raw = [w for w in _SEPARATORS.split(PurePosixPath(rel).stem.casefold()) if w and w != "s"]
    return stem("".join(raw)) if raw else ""


def _begins(short: list[str], long: list[str], short_raw: list[str], long_raw: list[str]) -> bool:
    """`short` names the start of `long`: its words are long's first words (the last one
    may be cut short: `config` of `configuration`), or its one word is long's initials."""
    if len(short_raw) == 1 and len(long_raw) >= 2 and len(short_raw[0]) >= 2 \
            and short_raw[0] == "".join(w[0] for w in long_raw):
        return True
    if not short or len(short) > len(long) or len(short_raw) != len(short) or short[:-1] != long[: len(short) - 1]:
        return False
    i = len(short) - 1
    if short[i] == long[i]:  # `billing` and `billing-2` (a split's second part of one name) are two parts
        return len(short) < len(long) and not all(w.isdigit() for w in long_raw[len(short):])
    return len(short_raw[i]) >= 3 and i < len(long_raw) and long_raw[i].startswith(short_raw[i])


def _raw(rel: str) -> list[str]:
    return [w for w in _SEPARATORS.split(PurePosixPath(rel).stem.casefold()) if w and w != "s"]


# -- words -----------------------------------------------------------------------------------


class _Space:
    """TF-IDF vectors of every block (weights of content-word stems), and of every topic
    (the sum of its blocks')."""

    def __init__(self, docs: dict[str, TopicDoc]) -> None:
        counts = {rel: [_stem_counts(b.content) for b in doc.blocks] for rel, doc in docs.items()}
        df: Counter[str] = Counter(w for blocks in counts.values() for c in blocks for w in c)
        n = max(sum(len(b) for b in counts.values()), 1)
        idf = {w: math.log(n / d) + 1.0 for w, d in df.items()}
        self.blocks = {rel: [{w: (1 + math.log(k)) * idf[w] for w, k in c.items()} for c in blocks]
                       for rel, blocks in counts.items()}
        self.topics: dict[str, dict[str, float]] = {}
        for rel, vectors in self.blocks.items():
            total: Counter[str] = Counter()
            for v in vectors:
                total.update(v)
            self.topics[rel] = dict(total)
        self.norms = {rel: _dot(t, t) for rel, t in self.topics.items()}

    def affinity(self, rel: str, k: int, other: str) -> float:
        """The cosine of block k of topic `rel` with topic `other` (without the block when
        `other` is its own topic)."""
        b = self.blocks[rel][k]
        bb = _dot(b, b)
        t = self.topics[other]
        bt = _dot(b, t)
        tt = self.norms[other]
        if other == rel:
            bt, tt = bt - bb, tt - 2 * bt + bb
        return bt / math.sqrt(bb * tt) if bb > 0 and tt > 1e-9 else 0.0

    def similarity(self, a: str, b: str) -> float:
        na, nb = self.norms[a], self.norms[b]
        return _dot(self.topics[a], self.topics[b]) / math.sqrt(na * nb) if na and nb else 0.0

    def merge(self, source: str, target: str) -> None:
        """Topic `source`'s blocks now count as `target`'s."""
        self.blocks[target] = self.blocks[target] + self.blocks.pop(source)
        total = Counter(self.topics[target])
        total.update(self.topics.pop(source))
        self.topics[target] = dict(total)
        self.norms[target] = _dot(self.topics[target], self.topics[target])
        del self.norms[source]


@functools.lru_cache(maxsize=8192)
def _stem_counts(content: str) -> Counter[str]:
    """How often each content-word stem occurs in a block (remembered: a sleep reads every
    block, and most are the same as at the last one). Read-only."""
    return Counter(stem(w) for w in content_words(content))


def _dot(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(w, 0.0) for w, v in a.items())


# -- the plan --------------------------------------------------------------------------------


@dataclass
class Gathering:
    merges: list[Merge]  # each source into a target that is itself merged nowhere
    moves: dict[str, tuple[str, str]]  # block id -> (the project topic it leaves, the component topic it joins)

    def describe(self) -> list[str]:
        out = [m.describe() for m in self.merges]
        counts = Counter(self.moves.values())
        out += [f"moved {n} block(s) of {source} to {target}" for (source, target), n in sorted(counts.items())]
        return out


def plan_merges(texts: dict[str, str]) -> list[Merge]:
    """The merges of topics about one subject among `texts` (relative path -> text)."""
    return plan_gathering(texts).merges


def plan_gathering(texts: dict[str, str]) -> Gathering:
    """The merges of topics about one subject among `texts` (relative path -> text), and
    the blocks of project topics that move to a component's topic."""
    docs = {rel: parse_cached(rel, text) for rel, text in sorted(texts.items()) if rel != CORE_TOPIC}
    docs = {rel: doc for rel, doc in docs.items() if doc.blocks and not any(b.legacy or not b.block_id
                                                                            for b in doc.blocks)}
    folders: dict[str, list[str]] = {}
    for rel in docs:
        folders.setdefault(posixpath.dirname(rel), []).append(rel)
    space = _Space(docs)
    size = {rel: len(doc.blocks) for rel, doc in docs.items()}
    into: dict[str, tuple[str, str]] = {}

    def join(source: str, target: str, why: str) -> None:
        into[source] = (target, why)
        space.merge(source, target)
        size[target] += size.pop(source)

    def bigger(a: str, b: str, longer: bool = False) -> tuple[str, str]:
        """(source, target): the target has more blocks; on a tie the shorter name (or, for
        a name and the name it begins, the longer: it says more)."""
        ka = (size[a], len(a) if longer else -len(a), a)
        kb = (size[b], len(b) if longer else -len(b), b)
        return (a, b) if ka < kb else (b, a)

    for folder, rels in folders.items():
        by_key: dict[str, list[str]] = {}
        for rel in rels:
            by_key.setdefault(_key(rel), []).append(rel)
        for same in by_key.values():  # rule 1
            if len(same) > 1:
                target = max(same, key=lambda r: (size[r], -len(r), r))
                for rel in same:
                    if rel != target:
                        join(rel, target, "the same name")
        rels = [rel for rel in rels if rel not in into]
        words = {rel: name_words(rel) for rel in rels}
        raw = {rel: _raw(rel) for rel in rels}
        for rel in rels:  # rule 2
            if rel in into:
                continue
            longer = [o for o in rels if o != rel and o not in into and _key(o) != _key(rel)
                      and _begins(words[rel], words[o], raw[rel], raw[o])]
            if len(longer) != 1:
                continue
            nearest = max((o for o in rels if o != rel and o not in into), key=lambda o: (space.similarity(rel, o), o))
            if nearest == longer[0] and space.similarity(rel, nearest) > 0:
                source, target = bigger(rel, nearest, longer=True)
                join(source, target, f"{PurePosixPath(rel).stem} names the start of {PurePosixPath(longer[0]).stem}")
    for folder, rels in folders.items():  # rule 3
        if not folder or folder.split("/", 1)[0] == PEOPLE:
            continue
        parent = f"{folder}.md" if f"{folder}.md" in docs else None
        family = [r for r in rels if r not in into] + ([parent] if parent and parent not in into else [])
        for rel in sorted((r for r in family if r != parent and size[r] <= SMALL), key=lambda r: (size[r], r)):
            others = [o for o in family if o != rel and o not in into]
            if not others or size[rel] > SMALL:  # (it may have grown by a smaller topic)
                continue
            votes: Counter[str] = Counter()
            weight: dict[str, float] = {}
            for k in range(len(space.blocks[rel])):
                best = max(others + [rel], key=lambda o: (space.affinity(rel, k, o), o == rel, o))
                score = space.affinity(rel, k, best)
                if best != rel and score >= MIN_AFFINITY:
                    votes[best] += 1
                    weight[best] = weight.get(best, 0.0) + score
            n = sum(votes.values())
            if not n > BELONGS * size[rel]:
                continue
            # its home: the one topic most of its blocks read like, else its project's topic
            target = max(votes, key=lambda o: (votes[o], weight[o], o))
            if not votes[target] > BELONGS * size[rel] and parent is not None and parent not in into:
                target = parent
            if size[rel] <= size[target]:
                join(rel, target, f"{n} of its {size[rel]} block(s) read more like other topics than like it"
                                  + (f", {votes[target]} most like {PurePosixPath(target).stem}" if votes[target] else ""))
    moves: dict[str, tuple[str, str]] = {}
    for parent, doc in docs.items():  # rule 4: a project's blocks about a component join it
        folder = parent[: -len(".md")]
        components = [r for r in folders.get(folder, []) if r not in into]
        if parent in into or not components or folder.split("/", 1)[0] == PEOPLE:
            continue
        names = {c: set(name_words(c)) for c in components}
        for k, block in enumerate(doc.blocks):
            said = set(space.blocks[parent][k])
            own = space.affinity(parent, k, parent)
            fits = [(space.affinity(parent, k, c), c) for c in components if names[c] and names[c] <= said]
            fits = [(a, c) for a, c in fits if a > own and a >= MIN_AFFINITY]
            if fits:
                target = max(fits)[1]
                for bid in block.ids:
                    moves[bid] = (parent, target)
    merges = []
    for source in sorted(into):
        target, why = into[source]
        seen = {source}
        while target in into and target not in seen:  # a chain ends where nothing is merged
            seen.add(target)
            target = into[target][0]
        if target != source:
            merges.append(Merge(source, target, why))
    return Gathering(merges, moves)


def apply_gathering(texts: dict[str, str], gathering: Gathering) -> dict[str, str | None]:
    """The new text of every topic a gathering changes (None: the topic goes)."""
    merges, moves = gathering.merges, gathering.moves
    if not merges and not moves:
        return {}
    docs = {rel: parse_topic(rel, text) for rel, text in texts.items()}
    moved = {bid: m.target for m in merges for b in docs[m.source].blocks for bid in b.ids}
    moved.update({bid: target for bid, (_, target) in moves.items()})
    leaving: dict[str, list[Paragraph]] = {}
    arriving: dict[str, list[tuple[TopicDoc, Part]]] = {}
    for m in merges:
        doc = docs[m.source]
        title = doc.headings[0] if doc.headings and doc.headings[0].level == 1 \
            and doc.headings[0].index < doc.blocks[0].start else None
        start = title.index + 1 if title is not None else 0
        arriving.setdefault(m.target, []).append((doc, Part(m.target, None, start, len(doc.lines), 0,
                                                             list(doc.blocks))))
    for rel in dict.fromkeys(source for source, _ in moves.values()):
        for block in docs[rel].blocks:
            if block.block_id in moves:
                target = moves[block.block_id][1]
                leaving.setdefault(rel, []).append(block)
                arriving.setdefault(target, []).append((docs[rel], Part(target, None, block.start, block.end, 0,
                                                                         [block])))
    out: dict[str, str | None] = {m.source: None for m in merges}
    for rel, doc in docs.items():
        if rel in out:
            continue
        text = without_blocks(doc, leaving[rel]) if rel in leaving else texts[rel]
        if "#^" in text:
            text = relinked(parse_topic(rel, text) if rel in leaving else doc, moved)
        if rel in arriving:
            have = set(parse_topic(rel, text).definitions)
            text = text.rstrip("\n")
            for source, part in arriving[rel]:
                lines = []
                for line in render_part(source, part, moved).split("\n"):
                    d = _DEFINITION.match(line)
                    if d and d.group(1) in have:
                        continue
                    if d:
                        have.add(d.group(1))
                    lines.append(line)
                text += "\n\n" + "\n".join(lines)
            text = tidy(text.split("\n"))
        if text != texts[rel]:
            out[rel] = text
    return out


def without_blocks(doc: TopicDoc, blocks: list[Paragraph]) -> str:
    """The topic text minus these paragraphs and the definitions only they cited."""
    if not blocks:
        return doc.text
    dropped = {id(b) for b in blocks}
    gone = {i for b in blocks for i in range(b.start, b.end)}
    still_cited = {c.id for p in doc.paragraphs if id(p) not in dropped for c in p.citations}
    for b in blocks:
        for c in b.citations:
            d = doc.definitions.get(c.id)
            if d is not None and c.id not in still_cited:
                gone.add(d.index)
    out: list[str] = []
    for i, line in enumerate(doc.lines):
        if i in gone or (not line.strip() and (i - 1) in gone and (not out or not out[-1].strip())):
            continue
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"


@dataclass(frozen=True)
class Gathered:
    """One thing an edit gathered: a topic merged into another (`kind` "merge", its
    blocks all gone to `target`), `blocks` of a topic moved to another ("move"), or a
    topic renamed ("rename": its blocks all in a topic that was not there before)."""
    kind: Literal["merge", "move", "rename"]
    source: str  # topic paths under topics/, "a.md"
    target: str
    blocks: int

    @property
    def what(self) -> str:
        """The object of the verb: "a.md into b.md", "2 block(s) of a.md to b.md"."""
        if self.kind == "merge":
            return f"{self.source} into {self.target}"
        if self.kind == "rename":
            return f"{self.source} to {self.target}"
        return f"{self.blocks} block(s) of {self.source} to {self.target}"

    def __str__(self) -> str:
        return f"{self.kind} {self.what}"


def said(gathered: list[Gathered], preview: bool = False) -> str:
    """"; merged a.md into b.md; moved 2 block(s) of …" ("would merge", "would move" for a
    preview): how a sleep's message and the Sleep screen say what was gathered."""
    out = ""
    for kind in ("rename", "merge", "move"):
        items = [g.what for g in gathered if g.kind == kind]
        if items:
            out += f"; {'would ' + kind if preview else kind.removesuffix('e') + 'ed'} {', '.join(items)}"
    return out


def merged_topics(before: dict[str, bytes | None], after: dict[str, bytes | None]) -> list[Gathered]:
    """What an edit gathered, whichever model made it (keys "topics/<rel>", as a
    transaction's result holds them): the merges (a topic removed whose blocks now live in
    another), then the moves (blocks of a topic that stays, now in another)."""
    def ids(path: str, data: bytes | None) -> set[str]:
        if data is None or not path.startswith("topics/"):
            return set()
        return {b.block_id for b in parse_topic(path[len("topics/"):], data.decode("utf-8", errors="replace")).blocks
                if b.block_id}

    was = {bid: p for p, data in before.items() if p in after for bid in ids(p, data)}
    now = {bid: p for p, data in after.items() for bid in ids(p, data)}
    went = Counter((was[bid], now[bid]) for bid in was if bid in now and now[bid] != was[bid])
    renames: list[Gathered] = []
    merges: list[Gathered] = []
    moves: list[Gathered] = []
    main = {source: max((t for s, t in went if s == source), key=lambda t: (went[(source, t)], t))
            for source, _ in went}
    # a topic that was not there before takes the name of the largest topic that went whole into it
    renamed: dict[str, str] = {}
    for (source, target), n in sorted(went.items(), key=lambda kv: (-kv[1], kv[0])):
        if after.get(source) is None and main[source] == target and before.get(target) is None \
                and target not in renamed.values() and all(t == target for s, t in went if s == source):
            renamed[source] = target
    for (source, target), n in sorted(went.items()):
        rel_source, rel_target = source.removeprefix("topics/"), target.removeprefix("topics/")
        if renamed.get(source) == target:
            renames.append(Gathered("rename", rel_source, rel_target, n))
        elif after.get(source) is None and target == main[source]:
            merges.append(Gathered("merge", rel_source, rel_target, n))
        elif after.get(source) is not None:
            moves.append(Gathered("move", rel_source, rel_target, n))
    return renames + merges + moves
