"""A value a later turn changed is not kept as fact (issue 24: "when a later turn corrects
or disproves an earlier statement, the later one stands").

A working session gives a name a value ("`thinkingMedium` is `cyan`", "set `timeout` to
30", "the batch threshold is 8000") and later another one ("`thinkingMedium` is
`#81a2be`", "Changed `dimGray` from `#585858` to `#666666`", the user's "make `timeout` 60
instead"). The later note stands; the earlier statement of that name's value goes: the
item of a gathered list ("…; `thinkingMedium` is `cyan`; …"), or a short note whole. A
name is code (a backticked span, camelCase, snake_case, a dotted name, an ENV_VAR) or a
setting's noun ("the timeout"), a value code, a colour, a number or a quoted string. Two
statements of one turn are no change (a list of both themes' values), nor two that name
different files ("dark.json: …" beside "light.json: …").

Within a batch at write time (`superseded`); across batches at sleep (`stale_in_topics`),
within one topic and across the topics of one project, where the times of the records
two blocks cite say which was said later.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .moved import changes as place_changes, made, stale_place
from .statements import join, split

# (one [A-Z_.] after the first letter, then anything: `(?:[A-Z_.][\w.-]*)+` said the same and
# backtracked exponentially over a long name such as "ARCHITECTURE-REFACTORING.md", seconds a block)
_CODE_NAME = r"`[^`\n]{1,60}`|[A-Za-z_][\w-]*[A-Z_.][\w.-]*|[A-Z][A-Z0-9_]{2,}"
_SETTING = (r"(?i:(?:[a-z][\w-]+ )?(?:timeout|threshold|port|limit|budget|interval|ttl|delay|batch size|max(?:imum)?|"
            r"min(?:imum)?|retries|concurrency|window))")
_VALUE = (r"`[^`\n]{1,60}`|#[0-9a-fA-F]{3,8}\b|-?\d[\d.,_]*(?:\s?(?:%|ms|s|sec|seconds?|minutes?|mins?|h|hours?|"
          r"days?|[kmg]b|px|tokens?|words?|chars?|lines?))?\b|\"[^\"\n]{1,40}\"")
_GLOSS = r"(?:\s*\([^()]*\))?"
_IS = r"(?i:is(?: now)?|are(?: now)?|=|:|(?:is |was )?set to|now uses|defaults to|becomes|should be|must be)"
_ASSIGNED = re.compile(
    rf"(?:^|(?<=[:;,(]\s)|(?<=\bso\s)|(?<=\bnow\s)|(?<=\band\s))(?:(?i:the)\s+)?(?P<name>{_CODE_NAME}|{_SETTING}){_GLOSS}\s*"
    rf"(?:=|{_IS}\s)\s*(?P<value>{_VALUE})|"
    rf"\b(?i:set|setting|changed?|changing|update[ds]?|updating|bump(?:ed)?|raised?|lowered?|make|made|"
    rf"switch(?:ed)?|increased?|decreased?)\s+(?:(?i:the)\s+)?(?P<name2>{_CODE_NAME}|{_SETTING}){_GLOSS}\s+"
    rf"(?:from\s+(?P<old>{_VALUE}){_GLOSS}\s+)?to\s+(?P<value2>{_VALUE})")
_FILE = re.compile(r"[\w@.-]+\.(?:json|ya?ml|toml|ts|tsx|js|py|ex|exs|rs|go|md|css|env|ini|cfg|conf)\b", re.I)
MAX_WORDS = 25  # a statement longer than this says more than the value: kept


class _Noted(Protocol):
    text: str

    @property
    def turn(self) -> object: ...


N = TypeVar("N", bound=_Noted)


def _key(raw: str) -> str:
    return re.sub(r"\(\)$", "", raw.strip("`'\" ").casefold()).removeprefix("the ")


def assignments(text: str) -> list[tuple[str, str]]:
    """(name, value) pairs a sentence states, casefolded, backticks off."""
    return list(_assigned(text))


@functools.lru_cache(maxsize=8192)
def _assigned(text: str) -> tuple[tuple[str, str], ...]:
    """`assignments`, remembered: a sleep reads every block twice (which records it needs the
    times of, then what is stale), and most blocks are the same as at the last one."""
    out = []
    for m in _ASSIGNED.finditer(text):
        name = m.group("name") or m.group("name2")
        value = m.group("value") or m.group("value2")
        if name and value and _key(name) != _key(value):
            out.append((_key(name), _key(value)))
    return tuple(out)


def superseded(notes: Sequence[N], turn_of: Callable[[N], int], rewrite: Callable[[N, str], N]) -> list[N]:
    """The notes without the statements of a value a later turn's note changed. `turn_of`
    gives a note's turn index; `rewrite` makes a note with a new text (its pieces left)."""
    stated = [(assignments(n.text), {f.casefold() for f in _FILE.findall(n.text)}) for n in notes]
    latest: dict[str, list[tuple[int, str, set[str]]]] = {}
    for i, (pairs, files) in enumerate(stated):
        for name, value in pairs:
            latest.setdefault(name, []).append((turn_of(notes[i]), value, files))

    def stale(piece: str, turn: int, files: set[str]) -> bool:
        """Every value the piece states, a later turn changed ("Changed `dimGray` … and `mdLink`
        now uses `dimGray`" stays while `dimGray`'s value does)."""
        pairs = assignments(piece)
        return bool(pairs) and all(
            any(later > turn and new != value and not (files and where and files != where)
                for later, new, where in latest.get(name, ()))
            for name, value in pairs)

    out: list[N] = []
    for note, (pairs, files) in zip(notes, stated):
        if not pairs:
            out.append(note)
            continue
        turn = turn_of(note)
        label, items = split(note.text)
        if len(items) == 1 and not label:
            if not (len(note.text.split()) <= MAX_WORDS and stale(note.text, turn, files)):
                out.append(note)
            continue
        left = [p for p in items if len(p.split()) > MAX_WORDS or not stale(p, turn, files)]
        if len(left) == len(items):
            out.append(note)
        elif left:
            out.append(rewrite(note, join(label, left)))
    return out


# -- across batches: sleep, within one topic and across a project's topics ------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_RECORD_TIME = re.compile(r"^\[(\d{4}-\d{2}-\d{2}T[^\]]+)\]")
PEOPLE = "people/"


def _statements(content: str) -> list[str]:
    """A block's sentences, and a gathered list's items, as they are written."""
    return [p for s in _SENTENCE_END.split(content) for p in re.split(r"(?<=;)\s+", s) if p]


def project_of(path: str) -> str:
    """The group of topics a value is one value in: a project's topic and its components'
    (`pi-mono.md`, `pi-mono/theme.md`: "pi-mono"); a person's topic is its own."""
    if path.startswith(PEOPLE):
        return path
    return path.split("/", 1)[0].removesuffix(".md")


def record_time(text: str) -> str:
    """The timestamp of an evidence record as `read_source` returns it ("[2026-02-11T20:36:45+00:00]
    Owner: …"), or ""."""
    m = _RECORD_TIME.match(text)
    return m.group(1) if m else ""


@dataclass
class _Stated:
    """One block a sleep's pass reads: where it is, its day, what values it states."""
    path: str
    pos: int  # its place among its topic's blocks
    block: Any
    when: str
    pairs: list[tuple[str, str]]
    files: set[str]
    sources: list[str]  # the records it cites, relative to the workspace root


def _read(files: dict[str, str], keep: str) -> dict[str, list[_Stated]]:
    """The one-line blocks of every topic (`keep` aside), by project, in file order."""
    from ..memory.topics import parse_cached, topic_rel_to_root

    groups: dict[str, list[_Stated]] = {}
    for path, text in files.items():
        if path == keep:
            continue
        doc = parse_cached(path, text)
        for k, b in enumerate(doc.blocks):
            if not b.block_id or b.legacy or b.end - b.start != 1 or not doc.lines[b.start].startswith(b.content):
                continue
            defs = [d for c in b.citations if (d := doc.definitions.get(c.id))]
            when = max((d.when or "" for d in defs), default="")
            sources = [topic_rel_to_root(path, s.target.strip()) for d in defs for s in d.sources]
            groups.setdefault(project_of(path), []).append(
                _Stated(path, k, b, when, assignments(b.content),
                        {f.casefold() for f in _FILE.findall(b.content)}, sources))
    return groups


def _across(group: list[_Stated]) -> set[int]:
    """The blocks of a project that state a name's value another topic of it gives anew on
    the same day: which came later only their records' times can say."""
    topics: dict[tuple[str, str], set[str]] = {}
    values: dict[str, set[str]] = {}
    for s in group:
        for name, value in s.pairs:
            topics.setdefault((name, s.when), set()).add(s.path)
            values.setdefault(name, set()).add(value)
    return {i for i, s in enumerate(group) if s.when and any(
        len(topics[(name, s.when)]) > 1 and len(values[name]) > 1 for name, _ in s.pairs)}


def timed_sources(files: dict[str, str], keep: str = "") -> list[str]:
    """The records whose times a sleep's pass needs (`stale_in_topics`' `times`): those the
    blocks cite that state, on one day, a value another topic of the project states too."""
    out: dict[str, None] = {}
    for group in _read(files, keep).values():
        for i in sorted(_across(group)):
            out.update(dict.fromkeys(group[i].sources))
    return list(out)


def stale_in_topics(files: dict[str, str], keep: str = "",
                    times: dict[str, str] | None = None) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Sleep's pass over what landed: a statement of a value that a later block gives
    another value is taken out of its block (a batch cannot see the batches before it:
    pi's "`thinkingMedium` is `cyan`" one batch before "`thinkingMedium` is `#81a2be`").
    Later is, in one topic, a block after it of the same day or a later one; across the
    topics of one project (`project_of`: `pi-mono.md` and `pi-mono/theme.md`), a block of a
    later day, or of the same day whose records (`times`: a record, relative to the
    workspace root, -> its timestamp) were said after all of its own. `keep` (the core) is
    left alone. A block left with nothing is retired, unless another block links to it
    or it is its topic's only one. Returns the new texts and the retirements (block id,
    reason). Only a block written on one line with its citations at the end (as the
    writer writes them) is changed."""
    from ..memory.topics import parse_topic
    from .gather import without_blocks

    times = times or {}
    linked = {m.group(1) for text in files.values() for m in re.finditer(r"#\^([0-9a-f]{8})\b", text)}
    out = dict(files)
    retired: list[tuple[str, str]] = []
    for group in _read(files, keep).values():
        span = [(min(ts), max(ts)) if (ts := [times[r] for r in s.sources if times.get(r)]) else None
                for s in group]

        def later(i: int, j: int) -> bool:
            a, b = group[i], group[j]
            if a.path == b.path:
                return b.pos > a.pos and b.when >= a.when
            if b.when != a.when:
                return b.when > a.when
            return span[i] is not None and span[j] is not None and span[j][0] > span[i][1]  # type: ignore[index]

        by_name: dict[str, list[tuple[int, str]]] = {}
        for j, s in enumerate(group):
            for name, value in s.pairs:
                by_name.setdefault(name, []).append((j, value))

        moves = [place_changes(s.block.content) for s in group]  # a place a block moved, renamed or replaced (moved.py)
        makes = [made(s.block.content) for s in group]
        anywhere = any(moves) or any(makes)

        def moved_away(piece: str, i: int) -> bool:
            """Its place a block of the project, of its day or later, moved: in any order (a
            sub-agent's report is filed after the main thread that moved what it describes)."""
            others = [j for j in range(len(group)) if j != i and group[j].when >= group[i].when]
            return stale_place(piece, moves[i], [c for j in others for c in moves[j]],
                               {m for j in others for m in makes[j]})

        def stale(piece: str, i: int) -> str | None:
            """The topic of a later block that gives every value of `piece` anew, or None."""
            pairs = assignments(piece)
            if not pairs or len(piece.split()) > MAX_WORDS:
                return None
            mine = group[i].files
            where = []
            for name, value in pairs:
                newer = [j for j, new in by_name.get(name, ()) if new != value and j != i and later(i, j)
                         and not (mine and group[j].files and mine != group[j].files)]
                if not newer:
                    return None
                where.append(group[newer[-1]].path)
            return where[0]

        edits: dict[str, list[tuple[Any, str | None]]] = {}  # path -> (block, new content or None: nothing left)
        reasons: dict[str, str] = {}
        for i, s in enumerate(group):
            if not s.when or not (s.pairs or anywhere):
                continue
            pieces = _statements(s.block.content)
            left, by = [], []
            labelled_away = False  # "From data-capture `package.json`: …;": the list's label named the old place
            for piece in pieces:
                if labelled_away:
                    labelled_away = piece.endswith(";")
                    continue
                if anywhere and moved_away(piece, i):
                    by.append(s.path)
                    head = piece.rpartition(": ")[0]
                    if head and piece.endswith(";"):
                        labelled_away = moved_away(head, i)
                        if not labelled_away:
                            left.append(head + ":")  # "Web Server: A simple HTTP server that: <old place>;": kept
                    continue
                topic = stale(piece, i)
                if topic is None:
                    left.append(piece)
                    continue
                by.append(topic)
                head, _, rest = piece.rpartition(": ")
                if head and not assignments(head) and assignments(rest):
                    left.append(head + ":")  # "Thinking colors are now: `x` is `#666`;": the label stays for what follows
            if left == pieces:
                continue
            content = " ".join(left).rstrip(";:")
            if content and not content.endswith(":") and any(not p.endswith(":") for p in left):
                edits.setdefault(s.path, []).append((s.block, content if content.endswith((".", "!", "?", "…"))
                                                     else content + "."))
            else:
                edits.setdefault(s.path, []).append((s.block, None))
                other = next((t for t in by if t != s.path), None)
                reasons[s.block.block_id] = ("superseded: a later block of this topic gives its value anew"
                                             if other is None else
                                             f"superseded: a later block of {other} gives its value anew")
        for path, changes in edits.items():
            doc = parse_topic(path, files[path])
            lines = list(doc.lines)
            gone: list[str] = []
            for block, new in changes:
                if new is not None:
                    lines[block.start] = new + lines[block.start][len(block.content):]
                elif block.block_id not in linked and len(doc.blocks) > 1 + len(gone):
                    gone.append(block.block_id or "")
            if lines == doc.lines and not gone:
                continue
            edited = parse_topic(path, "\n".join(lines))
            out[path] = without_blocks(edited, [b for b in edited.blocks if b.block_id in gone])
            retired += [(bid, reasons[bid]) for bid in gone]
    return out, retired
