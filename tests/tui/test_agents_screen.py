"""The Agents screen: the doctor's facts, the last injection and recalls per agent, install /
uninstall behind a confirmation that shows the configuration diff."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scriptorium.core.agents import hook_log
from scriptorium.core.agents.hook_log import HookCall
from scriptorium.core.cli import main
from scriptorium.core.memory import Workspace
from scriptorium.tui.agents.dialogs import ConfirmChange
from scriptorium.tui.agents.screen import AgentsScreen


from .helpers import screen_lines

pytestmark = pytest.mark.anyio


@pytest.fixture
def agents_state(built_demo: Path, tmp_path: Path, monkeypatch, fixed_now: float) -> Path:
    """The demo state at `./state`, Claude Code installed in a private $HOME, a few hook calls."""
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "SCRIPTORIUM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(built_demo, tmp_path / "state", symlinks=True)
    state = Path("state")
    (state / ".scriptorium-demo").unlink()  # the demo's content, as a state of the user's own (install refuses a demo)
    assert main(["--state", str(state), "install", "claude-code"]) == 0
    injection = Workspace(state).core_injection()
    hook_log.append(state, HookCall(agent="claude-code", event="session-start", outcome="ok", session_id="s1", ms=6.0,
                                    time=fixed_now - 900, detail={"injected": "injected", "tokens": 421,
                                                                  "text": injection, "blocks": 3}))
    hook_log.append(state, HookCall(agent="claude-code", event="user-prompt-submit", outcome="ok", session_id="s1",
                                    ms=31.0, time=fixed_now - 600,
                                    detail={"recall": "recalled", "hits": [
                                        {"block_id": "d26ce202", "path": "topics/vpn.md", "score": 6.42},
                                        {"block_id": "51e19cdc", "path": "topics/core.md", "score": 2.5}]}))
    hook_log.append(state, HookCall(agent="claude-code", event="stop", outcome="error", session_id="s1",
                                    time=fixed_now - 300, error="transcript not found: /work/s1.jsonl"))
    hook_log.append(state, HookCall(agent="codex", event="session-start", outcome="skipped", session_id="c1",
                                    time=fixed_now - 120, detail={"injected": "off", "blocks": 0}))
    return state


async def _open(pilot, settle) -> AgentsScreen:
    await settle(pilot)
    await pilot.press("9")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AgentsScreen) and screen.view is not None
    return screen


def test_agents_screen_snapshot(snap_compare, make_app, settle, terminal_size, agents_state: Path) -> None:
    async def run_before(pilot) -> None:
        await _open(pilot, settle)

    assert snap_compare(make_app(agents_state), terminal_size=terminal_size, run_before=run_before)


async def test_the_screen_shows_installs_last_calls_injection_and_recalls(make_app, settle, agents_state: Path):
    app = make_app(agents_state)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(pilot, settle)
        text = "\n".join(screen_lines(app))
        assert "✗ 1 problem" in text and "the last stop hook failed: transcript not found" in text
        rows = {line.split()[1]: line for line in screen_lines(app) if line.startswith("│ ") and "·" in line}
        assert "yes (user)" in rows["claude-code"] and "error · 5 min" in rows["claude-code"]
        assert "skipped · 2 min" in rows["codex"]
        assert "Last session start · claude-code · 2026-01-01 11:45 · 421 tokens" in text
        assert "<memory-context>" in text  # the injected text itself
        assert "^d26ce202" in text and "topics/vpn.md" in text and "2 hits" in text
        assert "~/.claude/settings.json, ~/.claude.json" in text

        await pilot.press("down")  # codex: its own (empty) injection and no recalls
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "Nothing injected (off)." in text and "No recall from codex yet" in text


async def test_install_and_uninstall_ask_first_and_show_the_diff(make_app, settle, agents_state: Path, tmp_path):
    codex = tmp_path / "home" / ".codex"
    app = make_app(agents_state)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(pilot, settle)
        await pilot.press("down", "i")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmChange) and "Install codex (user)?" in dialog.title_text
        assert "[mcp_servers.scriptorium]" in dialog.diff and '"SessionStart"' in dialog.diff
        await pilot.press("escape")  # cancel: nothing is written
        await settle(pilot)
        assert app.screen is screen and not codex.exists()

        await pilot.press("i")
        await settle(pilot)
        await pilot.press("enter")  # Install has the focus
        await settle(pilot)
        assert (codex / "hooks.json").is_file() and (codex / "config.toml").is_file()
        assert screen.view.report.agents[1].installed

        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmChange) and "-[mcp_servers.scriptorium]" in app.screen.diff
        await pilot.press("enter")
        await settle(pilot)
        assert not codex.exists() and not screen.view.report.agents[1].installed


async def test_the_project_scope_and_the_palette(make_app, settle, agents_state: Path):
    app = make_app(agents_state)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(pilot, settle)
        await pilot.press("p")
        await settle(pilot)
        assert screen.scope == "project"
        rows = [line for line in screen_lines(app) if line.startswith("│ claude-code")]
        assert rows and " no " in rows[0]  # installed for the user, not in this project
        titles = {command.title for command in app.get_system_commands(screen)}
        assert "Agents screen" in titles and "Install" in titles and "Uninstall" in titles
        assert ("agents", "Agents") in app.screen_titles()


def test_agents_screen_at_80x24(snap_compare, make_app, settle, agents_state: Path) -> None:
    test_agents_screen_snapshot(snap_compare, make_app, settle, (80, 24), agents_state)


async def test_installing_from_the_demo_state_asks_and_says_what_it_wires(make_app, settle, agents_state: Path,
                                                                          tmp_path: Path):
    """From the demo, install asks (saying it is the demo state, what would flow where, and the
    files with their diff) instead of only refusing; confirming installs anyway (issue 27)."""
    (agents_state / ".scriptorium-demo").write_text("demo\n", encoding="utf-8")  # the demo, as `scriptorium demo` marks it
    codex = tmp_path / "home" / ".codex"
    app = make_app(agents_state)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(pilot, settle)
        await pilot.press("down", "i")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmChange), "install from the demo state must ask, not only refuse"
        assert dialog.title_text == "Install codex (user) into the demo state?" and dialog.confirm == "Install anyway"
        assert "This is the demo state (./state)" in dialog.note and "real sessions" in dialog.note
        assert "~/.codex/hooks.json" in dialog.note and str(agents_state.absolute()) in dialog.diff
        assert "demo state" in "\n".join(screen_lines(app))
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and not codex.exists()

        await pilot.press("i")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert (codex / "hooks.json").is_file() and str(agents_state.absolute()) in (codex / "hooks.json").read_text()
        assert screen.view.report.agents[1].installed
