"""The Core screen: meter, canonical / rendered / effective side by side, left-out blocks, inject toggle."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scriptorium.core.config import load_config
from scriptorium.core.memory import Workspace
from scriptorium.core.tokens import count_tokens
from scriptorium.tui.core.screen import CoreScreen

from .helpers import screen_lines

pytestmark = pytest.mark.anyio


def test_core_screen_with_an_overflowing_canonical_core(snap_compare, make_app, settle, terminal_size,
                                                        overflowing_core_state: Path) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)

    assert snap_compare(make_app(overflowing_core_state), terminal_size=terminal_size, run_before=run_before)


async def test_the_screen_shows_the_engines_figures_and_every_left_out_block(
        make_app, settle, overflowing_core_state: Path) -> None:
    status = Workspace(overflowing_core_state).core_status()
    assert status.canonical_tokens > status.budget and status.omitted_blocks
    app = make_app(overflowing_core_state)
    async with app.run_test(size=(140, 60)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CoreScreen) and screen.view is not None
        assert screen.view.status.rendered_tokens == status.rendered_tokens <= status.budget
        assert [item.block_id for item in screen.view.left_out] == status.omitted_blocks
        text = "\n".join(screen_lines(app))
        assert f"{status.rendered_tokens:,} / {status.budget:,} tokens" in text
        assert f"{status.canonical_tokens:,} tokens" in text
        assert f"{len(status.omitted_blocks)} blocks left out" in text
        first = screen.view.left_out[0]
        assert first.first_words and first.first_words.split()[0] in text


async def test_injection_can_be_turned_off_and_on_again(make_app, settle, overflowing_core_state: Path) -> None:
    app = make_app(overflowing_core_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        assert screen.view.status.inject and screen.view.effective.startswith("<memory-context>")
        await pilot.press("i")
        await settle(pilot)
        assert load_config(overflowing_core_state).get("core.inject") is False
        assert not screen.view.status.inject and screen.view.effective == "" and screen.view.status.effective_tokens == 0
        assert any("nothing is injected" in line for line in screen_lines(app))
        await pilot.press("i")
        await settle(pilot)
        assert load_config(overflowing_core_state).get("core.inject") is True
        assert screen.view.effective.startswith("<memory-context>")


async def test_a_state_without_memory_says_so(make_app, settle, tmp_path: Path) -> None:
    app = make_app(tmp_path / "fresh")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert any("No canonical core yet" in line for line in screen_lines(app))
    assert not (tmp_path / "fresh" / "memory").exists()  # looking creates nothing


def test_core_screen_at_80x24(snap_compare, make_app, settle, overflowing_core_state: Path) -> None:
    test_core_screen_with_an_overflowing_canonical_core(snap_compare, make_app, settle, (80, 24),
                                                        overflowing_core_state)



def _session_start_hook(state: Path) -> str:
    """What Claude Code gets from `scriptorium hook claude-code session-start`, run as it runs it."""
    payload = (Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude-code.session-start.json")
    done = subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "hook", "claude-code",
                           "session-start"], input=payload.read_bytes(), capture_output=True, timeout=120, check=True)
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


async def test_the_injection_shown_is_what_the_session_start_hook_sends(make_app, settle,
                                                                         overflowing_core_state: Path) -> None:
    """Not the reference runtime's "[System note: …]" framing: the agents' hooks fence the core
    with their own wording, without footnotes or block ids; the screen shows that very text, and
    its tokens against the budget. Fails on the old screen (it showed the runtime's framing)."""
    sent = _session_start_hook(overflowing_core_state)
    assert sent.startswith("<memory-context>")
    app = make_app(overflowing_core_state)
    async with app.run_test(size=(140, 60)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        view = app.screen.view
        assert view.effective == sent and view.effective_tokens == count_tokens(sent)
        text = "\n".join(screen_lines(app))
        assert "Injected at session start" in text and "System note" not in text
        assert "injected   " in text and f"{view.effective_tokens:,} / {view.status.budget:,} tokens" in text
        assert f"agents get {view.effective_tokens:,} tokens at session start" in text
