"""The Sessions screen's import action (`i`): choose an agent and where from, import in a
worker while the app answers, see the sessions appear and the outcome; nothing on cancel."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Button, Input, RadioButton, RadioSet

from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.sessions.import_dialog import ImportDialog
from scriptorium.tui.sessions.import_status import ImportStatus
from scriptorium.tui.sessions.session_list import SessionList

from .helpers import screen_lines


async def press(pilot, selector: str) -> None:
    pilot.app.screen.query_one(selector, Button).press()
    await pilot.pause()


async def open_dialog(pilot, settle) -> ImportDialog:
    await settle(pilot)
    await pilot.press("i")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ImportDialog)
    return pilot.app.screen

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"


@pytest.fixture()
def claude_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code config dir with one project of real transcripts (the default location)."""
    project = tmp_path / "claude" / "projects" / "-home-ada-spotter"
    project.mkdir(parents=True)
    for source in FIXTURES.glob("claude-code__*.jsonl"):
        shutil.copyfile(source, project / source.name)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "nowhere-pi"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nowhere-codex"))
    return project


async def test_import_from_the_default_location_fills_the_empty_screen(make_app, settle, tmp_path: Path,
                                                                        claude_home: Path) -> None:
    state = tmp_path / "state"
    app = make_app(state)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "No sessions yet" in "\n".join(screen_lines(app))
        dialog = await open_dialog(pilot, settle)
        assert dialog.query_one(RadioSet).pressed_button.id == "claude-code"  # the agent whose store exists
        labels = [str(button.label) for button in dialog.query(RadioButton)]
        assert labels[0].startswith("Claude Code") and str(claude_home.parent) in labels[0]
        assert [label.endswith("not found") for label in labels] == [False, True, True]  # pi, Codex: nothing here
        await press(pilot, "#import")
        await settle(pilot)
        assert not isinstance(app.screen, ImportDialog)
        store = SessionStore(state)
        assert len(store.session_ids()) == 3
        assert app.screen.query_one(SessionList).row_count == 3
        status = str(app.screen.query_one(ImportStatus).render())
        assert "3 sessions (3 new)" in status
        # importing again adds nothing and says so
        await open_dialog(pilot, settle)
        await press(pilot, "#import")
        await settle(pilot)
        assert "(0 new), 0 nodes added" in str(app.screen.query_one(ImportStatus).render())


async def test_explicit_paths_and_a_missing_one(make_app, settle, tmp_path: Path, claude_home: Path) -> None:
    state = tmp_path / "state"
    one = claude_home / "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl"
    app = make_app(state)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_dialog(pilot, settle)
        app.screen.query_one(Input).value = str(tmp_path / "no-such-dir")
        await press(pilot, "#import")
        await settle(pilot)
        assert isinstance(app.screen, ImportDialog)  # refused in place, nothing imported
        assert not (state / "sessions").exists() or not SessionStore(state).session_ids()
        app.screen.query_one(Input).value = f"'{one}'"
        app.screen.query_one(Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ImportDialog)
        assert len(SessionStore(state).session_ids()) == 1


async def test_cancel_imports_nothing(make_app, settle, tmp_path: Path, claude_home: Path) -> None:
    state = tmp_path / "state"
    app = make_app(state)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_dialog(pilot, settle)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ImportDialog)
        assert not app.screen.query_one(ImportStatus).has_class("-shown")
    assert not (state / "sessions").exists() or not SessionStore(state).session_ids()
