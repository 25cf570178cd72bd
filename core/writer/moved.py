"""A place a later turn moved, renamed or replaced is not kept as where a thing is (issue 24:
"when a later turn corrects or disproves an earlier statement, the later one stands").

A working session states where things are ("Charts are generated as PNG files in the
`/charts` directory", "Database file is `metrics.db` in the root", "Added `.js` extensions
to local imports") and later changes it ("Moved `/charts` to `/web/charts`", "Moved
`metrics.db` to `/data`", "use `.ts` extensions instead of `.js`"), or makes what it found
missing ("No CLAUDE.md file exists" before "Created CLAUDE.md"). The later note stands; an
earlier statement naming the old place, and not the new one, goes: the item of a gathered
list, a list whose label names it, or a short note whole. A place is code: a backticked span,
a path with a slash, a file name with its extension — never a plain word, so people's talk
("we moved to Lisbon instead of Porto") is untouched. A plain word's old place counts only
written as a path (`/charts`, `` `charts` ``); a moved file (`metrics.db`, no folder) only where
the earlier note says where it was ("in the root", "in `src/`").

A thing the project is said not to be or to lack, in plain words, goes the same way when
someone says the project has it: the /init sub-agent's "The project is not a Git repository"
beside the user's "We already have a repo, so you don't need to git init." Only a statement
whose subject is the project itself ("the project", "this codebase", "the app") finds a thing
missing, by its head noun with a shortened word said whole ("repo" is "repository"), so
people's "I have a dog" finds and makes nothing missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from .agreement import is_adverb
from .statements import join, split
from .stopwords import STOPWORDS_EN_PLUS

_EXT = (r"(?:tsx?|jsx?|mjs|cjs|py|exs?|rb|go|rs|java|kt|swift|c|h|cpp|md|json|jsonl|toml|ya?ml|css|scss|html|sh|"
        r"sql|db|sqlite|lock|txt|env|ini|cfg|conf|log|png|svg)")
_PLACE = rf"`[^`\n]{{1,80}}`|(?:\.{{0,2}}/)?[\w@.-]+(?:/[\w@.-]*)+|[\w@-]+(?:\.[\w-]+)*\.{_EXT}\b"
_OLD_NEW = rf"(?:(?i:the)\s+)?(?P<old>{_PLACE})(?:\s+(?i:folder|directory|dir|file))?\s+(?i:to|into|->|→)\s+(?P<new>{_PLACE})"
_MOVE = re.compile(rf"\b(?i:mov(?:e|ed|es|ing)|renam(?:e|ed|es|ing)|relocat(?:e|ed|es|ing))\s+{_OLD_NEW}")
_MORE = re.compile(rf"^\s*(?:,\s*)?(?:(?i:and)\s+)?(?:(?i:move)\s+)?{_OLD_NEW}")  # "… and `/charts` to `/web/charts`"
_INSTEAD = re.compile(r"(?P<new>`[^`\n]{1,40}`)[\w\s-]{0,30}?\s+(?i:instead of|rather than|in place of)\s+"
                      r"(?P<old>`[^`\n]{1,40}`)")
# a project migrated or converted from one named technology to another ("migrated the entire project from CommonJS
# to TypeScript with ESM"): the old name, written as a name (capitalised or code), is no longer what the project uses
_NAME = r"`[^`\n]{1,40}`|[A-Z][\w+#-]*(?:\.[\w+#-]+)*"
_MIGRATE = re.compile(rf"\b(?i:migrat(?:e|ed|es|ing)|convert(?:ed|s|ing)?)\s+(?:[\w-]+\s+){{0,4}}?(?i:from)\s+"
                      rf"(?P<old>{_NAME})\s+(?i:to|into)\s+(?P<new>(?:{_NAME})(?:\s*(?:,|\+|/|(?i:with|and))\s*(?:{_NAME}))*)")
_PLACE_SPAN = re.compile(rf"^`(?:\.[A-Za-z]\w{{0,5}}|[^`\s]*/[^`\s]*|[\w@.-]+\.{_EXT})`$")  # not `with` instead of `case`
_CREATED = re.compile(rf"\b(?i:creat(?:e|ed|es|ing)|add(?:ed|s)?|wrote|writ(?:e|es|ten)|generat(?:e|ed|es))\s+"
                      rf"(?:(?i:a|an|the)\s+)?(?:(?i:new)\s+)?(?P<made>{_PLACE})")
_ABSENT = re.compile(rf"\b(?i:no)\s+(?:(?i:existing)\s+)?(?P<name>{_PLACE})(?:\s+(?i:file|folder|directory))?\s+"
                     rf"(?i:exists?|found|present|yet)|(?<![\w@./`-])(?P<name2>{_PLACE})\s+(?i:does not|doesn't|did not|didn't) exist")
# what the project is not, or has none of ("The project is not a Git repository", "The app has no test suite"), and
# what someone says it has ("We already have a repo, so Claude doesn't need to git init."): a thing, in plain words,
# of the project itself (never "we moved to Lisbon")
_NOUN_PHRASE = r"(?P<np>(?:[\w-]+\s+){0,2}?[A-Za-z][\w-]*)(?=\s*(?:[.,;:!)—–]|\s-\s|\s(?:and|but|so|yet|or|in|on|at|for|with|that|which)\b|$))"
_OWN = r"(?i:the|this|our|your|their)\s+(?i:project|codebase|repo|repository|workspace|app|application)"
_LACKS = re.compile(rf"\b{_OWN}\s+(?:(?i:is not|isn't|is no longer|was not|wasn't)\s+(?i:a|an)|(?i:has no|doesn't have an?|"
                    rf"does not have an?|lacks an?))\s+(?:(?i:proper|real|actual)\s+)?{_NOUN_PHRASE}")
_HAS = re.compile(rf"(?:\b(?i:we|i|you)\s+(?i:already\s+)?(?i:have|have got|'ve got|’ve got)|{_OWN}\s+(?i:already\s+)?"
                  rf"(?i:has|is))\s+(?i:already\s+)?(?i:a|an)\s+{_NOUN_PHRASE}")
# a word a session shortens: one thing all the same ("repo", "repository")
_SHORT = {"repo": "repository", "repos": "repository", "dir": "directory", "dirs": "directory", "config": "configuration",
          "configs": "configuration", "db": "database", "env": "environment", "lib": "library", "pkg": "package",
          "app": "application", "spec": "specification", "specs": "specification", "docs": "documentation"}
_WHERE = re.compile(r"\b(?:in|at|under|inside|from)\s+(?:the\s+)?(?:(?:project\s+)?root|`[^`]+`|\.{0,2}/\S+|[\w.-]+/)",
                    re.I)
MAX_WORDS = 30  # a statement longer than this says more than where a thing is: kept


class _Noted(Protocol):
    text: str


class Comparable(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...

    def __gt__(self, other: Any, /) -> bool: ...


N = TypeVar("N", bound=_Noted)
T = TypeVar("T", bound=Comparable)


def _key(raw: str) -> str:
    key = raw.strip("`'\" ").casefold()
    key = re.sub(r"^\.?/", "", key) if not re.match(r"^\.[\w-]+$", key) else key  # "./src", "/charts"; ".ts" stays
    return key.rstrip("/")


def _is_dir(raw: str) -> bool:
    bare = raw.strip("`'\" ")
    return bare.startswith("/") or bare.endswith("/") or "/" in bare.strip("/")


class _Change:
    """One old place a note changed: its key, the new places, and whether any mention counts."""

    def __init__(self, old: str, new: set[str], anywhere: bool, named: bool = False) -> None:
        self.old, self.new, self.anywhere, self.named = _key(old), {_key(n) for n in new}, anywhere, named
        plain = re.fullmatch(r"[\w]+", self.old) is not None and not named
        esc = re.escape(self.old)
        # a plain word only written as a path; a distinctive name ("data-capture", ".js") as a whole token,
        # or as the folder of a longer path ("data-capture/index.ts")
        self.mention = re.compile(rf"(?:(?<=`)|(?<![\w./-])/){esc}(?:/[\w@./-]*)?(?![\w-])" if plain else
                                  rf"(?<![\w./-])(?:\.?/)?{esc}(?:/[\w@./-]*)?(?![\w-])", re.I)
        # written as a path: in backticks, after a slash or `cd`, as a longer path's folder or a file's ("data-capture `package.json`")
        self.as_path = re.compile(rf"(?:(?<=`)|(?<=\bcd )|(?<![\w./-])\.?/){esc}(?![\w-])|(?<![\w./-]){esc}(?:/[\w@.-]| `[^`]+\.\w+`)",
                                  re.I)

    def stale(self, piece: str) -> bool:
        """The piece names the old place (as a path, or with where it is) and none of the new."""
        if not self.mention.search(piece) or any(_mentions(piece, n) for n in self.new):
            return False
        return self.named or bool(self.anywhere and self.as_path.search(piece) or _WHERE.search(piece))


def _mentions(piece: str, key: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", piece, re.I) is not None


def changes(text: str) -> list[_Change]:
    """The places a sentence moves, renames, replaces, or makes (casefolded keys)."""
    out: list[_Change] = []
    for m in _MOVE.finditer(text):
        old, new, rest = m.group("old"), m.group("new"), text[m.end():]
        out.append(_Change(old, {new}, _is_dir(old) or not re.search(rf"\.{_EXT}\b", old)))
        while more := _MORE.match(rest):
            out.append(_Change(more.group("old"), {more.group("new")}, True))
            rest = rest[more.end():]
    for m in _MIGRATE.finditer(text):  # a technology: any mention of the old name counts, the new one not said
        new = {n for n in re.split(r"\s*(?:,|\+|/|\b(?i:with|and)\b)\s*", m.group("new")) if n}
        out.append(_Change(m.group("old"), new, True, named=True))
    for m in _INSTEAD.finditer(text):  # places only: `agents/plugins/` instead of `providers/`, `.ts` instead of `.js`
        if _key(m.group("old")) != _key(m.group("new")) and all(_PLACE_SPAN.match(m.group(g)) for g in ("old", "new")):
            out.append(_Change(m.group("old"), {m.group("new")}, True))
    return out


def made(text: str) -> set[str]:
    """The places a sentence makes, and the things it says the project has ("We already have a repo")."""
    return {_key(m.group("made")) for m in _CREATED.finditer(text)} | {t for m in _HAS.finditer(text) if (t := _thing(m.group("np")))}


def absent(piece: str) -> set[str]:
    """The places a statement finds missing, and the things it says the project is not or lacks."""
    return ({_key(m.group("name") or m.group("name2")) for m in _ABSENT.finditer(piece)}
            | {t for m in _LACKS.finditer(piece) if (t := _thing(m.group("np")))})


def _thing(phrase: str) -> str:
    """A thing's key: its head noun, unshortened ("Git repository", "repo": "thing:repository"); "" when the
    phrase ends in no noun ("a priority right now")."""
    head = phrase.split()[-1].casefold()
    if head in STOPWORDS_EN_PLUS or is_adverb(head):
        return ""
    head = _SHORT.get(head, head)
    return "thing:" + (head[:-1] if head.endswith("s") and not head.endswith("ss") and len(head) > 3 else head)


def moved_away(notes: Sequence[N], turn_of: Callable[[N], T], rewrite: Callable[[N, str], N]) -> list[N]:
    """The notes without the statements of a place a later turn's note moved, renamed or
    replaced, or of a thing missing that a later note made. `turn_of` gives a note's turn
    (anything ordered by when it was said); `rewrite` makes a note with a new text (its
    pieces left). A turn that itself changes a place ("we no longer need a separate
    data-capture folder. Let's rename `/data-capture` to `/src`") says why: kept."""
    later: list[tuple[T, _Change]] = [(turn_of(n), c) for n in notes for c in changes(n.text)]
    makes: list[tuple[T, set[str]]] = [(turn_of(n), m) for n in notes if (m := made(n.text))]
    if not later and not makes:
        return list(notes)
    own: dict[T, set[str]] = {}
    for t, c in later:
        own.setdefault(t, set()).add(c.old)

    def stale(piece: str, turn: T) -> bool:
        if changes(piece):
            return False  # the move itself, or a request for it
        gone = absent(piece)
        return (any(t > turn and c.old not in own.get(turn, ()) and c.stale(piece) for t, c in later)
                or bool(gone) and any(t > turn and gone & m for t, m in makes))

    out: list[N] = []
    for note in notes:
        turn = turn_of(note)
        label, items = split(note.text)
        if len(items) == 1 and not label:
            if not (len(note.text.split()) <= MAX_WORDS and stale(note.text, turn)):
                out.append(note)
            continue
        if label and stale(label[:-2], turn):
            continue  # "From data-capture `package.json`: …": every item is of the old place
        left = [p for p in items if len(p.split()) > MAX_WORDS or not stale(p, turn)]
        if len(left) == len(items):
            out.append(note)
        elif left:
            out.append(rewrite(note, join(label, left)))
    return out


def stale_place(piece: str, own: Sequence[_Change], later: Sequence[_Change], made_later: set[str]) -> bool:
    """A statement (of a block in a topic) naming a place that `later` (the changes of the
    topic's other blocks of its day or after) moved — not one its own block (`own`) changes —
    or a thing missing that a later block made."""
    if len(piece.split()) > MAX_WORDS or changes(piece):
        return False
    mine = {c.old for c in own}
    return any(c.old not in mine and c.stale(piece) for c in later) or bool(absent(piece) & made_later)
