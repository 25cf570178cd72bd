"""Pilot tests of the Sessions screen: pending branches as the engine reports them, hostile text
shown inertly, a 10,000-turn graph, turns and branches selected from the graph."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.sessions.marker import MARK_KEY, cut_batch, pending
from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.sessions.screen import SessionsScreen
from scriptorium.tui.sessions.model import short_id
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.branch_list import BranchList
from scriptorium.tui.sessions.detail_pane import DetailPane

from .conftest import WORKSPACE, fix_workspace_id, write_openprogram_session
from .helpers import open_session, screen_lines, terminal_output

pytestmark = pytest.mark.anyio

LISTED = re.compile(r"^(▍| ) (\S{1,8})\s+(user|asst)\s+(\d+)\s")


def listed_turns(detail: DetailPane) -> tuple[list[str], list[str]]:
    """(batch ids, the other pending ids) as the branch detail lists them."""
    batch, rest = [], []
    for line in detail.plain.splitlines():
        if match := LISTED.match(line):
            (batch if match.group(1) == "▍" else rest).append(match.group(2))
    return batch, rest


async def test_each_branch_shows_exactly_the_pending_turns_and_batch_the_engine_reports(
        make_app, settle, demo_state: Path) -> None:
    threshold = 60  # small, so the writer's batch is cut inside the backlog
    set_config_value(demo_state, "writer.trigger_tokens", threshold)
    store = SessionStore(demo_state)
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        checked_cut = False
        for sid in store.session_ids():
            screen = await open_session(pilot, settle, sid)
            branches = screen.query_one(BranchList)
            branches.focus()
            await settle(pilot)
            for index, tip in enumerate(store.list_branches(sid)):
                if index:
                    await pilot.press("down")
                    await settle(pilot)
                assert screen.query_one(BranchGraph).selected_tip == tip
                owed = pending(store, sid, tip, WORKSPACE)
                batch = cut_batch(owed, threshold)
                shown_batch, shown_rest = listed_turns(screen.query_one(DetailPane))
                assert shown_batch == [short_id(t.id) for t in batch], (sid, tip)
                assert shown_rest == [short_id(t.id) for t in owed[len(batch):]], (sid, tip)
                checked_cut |= bool(shown_rest)
        assert checked_cut  # at least one branch had a batch cut before its end


async def test_the_graph_marks_written_pending_foreign_rewound_and_unrecorded_turns(
        make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        states = {}
        for sid in SessionStore(demo_state).session_ids():
            screen = await open_session(pilot, settle, sid)
            states.update({row.id: row.state for row in screen.graph.rows})
            if sid == "demo-deploy-window":
                graph_text = "\n".join(screen_lines(app))
                assert "◌" in graph_text and "written by w-1c0ffee2" in graph_text
        assert {"written", "pending", "elsewhere", "rewound", "unrecorded"} == set(states.values())


async def test_selecting_a_turn_shows_its_full_text_and_enter_selects_its_branch(
        make_app, settle, demo_state: Path) -> None:
    store = SessionStore(demo_state)
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, "demo-build-cache")
        graph = screen.query_one(BranchGraph)
        graph.focus()
        await pilot.press("home", "down")
        await settle(pilot)
        first_turn = graph.current_row.id
        node = store.node("demo-build-cache", first_turn)
        detail = screen.query_one(DetailPane).plain
        assert first_turn in detail and node.text in detail
        retry_tip = next(t for t in store.list_branches("demo-build-cache") if len(pending(store, "demo-build-cache", t, WORKSPACE)) == 1)
        graph.move_to(retry_tip)
        await pilot.press("enter")
        await settle(pilot)
        assert graph.selected_tip == retry_tip
        assert screen.query_one(BranchList).highlighted_tip == retry_tip


async def test_hostile_text_is_displayed_inertly(make_app, settle, tmp_path: Path) -> None:
    """Markup, ESC/CSI sequences and bidi overrides in a title, a turn, an id and metadata
    (all as a session file on disk may hold them) reach the screen as visible, inert text."""
    hostile = "click [@click=app.quit]x[/] then \x1b[2J clear, \x9b2J csi, \u202eevil\u202c bidi"
    state = tmp_path / "state"
    write_openprogram_session(state, "hostile", [
        {"id": "u1", "text": "hello"},
        {"id": "a\x1b[2Jb", "role": "llm", "text": hostile, "predecessor": "u1",
         "metadata": {"[@click=app.quit]k[/]": "\x1b]0;pwned\x07 \u2066isolate"}},
    ], title="[@click=app.quit]title[/] \x1b]0;pwned\x07", head="a\x1b[2Jb")
    app = make_app(state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one(BranchGraph).focus()  # the head (the hostile turn) is under the cursor
        await settle(pilot)
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert "[@click=app.quit]x[/]" in text  # markup shown as written
        assert "[@click=app.quit]title[/]" in text and "[@click=app.quit]k[/]" in text
        assert "␛[2J" in text and "⟨9B⟩2J" in text and "a␛[2Jb" in text and "␛]0;pwned␇" in text
        output = terminal_output(app)
        for dangerous in ("\x1b[2J", "\x9b", "\u202e", "\u202c", "\u2066", "\x1b]0;", "\x07"):
            assert dangerous not in output
        row = next(y for y, line in enumerate(lines) if "[@click=app.quit]x[/]" in line)
        await pilot.click(offset=(lines[row].index("[@click") + len("[@click=app.quit]"), row))
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, SessionsScreen)


async def test_an_old_sessions_date_is_shown_whole_and_the_title_gives_way(make_app, settle, tmp_path: Path) -> None:
    """Many imported sessions (a scrollbar) from long ago (dates, not "3 h"), wide backlogs."""
    import re

    state = tmp_path / "state"
    for n in range(40):
        turns = [{"id": f"t{i}", "text": "the cache sizing question again " * 40,
                  "predecessor": f"t{i - 1}" if i else "ROOT"} for i in range(12)]  # "12 · 2.4k"
        write_openprogram_session(state, f"old{n}", turns, head="t11",
                                  title=f"Imported session {n} from long ago, with a long descriptive title")
    app = make_app(state)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        rows = [line.split("│")[1] for line in screen_lines(app) if line.startswith("│") and "Imported" in line]
        assert len(rows) > 5 and all(re.search(r"\b\d{4}-\d\d-\d\d\b", row) for row in rows)
        assert all("…" in row for row in rows)  # the title is the column that gives way


async def test_a_10000_turn_session_opens_and_scrolls_to_the_end(make_app, settle, tmp_path: Path) -> None:
    """A long-lived session as OpenProgram leaves it: written up to a 20-turn backlog, a re-ask
    every thousand turns (each leaving an abandoned branch of 250 turns)."""
    state = tmp_path / "state"
    turns, previous = [], "ROOT"
    for i in range(10_000):
        node_id = f"t{i:05d}"
        predecessor = previous if i % 1000 != 500 else f"t{i - 250:05d}"
        turns.append({"id": node_id, "role": "user" if i % 2 == 0 else "llm", "text": f"turn {i} " + "words " * 12,
                      "predecessor": predecessor, "metadata": {MARK_KEY: WORKSPACE} if i < 9_980 else {}})
        previous = node_id
    write_openprogram_session(state, "long", turns, title="A very long session", head=previous)
    fix_workspace_id(state)
    app = make_app(state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        graph = screen.query_one(BranchGraph)
        assert screen.graph is not None and len(screen.graph.rows) == 10_001
        assert len(screen.graph.branches) == 11 and len(screen.graph.branches[0].pending) == 20
        graph.focus()
        await pilot.press("end")
        await settle(pilot)
        last = screen.graph.rows[-1]
        assert graph.cursor == 10_000
        assert graph.scroll_y == graph.max_scroll_y > 0
        assert any(last.id[:8] in line for line in screen_lines(app))
        assert last.id in screen.query_one(DetailPane).plain
        await pilot.press("pageup", "home")
        await settle(pilot)
        assert graph.cursor == 0 and graph.scroll_y == 0


async def test_an_unreadable_session_is_flagged_and_the_others_still_open(make_app, settle,
                                                                          demo_state: Path) -> None:
    broken = next((demo_state / "sessions" / "demo-onboarding" / "history").glob("0002-*.json"))
    replacement = broken.with_suffix(".tmp")  # replaced the way every writer replaces a node file
    replacement.write_text("{ not json", encoding="utf-8")
    os.replace(replacement, broken)
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        lines = screen_lines(app)
        flagged = next(line for line in lines if "demo-onboarding" in line)
        assert "!" in flagged and "unreadable" in flagged
        screen = await open_session(pilot, settle, "demo-build-cache")
        assert screen.graph.branches


async def test_a_corrupt_workspace_id_is_reported_not_fatal(make_app, settle, demo_state: Path) -> None:
    (demo_state / "memory" / ".scriptorium" / "workspace-id").write_text("garbage\n", encoding="ascii")
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.is_running
        text = "\n".join(screen_lines(app))
        assert "The sessions cannot be read" in text and "corrupt workspace id" in text
