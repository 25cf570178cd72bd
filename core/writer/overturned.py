"""A statement the session later overturned is not kept (issue 24: "when a later turn corrects
or disproves an earlier statement, the later one stands and the earlier is not kept as fact").

Two shapes, in working sessions, of what the agent said:

* **Not done, then done.** The agent (or a reviewer it role-plays) says a named thing is not
  there yet: "Spec has full `parseSessionFile` but `parseIncrementalMetrics` is TODO.",
  "`userMessageText` is defined in the theme but never used.", "`foo()` is not implemented
  yet", "(Amelia) Complete `parseIncrementalMetrics` logic or mark as Phase 2". A later turn of
  the agent's says it is: "parseIncrementalMetrics() → 156 lines, fully implemented", "Fixed!
  Now `userMessageText` is actually used - …". Read from the later turn's whole text (its
  narration and its code fences too: the line that says it was done is often a step, "Now `x`
  is used", or a listing), that clause naming the thing with the claim's own verb ("used") or
  one of being done ("implemented", "added", "complete", …) and no denial. "No TODOs
  remaining." / "Zero TODOs" said later settles every earlier "… is TODO" of the agent's.
* **A marked correction.** The agent's turn says it corrects itself ("**CORRECTED
  UNDERSTANDING!**", "## Corrected …", "I was wrong", "I stand corrected"): what it said
  before that denies something ("All `token_count` events … have `"info": null` - meaning Codex
  currently does not store token usage data in session files.", "The token data
  infrastructure … exists but is not populated.") about what the correction is about (two
  content words in common) goes.
* **Made, then deleted.** "Pi has created `~/.pi/agent/themes/custom.json` …" goes once a later
  turn says "The `custom.json` theme has been deleted." (and nothing made it again).
* **Asked for, then all done.** A review's list of what must change ("Required changes before
  implementation: (Amelia) Add missing type imports; …", "Issues found: …") goes once a later turn
  says all of it is done ("All blocking issues resolved:"). Before is since the user's last turn, or, when the correction
  answers the user's turn directly, the agent's turns before that one (the user objected to
  them).

A user's note and a rule are never taken ("TODO is not acceptable, implementation must be full."
is the user's standing rule). Between people nothing here applies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from .keywords import stems
from .statements import join, split


class _Turn(Protocol):
    role: str
    index: int
    text: str


class _Noted(Protocol):
    text: str
    core: bool

    @property
    def turn(self) -> _Turn: ...


N = TypeVar("N", bound=_Noted)

_SYMBOL = r"`[^`\n]{1,80}`|\b[a-z_][a-z0-9_]*[A-Z_][A-Za-z0-9_]*(?:\(\))?|\b[A-Za-z_]\w*\(\)"
# a thing not there yet: "is TODO", "never used", "not (yet) implemented", "is a stub", "is missing"
_UNDONE = re.compile(
    r"\b(?:is|are|was|were|remains?|still|left)\s+(?:a\s+|an\s+|still\s+)?(?P<p1>TODO|stub(?:bed)?|placeholder|"
    r"unimplemented|incomplete|unused|missing)\b|"
    r"\b(?:not|never|n't)\s+(?:yet\s+|actually\s+|really\s+|being\s+|been\s+|even\s+)?(?:be(?:en)?\s+)?"
    r"(?P<p2>implemented|used|wired|called|applied|supported|handled|exported|imported|registered|populated|"
    r"written|finished|completed?)\b|"
    r"\bn't\s+(?:yet\s+|actually\s+)?(?P<p3>implement|use|support|handle|export|call|apply)(?:ed|s)?\b", re.I)
# a reviewer's to-do of a named thing ("(Amelia) Complete `parseIncrementalMetrics` logic or mark as Phase 2")
_TO_DO = re.compile(rf"^\s*(?:[(\[]\w[\w ]{{0,20}}[)\]]\s*)?(?i:complete|implement|finish|write)\s+(?:the\s+)?(?P<sym>{_SYMBOL})")
# what may stand between the thing and its claim: its verb, or one predicate joined by "but"
_BETWEEN = re.compile(r"\s*(?:(?:is|are|was|were|exists?|has|have)\b[^,;.:]{0,60}?\s+but\s*|"
                      r"(?:is|are|was|were|does|do|did|has|have|had)\s*|(?:still|also)\s*)?")
_DONE_WORDS = ("implemented", "added", "done", "complete", "completed", "finished", "written", "wired", "created",
               "in place", "working", "works")
_FAMILY = {"use": "used uses using", "implement": "implemented", "support": "supported supports", "handle":
           "handled handles", "export": "exported exports", "call": "called calls", "apply": "applied applies",
           "stub": "", "stubbed": "", "placeholder": "", "unimplemented": "", "incomplete": "", "todo": "",
           "unused": "used uses using", "missing": "added present exists included imported defined",
           "completed": "", "complete": ""}
_DENIES = re.compile(r"\b(?:not|never|no|none|TODO|missing|unimplemented|stub|placeholder|yet to|still needs?|"
                     r"without)\b|n't\b", re.I)
_NO_TODOS = re.compile(r"\b(?:no|zero|0)\s+(?:more\s+)?TODOs?\b|\bTODOs?\s*:\s*(?:none|0)\b|"
                       r"\ball (?:methods|functions|todos)\s+(?:are\s+)?(?:now\s+)?(?:fully\s+)?implemented\b", re.I)
# every change a review asked for, said done later ("All blocking issues resolved:"), and the review's list of them
_ALL_SETTLED = re.compile(r"\ball (?:\w+ )?(?:issues|changes|gaps|concerns|findings|blockers|problems|comments)\s+"
                          r"(?:are |have been |were )?(?:now )?(?:resolved|addressed|fixed|done|implemented|completed?)\b", re.I)
_ASKED_FOR = re.compile(r"\b(?:required changes|changes required|issues found|blocking issues|open issues|action items|"
                        r"gaps)\b", re.I)
_TODO_CLAIM = re.compile(r"\bTODOs?\b|\bnot (?:yet )?implemented\b|\bunimplemented\b", re.I)
_EMPHASIS = re.compile(r"\*\*|__|~~|[#>]+\s")
_CLAUSE = re.compile(r"[.;!?]\s|[.;!?]$|\n")

# the agent correcting itself: a line opening "Corrected …" / "Correction:", or "I was wrong" anywhere
_MARKED = re.compile(r"^\W*(?:corrected\b|correction\b)|\bi was (?:wrong|mistaken|incorrect)\b|\bi stand corrected\b|"
                     r"\bmy (?:earlier|previous|first) (?:\w+ )?(?:was|is) (?:wrong|incorrect|mistaken)\b", re.I | re.M)
_DENIAL = re.compile(r"\b(?:not|never|no|none|nothing|without|lacks?|missing|absent)\b|n't\b|\bNOT\b")
_GENERIC = frozenset({"use", "file", "code", "data", "session", "issu", "problem", "work", "thing", "way", "need", "make",
                      "time", "one", "also", "now"})


def _key(symbol: str) -> str:
    return symbol.strip("`").removesuffix("()").casefold()


def _undone(piece: str) -> tuple[str, str] | None:
    """(the thing's key, the claim's verb) of a statement that a named thing is not done yet: the thing is
    the predicate's subject ("`x` is TODO", "`x` is defined in the theme but never used"), not a word
    before another subject ("The `rescue` is what causes the compiler to think the alias is unused")."""
    if m := _TO_DO.match(piece):
        return _key(m.group("sym")), "implement"
    for m in _UNDONE.finditer(piece):
        subject = None
        for s in re.finditer(_SYMBOL, piece[:m.start()]):
            subject = s
        if subject is not None and _BETWEEN.fullmatch(piece[subject.end():m.start()]):
            return _key(subject.group(0)), (m.group("p1") or m.group("p2") or m.group("p3")).casefold()
    return None


def _done_in(text: str, key: str, verb: str) -> str:
    """The line of the text (its code fences too) with a clause that says the named thing is done, with the
    claim's verb or one of being done, and no denial; "" when none does."""
    words = {*_FAMILY.get(verb, verb).split(), *_DONE_WORDS}
    name = re.compile(rf"(?<![\w.]){re.escape(key)}(?:\(\))?(?![\w])", re.I)
    for line in text.splitlines():
        bare = _EMPHASIS.sub("", line).replace("`", "")
        if bare.rstrip().endswith("?") or not name.search(bare):
            continue
        for clause in _CLAUSE.split(bare):
            if name.search(clause) and not _DENIES.search(clause) and any(
                    re.search(rf"\b{re.escape(w)}\b", clause, re.I) for w in words):
                return line
    return ""


T = TypeVar("T", bound=_Turn)


def done_later(notes: Sequence[N], turns: Sequence[T], rewrite: Callable[[N, str], N],
              stand: Callable[[str, str, T], N | None]) -> list[N]:
    """The notes without the agent's statements that a named thing is not done which a later turn of the
    agent's says is done, nor, once a later turn says no TODOs are left, its statements of a TODO. The
    later statement stands in the earlier one's place when no note of a later turn names the thing
    ("Fixed! Now `userMessageText` is actually used - …" is the agent's step, no note of its own): `stand`
    makes it a note from (that line, the thing's name, its turn), or None."""
    later = [t for t in turns if t.role == "assistant"]
    if not later:
        return list(notes)
    cleared = [t.index for t in later if _NO_TODOS.search(t.text)]
    settled = [t.index for t in later if _ALL_SETTLED.search(t.text)]
    standing: dict[int, list[N]] = {}  # by the place of the note it replaces
    place = [0]  # the place of the note being read

    def stale(piece: str, turn: int) -> bool:
        if cleared and max(cleared) > turn and _TODO_CLAIM.search(piece) and not _NO_TODOS.search(piece):
            return True
        if (settled and max(settled) > turn and piece.endswith(":") and _ASKED_FOR.search(piece)
                and not _ALL_SETTLED.search(piece)):
            return True  # a label: "Required changes before implementation: …" and its list
        claim = _undone(piece)
        if claim is None:
            return False
        for t in later:
            if t.index > turn and (line := _done_in(t.text, *claim)):
                name = re.compile(rf"(?<![\w.]){re.escape(claim[0])}(?![\w])", re.I)
                if not any(n.turn.index > turn and name.search(n.text) for n in notes) and (
                        made := stand(line, claim[0], t)) is not None:
                    standing.setdefault(place[0], []).append(made)
                return True
        return False

    out: list[N] = []
    for at, note in enumerate(notes):
        place[0] = at
        out.extend(_without([note], stale, rewrite))
        out.extend(standing.pop(at, []))
    return out


def corrected(notes: Sequence[N], turns: Sequence[_Turn], rewrite: Callable[[N, str], N]) -> list[N]:
    """The notes without the agent's denials that a later turn of its, marked as its correction, is about."""
    marks = [t for t in turns if t.role == "assistant" and _MARKED.search(_EMPHASIS.sub("", t.text))]
    if not marks:
        return list(notes)
    users = sorted(t.index for t in turns if t.role == "user")
    spans: list[tuple[int, int, set[str]]] = []  # (from, to) turn indexes whose denials the correction is about
    for t in marks:
        m = _MARKED.search(_EMPHASIS.sub("", t.text))
        said = stems(_EMPHASIS.sub("", t.text)[m.start():] if m else t.text) - _GENERIC
        last_user = max((u for u in users if u < t.index), default=-1)
        if last_user == t.index - 1:  # answering the user's objection: the agent's turns before it
            start = max((u for u in users if u < last_user), default=-1)
            spans.append((start, last_user, said))
        else:
            spans.append((last_user, t.index, said))

    def stale(piece: str, turn: int) -> bool:
        if not _DENIAL.search(piece):
            return False
        mine = stems(piece) - _GENERIC
        return any(start < turn < end and len(mine & said) >= 2 for start, end, said in spans)

    return _without(notes, stale, rewrite)


_FILE = r"`[^`\n]+`|(?:~?[\w@.-]*/)*[\w@-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b"
_MADE_FILE = re.compile(rf"\b(?i:created|wrote|written|added|generated|copied\s+[^.;]{{0,60}}?\bto)\s+(?:(?i:a|an|the)\s+)?"
                        rf"(?:(?i:new)\s+)?(?P<p>{_FILE})")
_GONE_FILE = re.compile(rf"(?P<p>{_FILE})(?:\s+(?i:theme|file|folder|directory|fixture|config))*\s+(?i:has been|have been|"
                        rf"was|were|is|are|got)\s+(?:(?i:now)\s+)?(?i:deleted|removed)\b|"
                        rf"\b(?i:deleted|removed)\s+(?:(?i:the)\s+)?(?P<q>{_FILE})")


def _file_key(raw: str) -> str:
    """A file's name without its folder, casefolded ("`~/.pi/agent/themes/custom.json`": "custom.json"), or ""
    when it is no file name."""
    name = raw.strip("`").rstrip("/").rsplit("/", 1)[-1].casefold()
    return name if re.fullmatch(r"[\w@-]+\.[a-z][a-z0-9]{0,5}", name) else ""


def unmade(notes: Sequence[N], turns: Sequence[_Turn], rewrite: Callable[[N, str], N]) -> list[N]:
    """The notes without the agent's statements that it made a file a later turn of its deleted (and did not
    make again): "Pi has created `~/.pi/agent/themes/custom.json` (copied from the dark theme) and opened it in
    VS Code." before "The `custom.json` theme has been deleted." — the file is not there."""
    made: dict[str, list[int]] = {}
    gone: dict[str, list[int]] = {}
    for t in turns:
        if t.role != "assistant":
            continue
        for m in _MADE_FILE.finditer(t.text):
            if key := _file_key(m.group("p")):
                made.setdefault(key, []).append(t.index)
        for m in _GONE_FILE.finditer(t.text):
            if key := _file_key(m.group("p") or m.group("q")):
                gone.setdefault(key, []).append(t.index)
    if not gone:
        return list(notes)

    def stale(piece: str, turn: int) -> bool:
        for m in _MADE_FILE.finditer(piece):
            key = _file_key(m.group("p"))
            deleted = [b for b in gone.get(key, ()) if b > turn]
            if deleted and not any(c > min(deleted) for c in made.get(key, ())):
                return True
        return False

    return _without(notes, stale, rewrite)


def _without(notes: Sequence[N], stale: Callable[[str, int], bool], rewrite: Callable[[N, str], N]) -> list[N]:
    out: list[N] = []
    for note in notes:
        if note.core or note.turn.role != "assistant":
            out.append(note)
            continue
        turn = note.turn.index
        label, items = split(note.text)
        if len(items) == 1 and not label:
            if not stale(note.text, turn):
                out.append(note)
            continue
        if label and (stale(label[:-2], turn) or stale(label.rstrip(), turn)):
            continue
        left = [p for p in items if not stale(p, turn)]
        if len(left) == len(items):
            out.append(note)
        elif left:
            out.append(rewrite(note, join(label, left)))
    return out
