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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

_CODE_NAME = r"`[^`\n]{1,60}`|[A-Za-z_][\w-]*(?:[A-Z_.][\w.-]*)+|[A-Z][A-Z0-9_]{2,}"
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
    out = []
    for m in _ASSIGNED.finditer(text):
        name = m.group("name") or m.group("name2")
        value = m.group("value") or m.group("value2")
        if name and value and _key(name) != _key(value):
            out.append((_key(name), _key(value)))
    return out


def _pieces(text: str) -> list[str]:
    return [p for p in re.split(r";\s+", text.rstrip(".")) if p]


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
        pieces = _pieces(note.text)
        if len(pieces) == 1:
            if not (len(note.text.split()) <= MAX_WORDS and stale(note.text, turn, files)):
                out.append(note)
            continue
        head, colon, first = pieces[0].rpartition(": ")
        items = [first if colon else pieces[0], *pieces[1:]]
        left = [p for p in items if len(p.split()) > MAX_WORDS or not stale(p, turn, files)]
        if len(left) == len(items):
            out.append(note)
        elif left:
            out.append(rewrite(note, (head + colon if colon else "") + "; ".join(left) + "."))
    return out


# -- across batches: sleep, within one topic --------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")


def _statements(content: str) -> list[str]:
    """A block's sentences, and a gathered list's items, as they are written."""
    return [p for s in _SENTENCE_END.split(content) for p in re.split(r"(?<=;)\s+", s) if p]


def stale_in_topics(files: dict[str, str], keep: str = "") -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Sleep's pass over what landed: in each topic (`keep` aside, the core), a statement
    of a value that a block after it, of the same day or later, gives another value is
    taken out of its block (a batch cannot see the batches before it: pi's "`thinkingMedium`
    is `cyan`" one batch before "`thinkingMedium` is `#81a2be`"). A block left with
    nothing is retired, unless another block links to it or it is its topic's only one.
    Returns the new texts and the retirements (block id, reason). Only a block written
    on one line with its citations at the end (as the writer writes them) is changed."""
    from ..memory.topics import parse_topic

    linked = {m.group(1) for text in files.values() for m in re.finditer(r"#\^([0-9a-f]{8})\b", text)}
    out = dict(files)
    retired: list[tuple[str, str]] = []
    for path, text in files.items():
        if path != keep:
            changed, gone = _topic_without_stale(parse_topic(path, text), linked)
            if changed is not None:
                out[path] = changed
                retired += [(bid, "superseded: a later block of this topic gives its value anew") for bid in gone]
    return out, retired


def _topic_without_stale(doc: object, linked: set[str]) -> tuple[str | None, list[str]]:
    """One topic's text without the statements later blocks changed (None: unchanged), and
    the ids of the blocks that left with all they said."""
    from ..memory.topics import TopicDoc, parse_topic
    from .gather import without_blocks

    assert isinstance(doc, TopicDoc)
    blocks = [b for b in doc.blocks if b.block_id and not b.legacy and b.end - b.start == 1
              and doc.lines[b.start].startswith(b.content)]
    when = [max((d.when or "" for c in b.citations if (d := doc.definitions.get(c.id))), default="") for b in blocks]
    stated = [assignments(b.content) for b in blocks]
    named = [{f.casefold() for f in _FILE.findall(b.content)} for b in blocks]

    def stale(piece: str, i: int) -> bool:
        pairs = assignments(piece)
        return bool(pairs) and len(piece.split()) <= MAX_WORDS and all(
            any(value != new and when[j] >= when[i] and not (named[i] and named[j] and named[i] != named[j])
                for j in range(i + 1, len(blocks)) for name2, new in stated[j] if name2 == name)
            for name, value in pairs)

    lines = list(doc.lines)
    gone: list[str] = []
    for i, block in enumerate(blocks):
        if not stated[i] or not when[i]:
            continue
        pieces = _statements(block.content)
        left = []
        for piece in pieces:
            if not stale(piece, i):
                left.append(piece)
            elif (head := piece.rpartition(": ")[0]) and not assignments(head):
                left.append(head + ":")  # "Thinking colors are now: `x` is `#666`;": the label stays for what follows
        if left == pieces:
            continue
        content = " ".join(left).rstrip(";:")
        if content and not content.endswith(":") and any(not p.endswith(":") for p in left):
            content = content if content.endswith((".", "!", "?", "…")) else content + "."
            lines[block.start] = content + lines[block.start][len(block.content):]
        elif block.block_id not in linked and len(doc.blocks) > 1 + len(gone):
            gone.append(block.block_id or "")
    if lines == doc.lines and not gone:
        return None, []
    edited = parse_topic(doc.path, "\n".join(lines))
    return without_blocks(edited, [b for b in edited.blocks if b.block_id in gone]), gone
