"""Lane layout of a session tree, drawn like `git log --graph` (oldest at the top).

A session is a tree of turns: every node hangs from one parent (its predecessor,
or for a sub-agent the node that spawned it). `display_order` lists the nodes so
that each branch is contiguous: at a fork the later children (retries, re-asks,
summaries, spawns) come first, each in a lane to the right that closes at its
tip, and the oldest child continues the parent's lane below them. `layout` then
turns any parent-before-child order into one row of lane cells per node:

    ●          m1
    ●          m2
    ├─○        a1   (branches from m2's lane, which continues)
    │ ○        a2
    ●          m3   (the last child of m2 takes m2's lane)

Pure functions over ids: no store, no Textual. The TUI substitutes a glyph per
node state at `LaneRow.column`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

NODE = "*"  # placeholder for the node glyph in `LaneRow.cells`
PIPE = "│"
FORK = "├"
CROSS = "┼"
SOLID = "─"
DASHED = "┄"


@dataclass(frozen=True)
class GraphItem:
    """One node: its id, the id it hangs from (None for a root) and whether that link is a spawn."""

    id: str
    parent: str | None
    spawned: bool = False


@dataclass(frozen=True)
class LaneRow:
    """The drawing of one node's row: two characters per lane, `NODE` at `2 * column`."""

    id: str
    column: int
    cells: str

    def render(self, glyph: str) -> str:
        """The row with the node placeholder replaced by `glyph` (a one-cell character)."""
        at = 2 * self.column
        return self.cells[:at] + glyph + self.cells[at + 1 :]


@dataclass(frozen=True)
class GraphLayout:
    rows: list[LaneRow]
    lanes: int  # the widest row, in lanes (a row is at most 2 * lanes characters)


def display_order(items: Iterable[GraphItem]) -> list[GraphItem]:
    """`items` (in creation order) reordered so each branch is contiguous, side branches first.

    A parent's children keep their creation order, except that the oldest child — the
    original line — comes after the others so it can stay in the parent's lane. Items
    whose parent is absent are roots, in creation order. Iterative: deep chains are fine.
    """
    items = list(items)
    known = {item.id for item in items}
    children: dict[str, list[GraphItem]] = {}
    roots: list[GraphItem] = []
    for item in items:
        if item.parent is not None and item.parent in known and item.parent != item.id:
            children.setdefault(item.parent, []).append(item)
        else:
            roots.append(item)
    ordered: list[GraphItem] = []
    seen: set[str] = set()
    for start in [*roots, *items]:  # `items` again: members of a (corrupt) cycle are never lost
        stack = [start]
        while stack:
            item = stack.pop()
            if item.id in seen:
                continue
            seen.add(item.id)
            ordered.append(item)
            kids = children.get(item.id, [])
            if kids:
                visit = kids[1:] + kids[:1]  # side branches, then the original line
                stack.extend(reversed(visit))
    return ordered


def layout(items: Sequence[GraphItem]) -> GraphLayout:
    """Lane rows for `items`, which must list every parent before its children.

    Lanes open lazily: a child that is not its parent's last drawn child branches into
    the first free lane right of the parent's (`├─●`); the last child continues the
    parent's lane. A lane closes at a tip and is reused below.
    """
    remaining: dict[str, int] = {}
    placed: set[str] = set()
    for item in items:
        if item.parent in placed:
            remaining[item.parent] = remaining.get(item.parent, 0) + 1
        placed.add(item.id)
    lanes: list[str | None] = []
    lane_of: dict[str, int] = {}
    rows: list[LaneRow] = []
    widest = 0
    for item in items:
        parent = item.parent if item.parent in lane_of else None
        fork_from: int | None = None
        if parent is None:
            column = _free_lane(lanes, start=0)
        else:
            parent_lane = lane_of[parent]
            remaining[parent] -= 1
            if remaining[parent] == 0:
                column = parent_lane
                del lane_of[parent]
            else:
                column = _free_lane(lanes, start=parent_lane + 1)
                fork_from = parent_lane
        cells = _draw(lanes, column, fork_from, DASHED if item.spawned else SOLID)
        rows.append(LaneRow(item.id, column, cells))
        widest = max(widest, len(lanes))
        if remaining.get(item.id, 0) > 0:
            lanes[column] = item.id
            lane_of[item.id] = column
        else:
            lanes[column] = None
        while lanes and lanes[-1] is None:
            lanes.pop()
    return GraphLayout(rows, widest)


def _free_lane(lanes: list[str | None], start: int) -> int:
    for index in range(start, len(lanes)):
        if lanes[index] is None:
            return index
    lanes.append(None)
    return len(lanes) - 1


def _draw(lanes: list[str | None], column: int, fork_from: int | None, line: str) -> str:
    cells = [" "] * (2 * len(lanes))
    for index, carried in enumerate(lanes):
        if carried is not None:
            cells[2 * index] = PIPE
    if fork_from is not None:
        cells[2 * fork_from] = FORK
        for at in range(2 * fork_from + 1, 2 * column):
            cells[at] = CROSS if at % 2 == 0 and cells[at] == PIPE else line
    cells[2 * column] = NODE
    return "".join(cells).rstrip()


def render_graph(layout_: GraphLayout, glyphs: Mapping[str, str]) -> list[str]:
    """Plain-string rows (glyph per node id from `glyphs`, default `NODE`), for tests and logs."""
    return [row.render(glyphs.get(row.id, NODE)) for row in layout_.rows]
