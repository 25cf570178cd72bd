"""Snapshots (SVG, in snapshots/test_snapshots/): update with `pytest --snapshot-update tests/tui`."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.tui.sessions.branch_list import BranchList

from .helpers import open_session


def test_empty_state(snap_compare, make_app, settle, terminal_size, tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a relative state path, so the SVG does not show tmp_path
    assert snap_compare(make_app(Path("state")), terminal_size=terminal_size, run_before=settle)


async def _select_retry_branch(pilot, settle) -> None:
    await settle(pilot)
    screen = await open_session(pilot, settle, "demo-build-cache")
    branches = screen.query_one(BranchList)
    branches.focus()
    await pilot.press("down", "down")
    await settle(pilot)


@pytest.mark.parametrize("theme", ["scriptorium-dark", "scriptorium-light"])
def test_sessions_on_the_demo_with_a_branch_selected(snap_compare, make_app, settle, terminal_size,
                                                     demo_state: Path, theme: str) -> None:
    app = make_app(demo_state)
    app.theme = theme
    assert snap_compare(app, terminal_size=terminal_size, run_before=lambda pilot: _select_retry_branch(pilot, settle))


def test_help_screen(snap_compare, make_app, settle, terminal_size, demo_state: Path) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(make_app(demo_state), terminal_size=terminal_size, run_before=run_before)


def test_import_dialog(snap_compare, make_app, settle, terminal_size, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "claude")  # relative: the SVG does not show tmp_path
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "nowhere/pi")
    monkeypatch.setenv("CODEX_HOME", "nowhere/codex")

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)

    assert snap_compare(make_app(Path("state")), terminal_size=terminal_size, run_before=run_before)


def test_sessions_at_80x24(snap_compare, make_app, settle, demo_state: Path) -> None:
    test_sessions_on_the_demo_with_a_branch_selected(snap_compare, make_app, settle, (80, 24), demo_state,
                                                     "scriptorium-dark")


def test_help_screen_at_80x24(snap_compare, make_app, settle, demo_state: Path) -> None:
    test_help_screen(snap_compare, make_app, settle, (80, 24), demo_state)
