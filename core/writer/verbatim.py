"""What the writer never rewrites: names and code, kept byte for byte as the transcript had
them (issue 24: "paths kept verbatim").

The writer rewrites a sentence in many small ways: filler words go ("really", "just"),
"I" becomes the speaker's name, "yesterday" the day it was, a first letter is raised, a
bracket is turned round. Every one of them is prose's, and none may reach inside a code
span (`` `just check` `` was written "` check`"), a path, a file name ("registry.test.ts"
opening a sentence was "Registry.test.ts"), an identifier, a commit hash ("Fe5d0ee") or a
URL. This is the one place that says what those are (`spans`) and the rewrites made to
respect them: `sub` (a regular expression's substitution that leaves a match touching
one as it was), `upper_first` / `lower_first`, `inside` for a rewrite that walks words,
and `CODE_SPAN`, the spans whose brackets a topic file keeps (filing.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_VERBATIM = re.compile(
    r"`[^`\n]+`"  # a code span
    r"|\b(?:https?|ftp|file)://[^\s`<>\"']*[^\s`<>\"'.,;:!?)\]]"  # a URL (not the sentence's last stop)
    r"|(?<![\w/.~@-])(?:~|\.{1,2})?/?(?:\.?[\w@+-]+(?:\.[\w@+-]+)*/)+(?:\.?[\w@+-]+(?:\.[\w@+-]+)*)?"  # src/a.ts, ~/.pi/
    r"|(?<![\w/.-])/\.?[\w@+-]+(?:\.[\w@+-]+)*"  # /etc, /clear
    r"|(?<![\w.-])[\w-]+(?:\.[\w-]+)+"  # a dotted name: registry.test.ts, package.json, Spotter.Telemetry
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"  # a commit hash: fe5d0ee
    r"|\b[A-Za-z0-9]+_\w*|\b_+[A-Za-z0-9]+_\w*"  # snake_case, __init__ (not markdown's __bold__)
    r"|\b[a-z]+[A-Z]\w*"  # camelCase (also iOS, macOS: never raised)
)

# a code span as markdown reads one (one backtick each side, none escaped or doubled): its brackets are code, and
# filing.py turns no bracket of it round (a span this misses is turned round: never a citation forged)
CODE_SPAN = re.compile(r"((?<![`\\])`[^`\n]+`(?!`))")


def spans(text: str) -> list[tuple[int, int]]:
    """Where the text holds something to keep as it is, in order."""
    return [m.span() for m in _VERBATIM.finditer(text)]


def inside(kept: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether text[start:end] touches one of the kept spans."""
    return any(a < end and start < b for a, b in kept) if end > start else any(a <= start < b for a, b in kept)


def sub(pattern: re.Pattern[str], repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
    """`pattern.sub(repl, text, count)`, but a match touching a kept span is left as it was
    (and is not counted)."""
    if pattern.search(text) is None:
        return text
    kept = spans(text)
    if not kept:
        return pattern.sub(repl, text, count=count)
    out: list[str] = []
    at = done = 0
    for m in pattern.finditer(text):
        if count and done >= count:
            break
        if inside(kept, m.start(), m.end()):
            continue
        out.append(text[at:m.start()])
        out.append(repl(m) if callable(repl) else m.expand(repl))
        at = m.end()
        done += 1
    out.append(text[at:])
    return "".join(out)


def _opens_kept(text: str) -> bool:
    return bool(text) and any(a == 0 for a, _ in spans(text[:200]))


def upper_first(text: str) -> str:
    """The first letter raised, unless the text opens with a name or code ("fe5d0ee", "registry.test.ts")."""
    return text if _opens_kept(text) else text[:1].upper() + text[1:]


def lower_first(text: str) -> str:
    """The first letter lowered, unless the text opens with a name or code ("Docs/ARCHITECTURE.md" stays)."""
    return text if _opens_kept(text) else text[:1].lower() + text[1:]
