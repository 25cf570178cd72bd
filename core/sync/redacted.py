"""Two versions of one text that differ only by redaction are the same text.

Every machine redacts with its own rules and its own key, and a purge replaces a secret
everywhere it finds it: so one record or block can reach sync as `... sk-live-123 ...` from
one side and `... [REDACTED:api-key:1a2b3c4d] ...` from the other. Those are not a conflict
nor a rewritten record: the redacted one is the same text with spans hidden, and it wins
(a secret never comes back through a merge). `hidden_spans` also tells what a placeholder
hid, which is how a purge made elsewhere is recognised here (`purges.py`).
"""

from __future__ import annotations

import re

from ..redact.placeholder import NAME_PLACEHOLDER_RE, PLACEHOLDER_RE

_LOOSE = re.compile(PLACEHOLDER_RE.pattern.replace(r"\[", r"\[?", 1).replace(r"\]", r"\]?")  # purge drops [] in a link label
                    + "|" + NAME_PLACEHOLDER_RE.pattern)  # and a renamed file's name, and the links to it


def _kind_tag(m: re.Match[str]) -> tuple[str, str]:
    return (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))


def hidden_spans(redacted: str, plain: str) -> list[tuple[str, str, str]] | None:
    """(kind, tag, the text it hides) for each placeholder of `redacted` when `plain` is
    `redacted` with every placeholder replaced by some non-empty text; else None."""
    marks = list(_LOOSE.finditer(redacted))
    if not marks or redacted == plain:
        return None
    pieces, pos = [], 0
    for m in marks:
        pieces.append(re.escape(redacted[pos:m.start()]))
        pieces.append(r"(.+?)")
        pos = m.end()
    pieces.append(re.escape(redacted[pos:]))
    try:
        found = re.fullmatch("".join(pieces), plain, re.S)
    except RecursionError:  # pragma: no cover - a pathological text: treat as different
        return None
    if found is None:
        return None
    spans = [(*_kind_tag(m), found.group(i + 1)) for i, m in enumerate(marks)]
    if any(_LOOSE.fullmatch(text) for _k, _t, text in spans):
        return None  # a placeholder for a placeholder: not a redaction
    return spans


def redacted_of(a: str, b: str) -> str | None:
    """The redacted one of `a` and `b` when they differ only by redaction; else None."""
    if hidden_spans(a, b) is not None:
        return a
    if hidden_spans(b, a) is not None:
        return b
    return None
