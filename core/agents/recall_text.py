"""The form recall gives an agent: plain lines, a record with its date and speaker.

A block is its claim without footnote markers, anchors or source paths, followed by one
reference line `(memory_get <id>)`; a record (a turn of the archive) is
`- 2023-05-08, Caroline: what was said`, so temporal questions can be answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..fence import plain_memory

if TYPE_CHECKING:
    from ..search import Hit

REFERENCE = "memory_get "


def render_item(hit: "Hit") -> str:
    """A candidate as the agent reads it: a record with its date and speaker, a block as plain text."""
    if hit.kind == "source":
        from ..search.corpus import record_parts

        date, speaker, content = record_parts(hit.text)
        head = ", ".join(part for part in (date, speaker) if part)
        return f"- {head}: {content}" if head else f"- {content}"
    return "- " + " ".join(plain_memory(hit.text).split())


def item_lines(hit: "Hit") -> list[str]:
    """An item's line, and for a block its reference line (for `memory_get`)."""
    return [render_item(hit), f"({REFERENCE}{hit.block_id})"] if hit.kind == "block" else [render_item(hit)]


def render_lines(items: list["Hit"]) -> list[str]:
    return [line for hit in items for line in item_lines(hit)]

