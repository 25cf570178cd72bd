"""Shared test setup: snapshots under the top-level `snapshots/`, deterministic TUI runs.

pytest-textual-snapshot (pinned to 1.1.0, which pins syrupy 4.8) stores SVGs in a
`__snapshots__` folder beside each test and has no option for another folder, so
its extension is subclassed here with `dirname` pointing at `snapshots/<test module>/`.
Everything a snapshot shows is made deterministic: UTC clock formatting, a fixed
"now" for the app, animations off, a fixed terminal size, data built in tmp_path.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import pytest_textual_snapshot
from pytest_textual_snapshot import SVGImageExtension

SNAPSHOT_DIR = Path(__file__).resolve().parent.parent / "snapshots"
FIXED_NOW = 1_767_268_800.0  # 2026-01-01 12:00 UTC: the app's clock in every TUI test
TERMINAL_SIZE = (140, 40)

os.environ["TZ"] = "UTC"  # times in snapshots must not depend on the machine's zone
time.tzset()
# No warm recall process outlives a test's state: recall runs in the hook's own process,
# except in the tests of the warm process itself (tests/agents/test_recall_warm.py).
os.environ["SCRIPTORIUM_RECALL_WARM"] = "0"


class TopLevelSnapshotExtension(SVGImageExtension):
    """The plugin's SVG extension, storing files in `snapshots/<test module>/<test>.svg`."""

    @classmethod
    def dirname(cls, *, test_location) -> str:  # syrupy's PyTestLocation
        return str(SNAPSHOT_DIR / test_location.basename)


@pytest.fixture(autouse=True)
def _snapshots_in_top_level_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """`snap_compare` looks the extension up in its module when it is set up; autouse
    fixtures run first, so every snapshot goes through `TopLevelSnapshotExtension`."""
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", TopLevelSnapshotExtension)


@pytest.fixture(autouse=True)
def _truecolor_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app is built for a truecolor terminal, whatever TERM the tests run under: on a
    256-colour one the app adapts its greys (themes.for_256_colours), and a snapshot must not
    depend on the developer's terminal. A test of the 256-colour case sets it itself."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "truecolor")


@pytest.fixture()
def make_app():
    """Build the Scriptorium app for a test: fixed clock, no animation."""

    def make(state_dir: Path | str):
        from scriptorium.tui.app import ScriptoriumApp

        app = ScriptoriumApp(state_dir, clock=lambda: FIXED_NOW)
        app.animation_level = "none"
        return app

    return make


async def _settle(pilot) -> None:
    """Wait until every worker has finished and the screen has caught up; stop blinking
    cursors so a snapshot never depends on the moment it is taken. Never sleeps."""
    from textual.widgets import Input, TextArea
    from textual.worker import WorkerCancelled

    await pilot.pause()
    while True:  # a finished worker's message may start the next one (list -> graph)
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # superseded by a newer exclusive worker: wait for that one
            pass
        await pilot.pause()
        if all(worker.is_finished for worker in pilot.app.workers):
            break
    for widget in pilot.app.screen.query("Input, TextArea"):
        if isinstance(widget, (Input, TextArea)):
            widget.cursor_blink = False
    await pilot.pause()


@pytest.fixture()
def settle():
    """`await settle(pilot)`: workers done, screen caught up, no blinking cursor."""
    return _settle


@pytest.fixture()
def fixed_now() -> float:
    return FIXED_NOW


@pytest.fixture()
def terminal_size() -> tuple[int, int]:
    return TERMINAL_SIZE
