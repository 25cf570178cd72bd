"""Counts in words people read: "1 turn", "3 turns", "2 batches" — never "turn(s)"."""

from __future__ import annotations

_IRREGULAR = {"batch": "batches", "entry": "entries", "summary": "summaries"}


def count(n: int, noun: str) -> str:
    """`n` and `noun`, plural unless `n` is 1 (`count(2, "topic file")` -> "2 topic files")."""
    if n == 1:
        return f"{n} {noun}"
    head, _, last = noun.rpartition(" ")
    plural = _IRREGULAR.get(last, last + "s")
    return f"{n} {head + ' ' if head else ''}{plural}"
