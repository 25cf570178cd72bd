"""Two versions of one text side by side, the words that differ lit (a conflict's local and
incoming blocks): difflib over words, so a changed time in a sentence stands out."""

from __future__ import annotations

import difflib
import re

from textual.content import Content

from .safe_text import untrusted_content

CHANGED = "bold reverse"


def word_diff(old: str, new: str) -> tuple[Content, Content]:
    """`old` and `new` (untrusted) as Content, each with the words the other lacks styled."""
    a, b = re.split(r"(\s+)", old), re.split(r"(\s+)", new)
    left: list[Content] = []
    right: list[Content] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        style = "" if op == "equal" else CHANGED
        left.append(untrusted_content("".join(a[i1:i2]), style))
        right.append(untrusted_content("".join(b[j1:j2]), style))
    return Content("").join(left), Content("").join(right)
