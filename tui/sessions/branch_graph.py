"""The branch graph: one row per turn, lanes on the left, state at a glance.

A Line-API scroll view: only the rows on screen are rendered, and a turn's text
is read from its node file only when its row is drawn, so a 10,000-turn session
opens and scrolls as fast as a short one. The lane layout itself is
`scriptorium.core.sessions.graph_layout`; this widget only paints it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from scriptorium.core.sessions.graph_layout import DASHED, NODE

from ..common.glyphs import GLYPHS, HEAD
from .messages import BranchHighlighted, TurnHighlighted
from ..common.safe_text import untrusted_line
from .states import ELSEWHERE, REWOUND, STATES, short_id
from .turn_text import excerpt

if TYPE_CHECKING:
    from .model import SessionGraph, TurnRow

ID_WIDTH = 8
ROLE_WIDTH = 4
MIN_TEXT = 16  # narrower than this and the view scrolls sideways instead


class BranchGraph(ScrollView, can_focus=True):
    """Turns of one session as a `git log --graph`-style tree, with a row cursor."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "First turn", show=False),
        Binding("end,G", "jump(-1)", "Last turn", show=False),
        Binding("enter", "pick_branch", "Branch of turn"),
    ]

    COMPONENT_CLASSES = {
        "branch-graph--line",
        "branch-graph--spawn",
        "branch-graph--head",
        "branch-graph--id",
        "branch-graph--role",
        "branch-graph--note",
        "branch-graph--off-branch",
        "branch-graph--cursor",
        *(f"branch-graph--{state}" for state in STATES),
    }

    DEFAULT_CSS = """
    BranchGraph { background: $surface; }
    BranchGraph > .branch-graph--line { color: $graph-line; }
    BranchGraph > .branch-graph--spawn { color: $graph-spawn; }
    BranchGraph > .branch-graph--head { color: $node-head; text-style: bold; }
    BranchGraph > .branch-graph--written { color: $node-written; }
    BranchGraph > .branch-graph--pending { color: $node-pending; }
    BranchGraph > .branch-graph--elsewhere { color: $node-elsewhere; }
    BranchGraph > .branch-graph--rewound { color: $node-rewound; }
    BranchGraph > .branch-graph--unrecorded { color: $node-unrecorded; }
    BranchGraph > .branch-graph--id { color: $muted-text; }
    BranchGraph > .branch-graph--role { color: $text-accent; }
    BranchGraph > .branch-graph--note { color: $muted-text; text-style: italic; }
    BranchGraph > .branch-graph--off-branch { color: $faint-text; }
    BranchGraph > .branch-graph--cursor { background: $block-cursor-blurred-background; }
    BranchGraph:focus > .branch-graph--cursor { background: $block-cursor-background; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.graph: SessionGraph | None = None
        self.selected_tip: str | None = None
        self._on_branch: frozenset[str] = frozenset()
        self._graph_width = 0
        self._cache: LRUCache[tuple, Strip] = LRUCache(1024)

    # --- data --------------------------------------------------------------

    def show(self, graph: SessionGraph | None) -> None:
        """Display `graph` (None clears) with the cursor on its head."""
        self.graph = graph
        self._cache.clear()
        self.selected_tip = None
        self._on_branch = frozenset()
        if graph is None:
            self._graph_width = 0
            self.virtual_size = Size(0, 0)
            self.refresh()
            return
        self._graph_width = 2 * max(graph.lanes, 1)
        self.virtual_size = Size(self._graph_width + 1 + ID_WIDTH + 1 + ROLE_WIDTH + 1 + MIN_TEXT, len(graph.rows))
        target = graph.row_index(graph.head or "")
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.cursor = target if target is not None else max(len(graph.rows) - 1, 0)
        self.refresh()

    def select_branch(self, tip: str | None) -> None:
        """Emphasise the rows of the branch ending at `tip`; rows off it are dimmed."""
        self.selected_tip = tip
        self._on_branch = frozenset(self.graph.branch_ids(tip)) if (self.graph and tip) else frozenset()
        self._cache.clear()
        self.refresh()

    @property
    def current_row(self) -> TurnRow | None:
        if self.graph is None or not self.graph.rows:
            return None
        return self.graph.rows[self.cursor]

    def move_to(self, node_id: str) -> None:
        if self.graph is not None and (index := self.graph.row_index(node_id)) is not None:
            self.cursor = index

    # --- cursor ------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        rows = len(self.graph.rows) if self.graph else 0
        return min(max(value, 0), max(rows - 1, 0))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()  # rows are cached with their cursor flag: only the two changed rows re-render
        if self.graph is None or not self.graph.rows:
            return
        self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True, x_axis=False, immediate=True)
        self.post_message(TurnHighlighted(self.graph.rows[new].id))

    def action_cursor(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        self.cursor += direction * max(self.scrollable_content_region.height - 1, 1)

    def action_jump(self, index: int) -> None:
        rows = len(self.graph.rows) if self.graph else 0
        self.cursor = index if index >= 0 else rows + index

    def action_pick_branch(self) -> None:
        """Select the branch of the turn under the cursor (the current one, the head's, or the first)."""
        row = self.current_row
        if row is None or self.graph is None:
            return
        through = self.graph.branches_through(row.id)
        if not through:
            self.notify("This turn is on no live branch (rewound, or a summary).", severity="warning")
            return
        tips = [b.tip for b in through]
        tip = self.selected_tip if self.selected_tip in tips else tips[0]
        self.post_message(BranchHighlighted(tip))

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and self.graph is not None:
            self.cursor = offset.y + int(self.scroll_y)

    # --- painting ----------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if self.graph is None or index >= len(self.graph.rows):
            return Strip.blank(width, base)
        key = (index, width, scroll_x, index == self.cursor)
        strip = self._cache.get(key)
        if strip is None:
            text = self._row_text(self.graph.rows[index], width + scroll_x)
            if key[-1]:  # the cursor row: background only, glyphs keep their state colours
                text.stylize(Style(bgcolor=self.get_component_rich_style("branch-graph--cursor").bgcolor))
            strip = Strip(text.render(self.app.console)).crop_extend(scroll_x, scroll_x + width, base)
            strip = strip.apply_style(base)
            self._cache[key] = strip
        return strip

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"branch-graph--{name}", partial=True)

    def _row_text(self, row: TurnRow, width: int) -> Text:
        assert self.graph is not None
        glyph_state = HEAD if row.is_head else row.state
        text = Text(no_wrap=True, overflow="crop", end="")
        spawn = row.lane.cells.find(DASHED) >= 0
        for char in row.lane.cells:
            if char == NODE:
                text.append(GLYPHS[glyph_state], self._style(glyph_state))
            else:
                text.append(char, self._style("spawn" if spawn and char == DASHED else "line"))
        text.pad_right(self._graph_width - len(row.lane.cells) + 1)
        dim = bool(self._on_branch) and row.id not in self._on_branch
        text.append(short_id(row.id).ljust(ID_WIDTH), self._style("off-branch" if dim else "id"))
        text.append(" ")
        text.append(row.role_label.ljust(ROLE_WIDTH), self._style("off-branch" if dim else "role"))
        text.append(" ")
        note = self._note(row)
        room = max(width - len(text) - (len(note) + 1 if note else 0), 8)
        body = untrusted_line(excerpt(self.graph, row), width=room)
        if dim:
            body.stylize(self._style("off-branch"))
        text.append_text(body)
        if note:
            text.append(" ")
            text.append(note, self._style("head" if row.is_head else "note"))
        if text.cell_len < width:
            text.pad_right(width - text.cell_len)
        return text

    @staticmethod
    def _note(row: TurnRow) -> str:
        if row.is_head:
            return "← head"
        if row.state == ELSEWHERE:
            return f"(written by {untrusted_line(row.foreign_mark or '', width=24).plain})"
        if row.state == REWOUND:
            return "(rewound)"
        return ""
