"""Make untrusted text safe to show in a terminal.

Conversation text, topic text, model output and git messages can carry escape
sequences (ESC, the 8-bit CSI `\\x9b`) that a terminal would execute, and bidi
overrides that make text read differently from what it is. Rich strips only a
few control characters, so every untrusted string passes through `sanitize`
before it is displayed: C0/C1 controls (except newline and tab) become visible
marks and bidi embeddings/overrides/isolates are dropped. The result is still
plain text: callers must never parse it as markup.
"""

from __future__ import annotations

# U+202A..U+202E (LRE RLE PDF LRO RLO) and U+2066..U+2069 (LRI RLI FSI PDI).
BIDI_CONTROLS = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def _mark(code: int) -> str:
    """The visible stand-in for control character `code`."""
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode "control pictures": ␀ ␁ … ␛ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\u27e8{code:02X}\u27e9"  # C1 has no pictures: ⟨9B⟩


def _table(*, drop_bidi: bool) -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]:
        if chr(code) not in "\n\t":
            table[code] = _mark(code)
    if drop_bidi:
        for code in BIDI_CONTROLS:
            table[code] = None
    return table


_TRANSLATION = _table(drop_bidi=True)
_CONTROLS_ONLY = _table(drop_bidi=False)


def visible_controls(text: str) -> str:
    """`text` with C0/C1 controls (but newline and tab) as visible marks, nothing else
    changed: what a stored topic holds, so that neither a terminal showing the file nor
    git (a NUL makes it a binary file) is handed a raw control."""
    return text.translate(_CONTROLS_ONLY)


def sanitize(text: str) -> str:
    """`text` with controls made visible and bidi overrides removed (newline and tab kept)."""
    return text.translate(_TRANSLATION)


def sanitize_line(text: str) -> str:
    """`sanitize` for a one-line cell: runs of whitespace (newlines, tabs) become one space."""
    return " ".join(sanitize(text).split())
