"""Untrusted strings as Rich `Text` or Textual `Content`: sanitized, never parsed as markup.

Every conversation, title, metadata value or model output the app shows goes
through here (DESIGN §13). `Text(...)` and `Content(...)` take their argument
literally, so `[@click=app.quit]x[/]` is displayed as those characters and does
nothing.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.content import Content

from scriptorium.core.redact.placeholder import MARK_RE
from scriptorium.core.sanitize import sanitize, sanitize_line

REDACTED_STYLE = "bold $text-warning on $warning-muted"  # a redacted span: the placeholder, never the secret
REDACTED_TEXT_STYLE = "bold yellow"  # the same in Rich Text, which has no theme variables


def untrusted_line(text: str, style: str | Style = "", width: int | None = None) -> Text:
    """One line of untrusted text (whitespace runs folded), cut to `width` terminal cells."""
    line = Text(sanitize_line(text), style=style, no_wrap=True, overflow="ellipsis", end="")
    line.highlight_regex(MARK_RE, REDACTED_TEXT_STYLE)
    if width is not None:
        line.truncate(max(width, 1), overflow="ellipsis")
    return line


def untrusted_content(text: str, style: str = "") -> Content:
    """Multi-line untrusted text as Textual `Content` (styles may use theme variables)."""
    clean = sanitize(text)
    content = Content.styled(clean, style)
    for m in MARK_RE.finditer(clean):
        content = content.stylize(REDACTED_STYLE, m.start(), m.end())
    return content
