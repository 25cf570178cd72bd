"""A numbered listing pasted into a turn: a diff or a file as the agent's screen showed it.

A user points at what they mean by pasting it from the terminal: pi's edit view, a diff with
its line numbers in the gutter ("+ 8 - **User Message Text Color**: …", " + 11 ### Fixed",
"+314 - Tips for creating harmonious themes"), then says what to do with it ("remoev that,
we just want to say that themes are not supported", "kill this."). Those lines are the file's
text, most often the text the user wants gone, not anything the user says: kept, they became
notes such as "11 ### Fixed." and "9 - Tool Title & Output Colors: …" that cost a hit's words
and state as fact what the next turn removed.

A line is a listing's line when a line number opens it: with a diff's sign before it
("+314", "-12"), or beside the number of the line before or after it (8, 9, 10, …): a list
item ("- 3 tests fail") has neither. A markdown numbered list ("1. …", "2) …") is no gutter.
The lines the terminal wrapped between two numbered ones are the listing's too.
"""

from __future__ import annotations

import re

_GUTTER = re.compile(r"^\s*(?P<sign>[+-]?)(?P<gap>\s*)(?P<n>\d{1,5})(?:\s+[+-])?(?=\s|$)")


def _number(line: str) -> tuple[int, bool] | None:
    """The line number opening `line`, and whether a diff's sign is glued to it."""
    m = _GUTTER.match(line)
    if m is None:
        return None
    return int(m.group("n")), bool(m.group("sign")) and not m.group("gap")


def without_listing(lines: list[str]) -> list[str]:
    """`lines` without those of a pasted numbered listing (see the module's docstring)."""
    numbers = [_number(line) for line in lines]
    at = [found[0] if found is not None else None for found in numbers]
    gutter = [False] * len(lines)
    for i, found in enumerate(numbers):
        if found is None:
            continue
        n, glued = found
        near: list[int] = []
        for step in (-1, 1):  # the numbered line before and after, past the lines the terminal wrapped
            j = i + step
            while 0 <= j < len(lines) and at[j] is None and lines[j].strip():
                j += step
            m = at[j] if 0 <= j < len(lines) else None
            if m is not None:
                near.append(m)
        gutter[i] = glued or any(abs(m - n) == 1 for m in near)
    out: list[str] = []
    inside = False
    for i, (line, numbered, found) in enumerate(zip(lines, gutter, numbers)):
        if numbered:
            inside = True
            continue
        if not line.strip():
            inside = False
        elif inside and found is None and _numbered_before_blank(lines, gutter, i):
            continue  # a line the terminal wrapped, between two numbered ones
        out.append(line)
    return out


def _numbered_before_blank(lines: list[str], gutter: list[bool], i: int) -> bool:
    for j in range(i + 1, len(lines)):
        if gutter[j]:
            return True
        if not lines[j].strip():
            return False
    return False
