"""A note's statements: the note itself, or a gathered list's label and items.

The writer gathers a list into one note ("Main Technologies: Backend is Node.js; Database
is SQLite3; …"); a rule that finds one of its statements stale or said elsewhere takes out
that item and leaves the others under their label. An item may carry a label of its own
("Files that didn't need changes: `logger.ts`: Already exports …; `executor.ts`: Receives …"):
then the list's label is the first one; when only the first item has two ("Web Server: A
simple HTTP server that: Serves …; Runs on port 8080"), the second is a label over the items.
"""

from __future__ import annotations

import re

_ITEM_LABEL = re.compile(r"^[^:;]{1,80}: ")


def split(text: str) -> tuple[str, list[str]]:
    """The list's label with its ": " ("" when none), and its statements in order."""
    pieces = [p for p in re.split(r";\s+", text.rstrip(".")) if p]
    if len(pieces) < 2 or ": " not in pieces[0]:
        return "", pieces or [text]
    first = pieces[0]
    own_labels = any(_ITEM_LABEL.match(p) for p in pieces[1:])
    head, colon, rest = first.partition(": ") if own_labels and first.count(": ") > 1 else first.rpartition(": ")
    return head + colon, [rest, *pieces[1:]]


def join(label: str, items: list[str]) -> str:
    """The note's text with these of its statements."""
    return label + "; ".join(items) + "."
