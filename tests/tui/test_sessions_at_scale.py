"""The Sessions screen at the edges (issue 20, items 4 and 5): a session of 2,000 branches,
and a 1 MB turn. How fast is bench/edges.py's; here, what the screen shows and that it
reads only what it draws."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import mark_written, pending
from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.branch_list import BranchList
from scriptorium.tui.sessions.detail_pane import DetailPane
from scriptorium.tui.sessions.model import list_sessions, load_graph
from scriptorium.tui.sessions.screen import SessionsScreen
from scriptorium.tui.sessions.turn_viewer import TurnViewer

from .conftest import WORKSPACE, fix_workspace_id, write_openprogram_session
from .helpers import screen_lines

pytestmark = pytest.mark.anyio

LINE = 2_000


def many_branches(state: Path) -> str:
    """A 2,000-turn line with 1,999 retries forking off it at random turns (bench/edges.py's shape)."""
    turns = [{"id": f"m{i:04d}", "role": "user" if i % 2 == 0 else "llm", "text": f"main turn {i}",
              **({"predecessor": f"m{i - 1:04d}"} if i else {})} for i in range(LINE)]
    rng = random.Random(3)
    turns += [{"id": f"r{b:04d}", "role": "llm", "text": f"retry number {b}",
               "predecessor": f"m{rng.randrange(LINE - 1):04d}"} for b in range(LINE - 1)]
    write_openprogram_session(state, "wide", turns, title="two thousand branches", head=f"m{LINE - 1:04d}")
    return "wide"


async def test_a_session_of_2000_branches_lists_every_branch_and_reads_only_the_rows_on_screen(
        make_app, settle, tmp_path: Path) -> None:
    state = tmp_path / "state"
    sid = many_branches(state)
    store = SessionStore(state)
    tips = store.list_branches(sid)
    assert len(tips) == LINE
    async with make_app(state).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SessionsScreen) and screen.graph is not None
        branches = screen.query_one(BranchList)
        assert branches.option_count == LINE
        assert [b.tip for b in branches.branches] == tips  # the head's first, then newest first
        # Drawing the list and the graph read the node files of the rows on screen, not 4,000.
        assert screen.graph.node.cache_info().misses < 300
        branches.focus()
        await pilot.press("end")
        await settle(pilot)
        assert branches.highlighted_tip == tips[-1]
        assert screen.query_one(BranchGraph).selected_tip == tips[-1]
        assert str(branches.prompt(tips[-1])).endswith("retry number 0")
        assert any("retry number 0" in line for line in screen_lines(pilot.app))  # scrolled to, and drawn

        graph = screen.query_one(BranchGraph)
        graph.focus()
        await pilot.press("home")
        await settle(pilot)
        assert any("main turn 0" in line for line in screen_lines(pilot.app))
        for _ in range(3):
            await pilot.press("pagedown")
        await settle(pilot)
        shown = "\n".join(screen_lines(pilot.app))
        row = graph.current_row
        assert row is not None and graph.cursor > 3 * 20
        assert row.id[:8] in shown and "main turn 0 " not in shown  # later rows, drawn on demand
        await pilot.press("enter")  # the branches through that turn: found below it, not by walking every tip
        await settle(pilot)
        assert graph.selected_tip is not None
        assert row.id in {e.id for e in store.walk_ids(sid, graph.selected_tip)}


def huge_session(state: Path) -> str:
    """A question, then a 1 MB answer of short lines (the worst case for laying text out), and a
    tool call whose input is 1 MB."""
    answer = "\n".join(f"log line {i}" for i in range(70_000)) + "\nTHE END OF THE ANSWER"
    write_openprogram_session(state, "huge", [
        {"id": "q1", "text": "what does the log say?"},
        {"id": "a1", "role": "llm", "text": answer, "predecessor": "q1"},
        {"id": "t1", "role": "code", "name": "Write", "text": "written", "predecessor": None, "caller": "a1",
         "input": {"path": "big.txt", "content": "x" * 1_000_000 + " END OF THE INPUT"}},
    ], title="a huge turn", head="a1")
    return "huge"


async def test_a_1mb_turn_shows_a_bounded_preview_and_o_opens_the_whole_of_it(
        make_app, settle, tmp_path: Path) -> None:
    state = tmp_path / "state"
    sid = huge_session(state)
    async with make_app(state).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SessionsScreen) and screen.graph is not None and screen.graph.session_id == sid
        graph = screen.query_one(BranchGraph)
        graph.focus()
        graph.move_to("a1")
        await settle(pilot)
        detail = screen.query_one(DetailPane).plain
        assert "log line 0" in detail and "THE END OF THE ANSWER" not in detail
        assert len(detail) < 25_000
        assert "press o to open the whole turn (1.0 MB)" in " ".join(detail.split())

        await pilot.press("o")
        await settle(pilot)
        viewer = pilot.app.screen
        assert isinstance(viewer, TurnViewer)
        assert "a1" in screen_lines(pilot.app)[0] and "1.0 MB" in screen_lines(pilot.app)[0]
        assert any("log line 0" in line for line in screen_lines(pilot.app))
        await pilot.press("end")
        await settle(pilot)
        assert any("THE END OF THE ANSWER" in line for line in screen_lines(pilot.app))
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen

        assert screen.graph.entry("t1").kind == "tool"
        graph.move_to("t1")
        await settle(pilot)
        detail = screen.query_one(DetailPane).plain
        assert "Write" in detail and "END OF THE INPUT" not in detail and len(detail) < 25_000
        await pilot.press("o")
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        assert any("END OF THE INPUT" in line for line in screen_lines(pilot.app))


async def test_o_is_offered_only_while_the_detail_pane_shows_a_turn(make_app, settle, demo_state: Path) -> None:
    async with make_app(demo_state).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SessionsScreen)
        screen.query_one(BranchList).focus()
        await settle(pilot)
        assert screen.detail_turn is None and not screen.check_action("open_turn", ())
        await pilot.press("o")
        await settle(pilot)
        assert pilot.app.screen is screen  # nothing to open
        screen.query_one(BranchGraph).focus()
        await settle(pilot)
        assert screen.detail_turn is not None and screen.check_action("open_turn", ())
        assert any("o Whole turn" in line for line in screen_lines(pilot.app))


def test_the_list_and_the_graph_count_each_pending_turn_once_as_the_engine_walks_each_branch(tmp_path: Path) -> None:
    """Backlogs of many branches sharing prefixes, with marks partway along some of them: the
    list's and the header's totals are the union of what `pending` gives every branch."""
    state = tmp_path / "state"
    fix_workspace_id(state)
    store = SessionStore(state)
    sid = store.create_session(title="forks and marks")
    rng = random.Random(7)
    with store.batch(sid, "build"):
        line = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i} " * (1 + i % 5)).id
                for i in range(300)]
        forks = []
        for b in range(120):
            at = rng.choice(line + forks)
            forks.append(store.append(sid, "assistant", f"fork {b}", predecessor=at, move_head=False).id)
        for a in range(3):  # sub-agents: branches from a spawn root, each a few turns long
            agent = store.spawn_branch(sid, f"sub-agent task {a}", caller=rng.choice(line)).id
            for t in range(4):
                agent = store.append(sid, "assistant" if t % 2 == 0 else "user", f"agent {a} step {t}",
                                     predecessor=agent, move_head=False).id
    mark_written(store, sid, rng.sample(line + forks, 60), WORKSPACE)
    owed: dict[str, int] = {}
    for tip in store.list_branches(sid):
        owed.update((t.id, t.tokens) for t in pending(store, sid, tip, WORKSPACE))
    row = list_sessions(state).row(sid)
    assert row is not None and (row.pending_turns, row.pending_tokens) == (len(owed), sum(owed.values()))
    graph = load_graph(state, sid)
    assert (graph.pending_turns, graph.pending_tokens) == (len(owed), sum(owed.values()))
    assert [b.tip for b in graph.branches] == store.list_branches(sid)
    for branch in graph.branches:
        assert branch.pending == pending(store, sid, branch.tip, WORKSPACE)
        assert branch.spawned == (not branch.is_head and store.is_spawn_branch(sid, branch.tip))
    assert sum(b.spawned for b in graph.branches) == 3


def test_the_list_keeps_the_token_counts_it_made_for_the_next_start(tmp_path: Path) -> None:
    """Pending turns are counted when first read (the tokenizer loads for it); the list saves the
    counts in the session's index, so the app's next start reads them instead of counting."""
    state = tmp_path / "state"
    write_openprogram_session(state, "fresh", [{"id": f"t{i}", "text": f"turn number {i} " * 20,
                                                **({"predecessor": f"t{i - 1}"} if i else {})}
                                               for i in range(30)], title="never counted", head="t29")
    row = list_sessions(state).row("fresh")
    assert row is not None and row.pending_turns == 30 and row.pending_tokens > 0
    entries = SessionStore(state).index("fresh").entries  # a new store: what the next process reads
    assert all(entries[f"t{i}"].tokens > 0 for i in range(30))
    assert load_graph(state, "fresh").pending_tokens == row.pending_tokens
