"""Lane layout of a session tree, drawn like `git log --graph` (oldest at the top).

A session is a tree of turns: every node hangs from one parent (its predecessor,
or for a sub-agent the node that spawned it). `display_order` lists the nodes so
that each branch is contiguous: at a fork the side branches (retries, re-asks,
summaries, spawns) come first, each in a lane to the right that closes at its
tip, and the trunk child (the head's line) continues the parent's lane below
them. `layout` then turns any parent-before-child order into one row of lane
cells per node:

    ●          m1
    ●          m2
    ├─○        a1   (branches from m2's lane, which continues)
    │ ○        a2
    ●          m3   (the last child of m2 takes m2's lane)

Pure functions over ids: no store, no Textual. The TUI substitutes a glyph per
node state at `LaneRow.column`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

NODE = "*"  # placeholder for the node glyph in `LaneRow.cells`
PIPE = "│"
FORK = "├"
CORNER = "╰"
CROSS = "┼"
SOLID = "─"
DASHED = "┄"


@dataclass(frozen=True)
class GraphItem:
    """One node and the id it hangs from (None for a root).

    `spawned`: the link is a sub-agent spawn (drawn dashed, always a side branch).
    `side`: rather not continue the parent's lane (a rewound turn, a summary).
    `hangs`: hangs off its parent, never continues its lane (a tool call off its turn:
    drawn `╰─·` even as the last child, so it never reads as the next turn).
    """

    id: str
    parent: str | None
    spawned: bool = False
    side: bool = False
    hangs: bool = False


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


def display_order(items: Iterable[GraphItem], trunk: Collection[str] = ()) -> list[GraphItem]:
    """`items` (in creation order) reordered so each branch is contiguous, side branches first.

    At a fork one child continues the parent's lane and comes after its siblings: the
    one on `trunk` (e.g. the path to the head), else — among those neither spawned nor
    `side` — the one whose subtree saw the latest activity (a retried answer that the
    conversation went on from, not the one it left). The other children keep their
    creation order. Items
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
    latest = {item.id: index for index, item in enumerate(items)}
    for item in reversed(items):  # children come after parents in creation order
        if item.parent in latest and item.parent != item.id:
            latest[item.parent] = max(latest[item.parent], latest[item.id])
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
            if len(kids) == 1:
                stack.append(kids[0])
            elif kids:
                line = _trunk_child(kids, trunk, latest)
                visit = [kid for kid in kids if kid is not line] + [line]  # side branches, then the line
                stack.extend(reversed(visit))
    return ordered


def _trunk_child(kids: list[GraphItem], trunk: Collection[str], latest: Mapping[str, int]) -> GraphItem:
    candidates = [kid for kid in kids if not (kid.spawned or kid.hangs)]
    for preferred in ([k for k in candidates if k.id in trunk], [k for k in candidates if not k.side], candidates):
        if preferred:
            return max(preferred, key=lambda kid: latest[kid.id])
    return kids[0]


def layout(items: Sequence[GraphItem]) -> GraphLayout:
    """Lane rows for `items`, which must list every parent before its children.

    Lanes open lazily: a child that is not its parent's last drawn child branches into
    the first free lane right of the parent's (`├─●`); the last child continues the
    parent's lane — unless it is a sub-agent or `hangs`, which always branches off (`╰┄●`,
    `╰─·` when nothing else follows its parent). A lane closes at a tip and is reused below.
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
            last = remaining[parent] == 0
            if last:
                del lane_of[parent]
            if last and not (item.spawned or item.hangs):
                column = parent_lane
            else:  # a sub-agent or a tool call always branches off, even as the last child
                column = _free_lane(lanes, start=parent_lane + 1)
                fork_from = parent_lane
        cells = _draw(lanes, column, fork_from, DASHED if item.spawned else SOLID,
                      closes=fork_from is not None and parent not in lane_of)
        rows.append(LaneRow(item.id, column, cells))
        widest = max(widest, len(lanes))
        if fork_from is not None and parent not in lane_of:
            lanes[fork_from] = None
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


def _draw(lanes: list[str | None], column: int, fork_from: int | None, line: str, closes: bool) -> str:
    cells = [" "] * (2 * len(lanes))
    for index, carried in enumerate(lanes):
        if carried is not None:
            cells[2 * index] = PIPE
    if fork_from is not None:
        cells[2 * fork_from] = CORNER if closes else FORK
        for at in range(2 * fork_from + 1, 2 * column):
            cells[at] = CROSS if at % 2 == 0 and cells[at] == PIPE else line
    cells[2 * column] = NODE
    return "".join(cells).rstrip()


def render_graph(layout_: GraphLayout, glyphs: Mapping[str, str]) -> list[str]:
    """Plain-string rows (glyph per node id from `glyphs`, default `NODE`), for tests and logs."""
    return [row.render(glyphs.get(row.id, NODE)) for row in layout_.rows]
