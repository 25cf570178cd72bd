"""Opening the app (through the CLI, as a user does) imports no model machinery, and the
chosen theme is remembered in config.toml."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scriptorium.core.config import load_config
from scriptorium.themes import DARK_NAME, LIGHT_NAME
from scriptorium.tui.app import SCREENS

pytestmark = pytest.mark.anyio

MODEL_MODULES = ("litellm", "openai", "anthropic", "google.generativeai", "transformers", "torch")


def test_opening_the_app_imports_no_model(built_demo: Path) -> None:
    """`scriptorium --state DIR` runs headless here; after both screens have loaded their data
    (the graph's batch uses the writer's threshold), no model client is in `sys.modules`."""
    script = textwrap.dedent(f"""
        import json, sys
        from scriptorium.tui.app import ScriptoriumApp

        seen = {{}}

        async def visit(pilot):
            for key in ("1", "2"):
                await pilot.press(key)
                for _ in range(50):
                    await pilot.app.workers.wait_for_complete()
                    await pilot.pause()
                    if all(w.is_finished for w in pilot.app.workers):
                        break
                screen = pilot.app.screen
                seen[key] = len(screen.graph.rows) if key == "1" else screen.view.status.rendered_tokens >= 0
            pilot.app.exit(0)

        run = ScriptoriumApp.run
        ScriptoriumApp.run = lambda self, **kw: run(self, headless=True, auto_pilot=visit, size=(120, 40))
        from scriptorium.tui.entry import main
        code = main(["--state", {str(built_demo)!r}])
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in {MODEL_MODULES!r} or m in {MODEL_MODULES!r})
        print(json.dumps({{"code": code, "loaded": loaded, "graph_rows": seen["1"], "core_read": seen["2"]}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["graph_rows"] > 0 and result["core_read"] is True  # both screens really loaded
    assert result["code"] == 0 and result["loaded"] == []


async def test_the_theme_is_switchable_and_remembered(make_app, settle, tmp_path: Path) -> None:
    state = tmp_path / "state"
    app = make_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == DARK_NAME
        await pilot.press("t")
        await settle(pilot)
        assert app.theme == LIGHT_NAME
    assert load_config(state).get("tui.theme") == LIGHT_NAME
    again = make_app(state)
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert again.theme == LIGHT_NAME
        again.theme = "nord"  # any registered theme; its missing node colours fall back to defaults
        await settle(pilot)
    assert load_config(state).get("tui.theme") == "nord"


async def test_the_command_palette_carries_every_screen_and_every_shown_key(make_app, settle,
                                                                           demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for number, (mode, title, _) in enumerate(SCREENS, start=1):
            await pilot.press(str(number))
            await settle(pilot)
            titles = {command.title for command in app.get_system_commands(app.screen)}
            assert {f"{t} screen" for _, t, _ in SCREENS} <= titles
            shown = {active.binding.description for active in app.screen.active_bindings.values()
                     if active.binding.show}
            assert shown <= titles | {"Quit"}, shown - titles
        command = next(c for c in app.get_system_commands(app.screen) if c.title == "Sessions screen")
        await command.callback()
        await settle(pilot)
        assert app.current_mode == "sessions"
