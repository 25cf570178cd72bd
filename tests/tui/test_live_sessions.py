"""Live updates on the Sessions and Core screens: a turn appended by another process, and a
topic edit made elsewhere, appear in the open app without a reload."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.core.screen import CoreScreen
from scriptorium.tui.sessions.model import list_sessions

from .topics_support import Probe, settle_until

pytestmark = pytest.mark.anyio


async def test_an_appended_turn_appears_in_the_session_list(make_app, settle, demo_state: Path) -> None:
    store = SessionStore(demo_state)
    sid = store.session_ids()[0]
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle_until(pilot, settle, lambda: app.live.running and app.session_listing is not None)
        before = app.session_listing.row(sid).pending_turns
        probe = Probe()
        app.live.subscribe(probe)
        store.append(sid, "user", "a question typed in another terminal while the app is open")
        await probe.until(lambda m: sid in m.sessions)
        expected = list_sessions(demo_state).row(sid).pending_turns
        assert expected == before + 1
        await settle_until(pilot, settle, lambda: app.session_listing.row(sid).pending_turns == expected, rounds=200)


async def test_a_core_edit_elsewhere_appears_on_the_core_screen(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await app.switch_mode("core")
        await settle_until(pilot, settle, lambda: isinstance(app.screen, CoreScreen) and app.live.running)
        workspace = Workspace(demo_state)
        text = workspace.read_topic("core.md")
        marker = "Deploy freezes start at 16:00 on Thursdays."
        assert save_topic(workspace, "core.md", text.rstrip("\n") + f"\n\n{marker}\n").outcome == "installed"
        await settle_until(pilot, settle, lambda: marker in (app.screen.view.canonical if app.screen.view else ""),
                           rounds=200)
