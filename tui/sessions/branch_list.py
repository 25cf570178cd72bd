"""The live branches of the selected session, each with its pending backlog.

A Line-API scroll view, like the graph: a session may hold thousands of branches, so
only the rows on screen are built, and a tip's text is read from its node file only
when its row is drawn. It looks and moves like an `OptionList` (the same styles and
keys), one row per branch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.cache import LRUCache
from textual.content import Content
from textual.events import Click
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from scriptorium.core.sanitize import sanitize_line

from ..common.formatting import tokens
from ..common.glyphs import GLYPHS, HEAD
from .messages import BranchHighlighted
from .states import short_id
from .turn_text import excerpt

if TYPE_CHECKING:
    from .model import Branch, SessionGraph

OPTION = "branch-list--option"
HIGHLIGHTED = "branch-list--option-highlighted"


def branch_prompt(graph: SessionGraph, branch: Branch) -> Content:
    """One branch's row: state glyph, tip id, backlog, the tip's text (untrusted, sanitized)."""
    state = HEAD if branch.is_head else ("pending" if branch.pending else "written")
    index = graph.row_index(branch.tip)
    tip_text = excerpt(graph, graph.rows[index]) if index is not None else ""
    owed = f"{len(branch.pending)} pending · {tokens(branch.pending_tokens)}" if branch.pending else "written"
    return Content.assemble(
        (GLYPHS[state], f"$node-{state}"), " ", (short_id(branch.tip).ljust(8), "bold"), " ",
        (owed.ljust(18), "$node-pending" if branch.pending else "$node-written"), " ",
        (sanitize_line(tip_text)[:60], "$muted-text"),
    )


class BranchList(ScrollView, can_focus=True):
    """One row per live branch (the head's first), with a highlight that selects the branch."""

    BINDINGS = [
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("pagedown", "page(1)", "Page Down", show=False),
        Binding("pageup", "page(-1)", "Page Up", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    COMPONENT_CLASSES = {OPTION, HIGHLIGHTED}

    # OptionList's look; the height is the rows', up to twelve.
    DEFAULT_CSS = """
    BranchList {
        height: auto;
        max-height: 12;
        color: $foreground;
        overflow-x: hidden;
        border: tall $border-blurred;
        padding: 0 1;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        & > .branch-list--option-highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            border: tall $border;
            background-tint: $foreground 5%;
            & > .branch-list--option-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    highlighted: reactive[int | None] = reactive(None, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.graph: SessionGraph | None = None
        self._index_of: dict[str, int] = {}
        self._cache: LRUCache[tuple, Strip] = LRUCache(256)

    # --- data --------------------------------------------------------------

    @property
    def branches(self) -> list[Branch]:
        return self.graph.branches if self.graph is not None else []

    @property
    def option_count(self) -> int:
        return len(self.branches)

    @property
    def highlighted_tip(self) -> str | None:
        index = self.highlighted
        return None if index is None or index >= self.option_count else self.branches[index].tip

    def prompt(self, tip: str) -> Content | None:
        """The row shown for the branch ending at `tip` (None when it is not listed)."""
        index = self._index_of.get(tip)
        return None if index is None or self.graph is None else branch_prompt(self.graph, self.branches[index])

    def show(self, graph: SessionGraph | None) -> None:
        """List `graph`'s branches (None clears), nothing highlighted yet: the screen picks one."""
        self.graph = graph
        self._index_of = {b.tip: i for i, b in enumerate(self.branches)}
        self._cache.clear()
        self.set_reactive(BranchList.highlighted, None)
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.branches))
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh(layout=True)

    def highlight_tip(self, tip: str) -> None:
        """Highlight the branch ending at `tip` without announcing it (the screen selected it)."""
        index = self._index_of.get(tip)
        if index is None or index == self.highlighted:  # not listed (the list was rebuilt meanwhile)
            return
        self.set_reactive(BranchList.highlighted, index)
        self._scroll_to_highlight()
        self.refresh()

    # --- cursor ------------------------------------------------------------

    def validate_highlighted(self, value: int | None) -> int | None:
        if value is None or not self.option_count:
            return None
        return min(max(value, 0), self.option_count - 1)

    def watch_highlighted(self, value: int | None) -> None:
        self.refresh()
        if value is not None:
            self._scroll_to_highlight()
            self.post_message(BranchHighlighted(self.branches[value].tip))

    def _scroll_to_highlight(self) -> None:
        if self.highlighted is not None and self.is_mounted:
            self.scroll_to_region(Region(0, self.highlighted, 1, 1), animate=False, force=True, x_axis=False,
                                  immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.highlighted = 0 if self.highlighted is None else self.highlighted + delta

    def action_page(self, direction: int) -> None:
        step = direction * max(self.scrollable_content_region.height, 1)
        self.highlighted = 0 if self.highlighted is None else self.highlighted + step

    def action_jump(self, index: int) -> None:
        self.highlighted = index if index >= 0 else self.option_count + index

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and self.graph is not None:
            index = offset.y + int(self.scroll_y)
            if index < self.option_count:
                self.highlighted = index

    # --- painting ----------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.branches))

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        lit = index == self.highlighted
        style = self.get_visual_style(OPTION, HIGHLIGHTED) if lit else self.get_visual_style(OPTION)
        if self.graph is None or index >= len(self.branches):
            return Strip.blank(width, self.get_visual_style(OPTION).rich_style)
        key = (index, width, style)
        strip = self._cache.get(key)
        if strip is None:
            prompt = branch_prompt(self.graph, self.branches[index])
            strips = prompt.to_strips(self, prompt, width, None, style)
            strip = strips[0].crop(0, width).extend_cell_length(width, style.rich_style)
            self._cache[key] = strip
        return strip
