"""The placeholder's shape, for whoever shows or counts redactions without redacting (the TUI)."""

from __future__ import annotations

import re
from collections import Counter

PLACEHOLDER_RE = re.compile(r"\[REDACTED:([a-z0-9][a-z0-9-]{0,40}):([0-9a-f]{8})\]")
NAME_PLACEHOLDER_RE = re.compile(r"REDACTED-(purged)-([0-9a-f]{8})")
"""What a purge leaves in a file name and the paths naming it (no brackets, no colon)."""
PRIVATE_MARK = "[private]"
MARK_RE = re.compile(PLACEHOLDER_RE.pattern + "|" + re.escape(PRIVATE_MARK))
"""A placeholder or the mark a dropped `<private>` span leaves."""


def placeholder_counts(text: str) -> Counter[str]:
    """Placeholders already in `text`, by kind (what a write carries)."""
    if "[REDACTED:" not in text:
        return Counter()
    return Counter(m.group(1) for m in PLACEHOLDER_RE.finditer(text))
