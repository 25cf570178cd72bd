"""The Sync screen: remote state, conflicts side by side, settled through the transaction."""

from __future__ import annotations

import subprocess
import types
from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.sync.conflicts import list_conflicts
from scriptorium.core.sync.remote import add_remote
from scriptorium.core.sync.run import sync
from scriptorium.tui.sync.screen import SyncScreen

from .helpers import screen_lines

pytestmark = pytest.mark.anyio


@pytest.fixture()
def conflicted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Machine b of two, holding one sync conflict on Ada's drink.

    The transaction's clock is fixed: a typed paragraph's evidence id carries the day it was
    saved, and so the block id the snapshot shows would change every day."""
    import scriptorium.core.memory.transaction.lifecycle as lifecycle

    monkeypatch.setattr(lifecycle, "time", types.SimpleNamespace(time=lambda: 1_796_169_600.0))
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    save_topic(Workspace.open(a), "ada.md", "# Ada\n\nAda likes tea.\n\nAda lives in Paris.\n")
    for s in (a, b):
        add_remote(Workspace.open(s).root, "origin", str(bare))
    sync(a), sync(b), sync(a)
    for s, drink in ((a, "green"), (b, "black")):
        ws = Workspace.open(s)
        save_topic(ws, "ada.md", ws.read_topic("ada.md").replace("Ada likes tea.", f"Ada likes {drink} tea."))
    sync(a)
    assert len(sync(b).conflicts) == 1
    return b


async def open_sync(app, pilot, settle) -> SyncScreen:
    await settle(pilot)
    app.switch_mode("sync")
    await settle(pilot)
    await pilot.pause(0.3)
    await settle(pilot)
    assert isinstance(app.screen, SyncScreen)
    return app.screen


async def test_a_conflict_shows_both_texts_and_keeping_the_incoming_one_settles_it(make_app, settle, conflicted):
    app = make_app(conflicted)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await open_sync(app, pilot, settle)
        text = "\n".join(screen_lines(app))
        assert "origin" in text and "Ada likes black tea." in text and "Ada likes green tea." in text
        await pilot.press("n")
        for _ in range(40):
            await pilot.pause(0.1)
            if not screen.busy and not screen.status.conflicts:
                break
        await settle(pilot)
    assert list_conflicts(conflicted) == []
    topic = Workspace(conflicted).read_topic("ada.md")
    assert "Ada likes green tea." in topic and "black tea" not in topic


async def test_without_a_remote_the_screen_says_how_to_add_one(make_app, settle, tmp_path):
    state = tmp_path / "s"
    save_topic(Workspace.open(state), "ada.md", "# Ada\n\nAda likes tea.\n")
    app = make_app(state)
    async with app.run_test(size=(150, 40)) as pilot:
        await open_sync(app, pilot, settle)
        text = "\n".join(screen_lines(app))
        assert "No remote" in text and "scriptorium remote add" in text


def _steady(status, tmp_path: Path):
    """The status as a snapshot can hold it: the remote's tmp path and the last sync's time
    (both differ on every run) replaced by fixed ones; everything else as read."""
    from dataclasses import replace

    remotes = [replace(r, url=r.url.replace(str(tmp_path), "/srv")) for r in status.remotes]
    last = dict(status.last, at="2026-05-01T12:00:00+00:00") if status.last else status.last
    return replace(status, remotes=remotes, last=last)


def test_the_sync_screen_with_a_conflict(snap_compare, make_app, settle, terminal_size, conflicted: Path,
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import scriptorium.tui.sync.screen as screen_module

    real = screen_module.load_status
    monkeypatch.setattr(screen_module, "load_status", lambda state: _steady(real(state), tmp_path))
    monkeypatch.chdir(tmp_path)  # a relative state path, so the SVG does not show tmp_path

    async def run_before(pilot) -> None:
        await open_sync(pilot.app, pilot, settle)

    assert snap_compare(make_app(Path(conflicted.name)), terminal_size=terminal_size, run_before=run_before)


async def test_a_remote_added_in_the_dialog_and_a_missing_path_refused_inline(make_app, settle, tmp_path):
    from textual.widgets import Input, Static

    from scriptorium.core.sync.remote import list_remotes
    from scriptorium.tui.sync.dialogs import AddRemoteDialog

    state = tmp_path / "s"
    save_topic(Workspace.open(state), "ada.md", "# Ada\n\nAda likes tea.\n")
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    app = make_app(state)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await open_sync(app, pilot, settle)
        await pilot.press("a")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, AddRemoteDialog)
        dialog.query_one("#remote-url", Input).value = str(tmp_path / "nowhere.git")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog  # refused: the dialog stays, saying why
        assert "does not exist" in str(dialog.query_one("#add-error", Static).content)
        dialog.query_one("#remote-url", Input).value = str(bare)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        await pilot.pause(0.3)
        await settle(pilot)
        assert "origin" in "\n".join(screen_lines(app))
    assert [(r.name, r.url) for r in list_remotes(Workspace(state).root)] == [("origin", str(bare))]


async def test_the_differing_words_are_lit_and_a_settled_conflict_is_not_called_merged(make_app, settle, conflicted):
    from scriptorium.tui.common.text_panel import TextPanel
    from textual.widgets import Static

    app = make_app(conflicted)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await open_sync(app, pilot, settle)
        local = screen.query_one("#local", TextPanel).query_one(Static).content
        lit = {local.plain[span.start:span.end] for span in local.spans if "reverse" in str(span.style)}
        assert lit == {"black"}  # the one word the machines disagree on, not the sentence
        await pilot.press("l")
        for _ in range(40):
            await pilot.pause(0.1)
            if not screen.busy and not screen.status.conflicts:
                break
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "merged by itself" not in text and "No conflict is waiting." in text


def test_the_sync_screen_at_80x24(snap_compare, make_app, settle, conflicted: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    test_the_sync_screen_with_a_conflict(snap_compare, make_app, settle, (80, 24), conflicted, tmp_path, monkeypatch)
