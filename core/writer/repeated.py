"""A fact said again in another turn is kept once; a later statement saying the opposite
stands (issue 24: "a fact repeated across turns is kept once", "when a later turn corrects
or disproves an earlier statement, the later one stands").

A working session says one thing several times: the agent finds it ("`logger.ts` is
already exporting an instance on line 48 (`export default createLogger();`)"), then lists
it in its summary ("Files that didn't need changes: `logger.ts`: Already exports an
instance with `export default createLogger();`; …"). A statement whose content words
another note of the batch says all of, and more (or the same, earlier), is that note's
repeat: it goes — the item of a gathered list, or the note. A statement and a later one
with the same words where one of them is negated ("`Text` doesn't implement
`invalidate()`", then "`Text` implements `invalidate()`") is a correction: the earlier
goes. A name in code or a file the other does not say (its own, or its list's label's)
makes another thing: `npm run capture` is not `npm start`, "ChartGenerator.ts (2 imports
updated): …" not "Scheduler.ts (4 imports updated): …". Short statements (fewer than
MIN_STEMS content words) say too little to be sure, and a note tied to its neighbour by a
pronoun stays with it.

A note is also said again when another note, at most `WIDER` times its size, says nearly all
of it (`SHARE` of its stems) and every name in code, number and quoted value it gives: the
turn's "Down from 1508 to 1362 lines (~146 lines saved)." beside the summary's "Result: 1508 →
1362 lines (~10% reduction, 146 lines saved).", "`scheduler.ts` also receives the logger in its
constructor, so no changes needed." beside "Files that didn't need changes: `executor.ts`,
`scheduler.ts`, …: Receives logger as a constructor parameter, …". A quoted value the other
lacks makes another thing ('select "custom-light"' is not 'select "custom-dark"'), and so does
one of the two denying ("… but the theme itself doesn't change").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from .keywords import stems
from .statements import join, split

MIN_STEMS = 4  # content stems a statement needs to count as said again
SHARE = 0.85  # of a note's stems another note says, for it to be said again nearly whole
WIDER = 3.0  # ... when that note has at most this many times its stems (not a list that mentions it among many)
# what a note gives that the note saying it again gives too: names in code, quoted values, numbers
_GIVES = re.compile(r"`[^`\n]+`|\"[^\"\n]+\"|“[^”\n]+”|(?<![\w.])\d[\w.,:%]*\w|(?<![\w.])\d")
_CODE = re.compile(r"`([^`\n]+)`|(?<![\w./-])([\w-]+\.(?:tsx?|jsx?|py|ex|exs|rs|go|rb|md|json|toml|ya?ml|css|sh))\b")
_NEGATED = re.compile(r"\b(?:not|no|never|none|nothing|without|neither|nor|cannot)\b|n['’]t\b", re.I)


class _Noted(Protocol):
    text: str
    core: bool
    refers: bool


N = TypeVar("N", bound=_Noted)


def said_once(notes: Sequence[N], rewrite: Callable[[N, str], N]) -> list[N]:
    """The notes (in the order said) without the statements another of them says."""
    units: list[tuple[int, int, frozenset[str], bool]] = []  # (note, item, stems, negated)
    labels: list[tuple[str, list[str]]] = []
    texts: list[str] = []
    says: list[frozenset[str]] = []  # an item with its list's label ("Files that didn't need changes: …")
    for i, note in enumerate(notes):
        label, items = split(note.text)
        labels.append((label, items))
        for k, item in enumerate(items):
            units.append((i, k, frozenset(stems(item)), bool(_NEGATED.search(item))))
            says.append(units[-1][2] | stems(label))
            texts.append(f"{label} {item}".casefold())  # "ChartGenerator.ts (2 imports updated): `./a.js` …"
    holding: dict[str, list[int]] = {}  # stem -> the units that say it
    for u, said in enumerate(says):
        for s in said:
            holding.setdefault(s, []).append(u)

    def pinned(i: int) -> bool:
        """A rule, or a note tied to its neighbour by a pronoun: never taken out."""
        return notes[i].core or notes[i].refers or i + 1 < len(notes) and notes[i + 1].refers

    gone: set[tuple[int, int]] = set()
    for me, (i, k, said, negated) in enumerate(units):
        if len(said) < MIN_STEMS or pinned(i):
            continue
        rarest = min(said, key=lambda s: len(holding[s]))
        names = {a or b for a, b in _CODE.findall(texts[me])}
        alone = len(labels[i][1]) == 1 and not labels[i][0]  # no list's item, whose place in its list is a fact
        for u in holding[rarest]:
            j, l, other, denied = units[u]
            if j == i or (j, l) in gone or not all(_names(n, texts[u]) for n in names):
                continue  # a name in code the other does not say (`npm run capture`, `npm start`): another thing
            if negated == denied and (said < other or said == other and j < i
                                      or alone and said <= says[u] and len(said) < len(other)):
                gone.add((i, k))  # said in full by one that says more (with its list's label), or earlier
                break
            if negated != denied and j > i and (said <= other or other <= said) and len(other) >= MIN_STEMS:
                gone.add((i, k))  # a later statement says the opposite
                break
    out: list[N] = []
    for i, note in enumerate(notes):
        label, items = labels[i]
        left = [item for k, item in enumerate(items) if (i, k) not in gone]
        if len(left) == len(items):
            out.append(note)
        elif left:
            out.append(rewrite(note, join(label, left)))
    return _nearly_said(out)


def _nearly_said(notes: list[N]) -> list[N]:
    """The notes without those another note, not much longer, says nearly whole (SHARE, WIDER)."""
    said = [frozenset(stems(n.text)) for n in notes]
    denies = [bool(_NEGATED.search(n.text)) for n in notes]
    out: list[N] = []
    for i, note in enumerate(notes):
        mine = said[i]
        pinned = note.core or note.refers or i + 1 < len(notes) and notes[i + 1].refers
        gives = set(_GIVES.findall(note.text)) if not pinned and len(mine) >= MIN_STEMS else set()
        if (pinned or len(mine) < MIN_STEMS or not any(
                j != i and denies[j] == denies[i] and len(mine) < len(other) <= WIDER * len(mine)
                and len(mine & other) >= SHARE * len(mine) and all(_gives(g, notes[j].text) for g in gives)
                for j, other in enumerate(said))):
            out.append(note)
    return out


def _gives(given: str, text: str) -> bool:
    """The other note gives this name, number or quoted value, as a whole token."""
    return re.search(rf"(?<![\w.]){re.escape(given)}(?!\w)", text) is not None


def _names(name: str, text: str) -> bool:
    """The other statement says this code name (casefolded text), as a whole name."""
    return re.search(rf"(?<![\w-]){re.escape(name.casefold())}(?![\w-])", text) is not None
