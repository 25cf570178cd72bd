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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from .keywords import stems
from .statements import join, split

MIN_STEMS = 4  # content stems a statement needs to count as said again
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
    if not gone:
        return list(notes)
    out: list[N] = []
    for i, note in enumerate(notes):
        label, items = labels[i]
        left = [item for k, item in enumerate(items) if (i, k) not in gone]
        if len(left) == len(items):
            out.append(note)
        elif left:
            out.append(rewrite(note, join(label, left)))
    return out


def _names(name: str, text: str) -> bool:
    """The other statement says this code name (casefolded text), as a whole name."""
    return re.search(rf"(?<![\w-]){re.escape(name.casefold())}(?![\w-])", text) is not None
