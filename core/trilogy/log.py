"""SESSIONS.md and DECISIONS.md: append-only logs, newest entry first.

An entry is one `## ` section. SESSIONS headings are `YYYY-MM-DD` with an optional
` · area`; DECISIONS headings are `YYYY-MM-DD — choice`. Entries keep their exact text;
only new entries are rendered here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from .sections import split_sections

_DATE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\b\s*(.*)$")
_SEPARATOR_RE = re.compile(r"^(?:·|—|–|--?)\s*")
_AREA_SEPARATOR = "·"


@dataclass(frozen=True)
class Entry:
    heading: str
    text: str  # exact text, heading line first, trailing blank lines included
    date: date | None
    label: str  # SESSIONS: the area ("" = none); DECISIONS: the choice

    @property
    def clean(self) -> str:
        """The entry without trailing blank lines, ending in one newline."""
        return self.text.rstrip() + "\n"


@dataclass(frozen=True)
class Log:
    preamble: str
    entries: tuple[Entry, ...]

    @property
    def text(self) -> str:
        return self.preamble + "".join(e.text for e in self.entries)


def parse_log(text: str) -> Log:
    split = split_sections(text)
    entries = tuple(_entry(s.heading, s.text) for s in split.sections)
    return Log(split.preamble, entries)


def _entry(heading: str, text: str) -> Entry:
    match = _DATE_RE.match(heading)
    if not match:
        return Entry(heading, text, None, "")
    try:
        day = date.fromisoformat(match.group(1))
    except ValueError:
        day = None
    rest = match.group(2).strip()
    label = _SEPARATOR_RE.sub("", rest, count=1).strip()
    return Entry(heading, text, day, label)


def session_entry(day: date, area: str, done: str, open_: str, next_: str) -> str:
    heading = f"## {day.isoformat()}" + (f" {_AREA_SEPARATOR} {area}" if area else "")
    return f"{heading}\nDone: {_one_line(done)}\nOpen: {_one_line(open_)}\nNext: {_one_line(next_)}\n"


def decision_entry(day: date, choice: str, chose: str, over: str, because: str) -> str:
    return (
        f"## {day.isoformat()} — {_one_line(choice)}\n"
        f"Chose: {_one_line(chose)}\nOver: {_one_line(over)}\nBecause: {_one_line(because)}\n"
    )


def prepend(text: str, entry: str) -> str:
    """The log with `entry` as its newest (first) entry; nothing else changes."""
    log = parse_log(text)
    preamble = log.preamble
    if preamble and not preamble.endswith("\n\n"):
        preamble += "\n" if preamble.endswith("\n") else "\n\n"
    rest = "".join(e.text for e in log.entries)
    return preamble + entry + ("\n" + rest if rest else "")


def _one_line(value: str) -> str:
    """Entry fields are single lines: a newline inside would start a fake heading."""
    return " ".join(value.split())
