"""The branch graph's lane layout (`scriptorium.core.sessions.graph_layout`), checked as plain strings."""

from __future__ import annotations

import random

from scriptorium.core.sessions.graph_layout import NODE, GraphItem, display_order, layout, render_graph


def draw(items: list[GraphItem], trunk: set[str] | None = None) -> list[str]:
    """Rows as `<lanes> <id>`, the node glyph left as the placeholder."""
    result = layout(display_order(items, trunk or set()))
    width = 2 * result.lanes
    return [f"{line.ljust(width)} {row.id}".rstrip() for line, row in zip(render_graph(result, {}), result.rows)]


def chain(*ids: str, start: str | None = None) -> list[GraphItem]:
    out, parent = [], start
    for node_id in ids:
        out.append(GraphItem(node_id, parent))
        parent = node_id
    return out


def test_a_straight_session_is_one_lane() -> None:
    assert draw(chain("m1", "m2", "m3")) == ["*  m1", "*  m2", "*  m3"]


def test_a_fork_branches_right_and_the_latest_line_continues_below_it() -> None:
    # No head given: the re-ask a1..a2 (the newest activity) keeps m2's lane.
    items = chain("m1", "m2", "m3", "m4") + chain("a1", "a2", start="m2")
    assert draw(items) == [
        "*    m1",
        "*    m2",
        "├─*  m3",
        "│ *  m4",
        "*    a1",
        "*    a2",
    ]


def test_the_heads_line_is_the_trunk() -> None:
    items = chain("m1", "m2", "m3", "m4") + chain("a1", "a2", start="m2")
    assert draw(items, trunk={"m1", "m2", "m3", "m4"}) == [
        "*    m1",
        "*    m2",
        "├─*  a1",
        "│ *  a2",
        "*    m3",
        "*    m4",
    ]


def test_nested_forks_use_one_lane_per_level() -> None:
    items = chain("m1", "m2", "m3") + chain("a1", "a2", start="m1") + chain("b1", start="a1")
    assert draw(items, trunk={"m1", "m2", "m3"}) == [
        "*      m1",
        "├─*    a1",
        "│ ├─*  a2",
        "│ *    b1",
        "*      m2",
        "*      m3",
    ]


def test_three_children_reuse_the_freed_lane() -> None:
    items = chain("m1", "m2") + [GraphItem("x", "m1"), GraphItem("y", "m1")]
    assert draw(items, trunk={"m2"}) == [
        "*    m1",
        "├─*  x",
        "├─*  y",
        "*    m2",
    ]


def test_a_spawned_sub_agent_is_always_a_dashed_side_branch() -> None:
    alone = chain("m1", "m2") + [GraphItem("s1", "m2", spawned=True), GraphItem("s2", "s1")]
    assert draw(alone) == [
        "*    m1",
        "*    m2",
        "╰┄*  s1",
        "  *  s2",
    ]
    # Spawned before the conversation went on: still the side branch, the line continues.
    beside = chain("m1", "m2") + [GraphItem("s1", "m2", spawned=True)] + chain("m3", start="m2")
    assert draw(beside) == [
        "*    m1",
        "*    m2",
        "├┄*  s1",
        "*    m3",
    ]


def test_a_tool_call_after_the_head_hangs_off_it_with_its_connector() -> None:
    """Issue 15: the head's last tool call was drawn straight below it, like a next turn."""
    last = chain("m1", "m2") + [GraphItem("t1", "m2", hangs=True)]
    assert draw(last, trunk={"m1", "m2"}) == [
        "*    m1",
        "*    m2",
        "╰─*  t1",
    ]
    mid = chain("m1", "m2") + [GraphItem("t1", "m2", hangs=True)] + chain("m3", start="m2")
    assert draw(mid) == [
        "*    m1",
        "*    m2",
        "├─*  t1",
        "*    m3",
    ]


def test_rewound_and_summary_children_stay_off_the_line() -> None:
    items = chain("m1", "m2", "x1", "x2") + [GraphItem("sum", "m1", side=True), GraphItem("m3", "m2", side=True)]
    assert draw(items) == [
        "*    m1",
        "├─*  sum",
        "*    m2",
        "├─*  m3",
        "*    x1",
        "*    x2",
    ]


def test_any_parent_first_order_is_drawn_with_crossings_where_lanes_cross() -> None:
    # Creation order, not display order: b branches from r across a's open lane.
    items = [GraphItem("r", None), GraphItem("a", "r"), GraphItem("b", "r"), GraphItem("a2", "a"),
             GraphItem("c", "r")]
    result = layout(items)
    assert [f"{line} {row.id}" for line, row in zip(render_graph(result, {}), result.rows)] == [
        "* r",
        "├─* a",
        "├─┼─* b",
        "│ * a2",
        "* c",
    ]


def test_unknown_parents_and_cycles_never_lose_a_node() -> None:
    items = [GraphItem("a", "b"), GraphItem("b", "a"), GraphItem("c", "missing"), GraphItem("d", "d")]
    ordered = display_order(items)
    assert sorted(i.id for i in ordered) == ["a", "b", "c", "d"]
    assert len(layout(ordered).rows) == 4


def test_every_row_hangs_from_a_line_that_reaches_its_parent() -> None:
    """On random trees: the node sits in its parent's lane or branches from it on its own row,
    and the parent's lane is drawn on every row in between."""
    rng = random.Random(7)
    for _ in range(200):
        items: list[GraphItem] = []
        for n in range(rng.randint(1, 40)):
            parent = items[rng.randrange(len(items))].id if items and rng.random() < 0.95 else None
            items.append(GraphItem(f"n{n}", parent, spawned=rng.random() < 0.05))
        result = layout(display_order(items))
        rows = {row.id: (i, row) for i, row in enumerate(result.rows)}
        assert len(rows) == len(items)
        for item in items:
            index, row = rows[item.id]
            assert row.cells[2 * row.column] == NODE
            if item.parent is None:
                continue
            p_index, p_row = rows[item.parent]
            assert p_index < index
            lane = 2 * p_row.column
            for between in result.rows[p_index + 1:index]:
                assert between.cells[lane] in "│├┼╰*", (item, between)
            if row.column != p_row.column:
                assert row.cells[lane] in "├╰", (item, row)
