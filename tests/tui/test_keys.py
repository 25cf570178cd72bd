"""Keys as in lazygit or k9s: number keys, q, ? and Esc from every screen; an input gives
them up with Esc or ↓ and / returns to it; ? puts the current screen first; every screen's
actions are in the command palette; `w` acts on the turn under the cursor."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import Input

from scriptorium.core.sessions.marker import pending_branches, workspace_id
from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.app import SCREENS
from scriptorium.tui.common.help import HelpScreen, help_content
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.detail_pane import DetailPane

from .helpers import open_session

pytestmark = pytest.mark.anyio

MODES = [mode for mode, _, _ in SCREENS]


async def test_number_keys_switch_from_every_screen(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for index, here in enumerate(MODES):  # each screen hands a number key on (9 -> 1 closes the round)
            assert app.current_mode == here
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen), f"? on {here}"
            await pilot.press("escape")
            number = (index + 1) % len(MODES) + 1
            await pilot.press(str(number))
            await settle(pilot)
            assert app.current_mode == MODES[number - 1], f"{number} from {here}"


async def test_an_input_gives_the_keys_up_with_escape_or_down(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        query = app.screen.query_one("#query", Input)
        assert not query.has_focus  # arriving does not take the keys
        await pilot.press("slash", "c", "i", "5", "q")
        await settle(pilot)
        assert query.has_focus and query.value == "ci5q"  # typed, not obeyed
        assert app.current_mode == "search"
        await pilot.press("escape")
        assert not query.has_focus
        await pilot.press("slash", "down")
        assert not query.has_focus
        await pilot.press("5")
        await settle(pilot)
        assert app.current_mode == "sleep"
        await pilot.press("7")  # the Project screen's directory input does not take the keys either
        await settle(pilot)
        assert app.current_mode == "project"
        await pilot.press("slash")
        assert isinstance(app.focused, Input) and app.focused.id == "project-dir"
        await pilot.press("escape", "q")
        await settle(pilot)
    assert app.return_code == 0 and not app.is_running


async def test_help_shows_the_current_screens_keys_first(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("5", "question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_content(help_screen.screens).plain
        first = text.split("\n\n")[1].splitlines()
        assert first[0] == "Sleep — this screen"
        assert any("Preview" in line for line in first) and any("Sleep now" in line for line in first)
        assert "1 … 9" in text and "1 … 7" not in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_every_action_of_every_screen_is_in_the_palette(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for here, here_title, _ in SCREENS:
            await app.switch_mode(here)
            await settle(pilot)
            titles = {command.title for command in app.get_system_commands(app.screen)}
            for mode, title, factory in SCREENS:
                for binding in factory().BINDINGS:
                    if isinstance(binding, Binding) and binding.show and binding.description:
                        wanted = binding.description if mode == here else f"{title}: {binding.description}"
                        assert wanted in titles, f"{wanted!r} missing on {here_title}"


async def test_a_palette_action_of_another_screen_runs_there(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        command = next(c for c in app.get_system_commands(app.screen) if c.title == "Sleep: Preview")
        await command.callback()
        await settle(pilot)
        assert app.current_mode == "sleep"
        assert app.screen.result is not None and app.screen.result.code == "PREVIEW"  # it ran there


async def test_w_writes_the_branch_of_the_turn_under_the_cursor(make_app, settle, demo_state: Path) -> None:
    store = SessionStore(demo_state)
    wid = workspace_id(demo_state)
    before = {b.tip: len(b.turns) for b in pending_branches(store, "demo-checkout", wid)}
    head = store.head("demo-checkout")
    side = next(tip for tip in before if tip != head)
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, "demo-checkout")
        graph = screen.query_one(BranchGraph)
        graph.focus()
        graph.move_to(side)  # a sub-agent's turn: on the side branch, not on the head's
        await settle(pilot)
        assert f"w writes the branch ending at {side}" in screen.query_one(DetailPane).plain
        await pilot.press("w")
        await settle(pilot)
    after = {b.tip: len(b.turns) for b in pending_branches(store, "demo-checkout", wid)}
    assert after.get(side, 0) == 0
    assert after[head] == before[head]  # the head was not written
