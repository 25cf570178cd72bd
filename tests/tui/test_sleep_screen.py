"""The Sleep screen: why sleep is (not) due; a preview shows the diff and installs nothing
until confirmed; a conflict or a rejection is shown, not forced; the app stays
responsive (and can cancel) while a slow model works."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from textual.worker import WorkerCancelled

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.paths import StatePaths
from scriptorium.core.runtime_state import load_runtime, save_runtime
from scriptorium.core.writer import register_provider
from scriptorium.tui.common.help import HelpScreen
from scriptorium.tui.history.screen import HistoryScreen
from scriptorium.tui.sleep.screen import SleepScreen
from scriptorium.tui.common.diagnostics_panel import DiagnosticsPanel

from .helpers import screen_lines
from .memory_history import INVOICES, Built, build, fix_git, head, memory_bytes

pytestmark = pytest.mark.anyio


@pytest.fixture()
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Built:
    fix_git(monkeypatch)
    built = build(tmp_path / "state")
    paths = StatePaths(built.state)
    runtime = load_runtime(paths)
    runtime.update(local_batches=6, local_tokens=1_234, write_commits_since_global=3)
    save_runtime(paths, runtime)
    return built


async def open_sleep(app, pilot, settle) -> SleepScreen:
    await settle(pilot)
    await app.switch_mode("sleep")
    await settle(pilot)
    assert isinstance(app.screen, SleepScreen)
    return app.screen


async def settle_screen(pilot, screen) -> None:
    """Wait for the workers of one screen (`settle` would also wait for the blocked sleep)."""
    await pilot.pause()
    while running := [w for w in pilot.app.workers if w.node is screen and not w.is_finished]:
        try:
            await pilot.app.workers.wait_for_complete(running)
        except WorkerCancelled:
            pass
        await pilot.pause()


def text(app) -> str:
    return "\n".join(screen_lines(app))


def test_the_sleep_preview_diff(snap_compare, make_app, settle, terminal_size, built: Built) -> None:
    async def run_before(pilot) -> None:
        await open_sleep(pilot.app, pilot, settle)
        await pilot.press("p")
        await settle(pilot)

    assert snap_compare(make_app(built.state), terminal_size=terminal_size, run_before=run_before)


async def test_why_sleep_is_due_and_when_it_runs_next(make_app, settle, built: Built) -> None:
    app = make_app(built.state)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_sleep(app, pilot, settle)
        shown = text(app)
        assert "Sleep is due: 6 batches written since the last sleep (due at 5)" in shown
        assert "6 / 5 batches" in shown and "1,234 / 40,000 tokens" in shown
        assert "never" in shown and "3 write commits since" in shown
        assert "2026-01-02 03:00 (in 15 h)" in shown  # the app's clock is 2026-01-01 12:00 UTC
        assert "scriptorium/offline" in shown and "2 topic files" in shown


async def test_a_preview_installs_nothing_until_confirmed(make_app, settle, built: Built) -> None:
    before, commit = memory_bytes(built.state), head(built.state)
    app = make_app(built.state)
    async with app.run_test(size=(140, 48)) as pilot:
        screen = await open_sleep(app, pilot, settle)
        await pilot.press("p")
        await settle(pilot)
        assert screen.preview is not None  # the duplicate leaves queues.md; the survivor takes over its citation
        assert sorted(screen.preview.topics) == ["topics/billing.md", "topics/ops/queues.md"]
        assert screen.preview.retired.keys() == {built.duplicate}
        shown = text(app)
        assert "ops/queues.md" in shown and f"-{INVOICES}" in shown and f"^{built.duplicate}" in shown
        assert memory_bytes(built.state) == before and head(built.state) == commit  # nothing installed

        await pilot.press("i")
        await settle(pilot)
        assert screen.preview is None and screen.result.code == "REORGANIZED"
        installed = head(built.state)
        assert installed != commit and installed == screen.result.commit
        record = Workspace(built.state).audit_log()[0]
        assert record["kind"] == "sleep" and record["commit"] == installed
        assert [r["id"] for r in record["retired"]] == [built.duplicate]
        queues = (built.state / "memory" / "topics" / "ops" / "queues.md").read_text()
        assert INVOICES not in queues and "RabbitMQ" in queues
        assert f"Installed as {installed[:12]}" in text(app)
        assert "Sleep is not due" in text(app)  # the counters were reset


async def test_a_preview_says_which_topics_it_would_merge(make_app, settle, built: Built) -> None:
    """`ops/queue.md` beside `ops/queues.md` is one subject: the preview line names the merge,
    the installed sleep's line too (once the duplicate leaves queues.md both hold one block:
    the shorter name stays)."""
    ws = Workspace.open(built.state)
    assert save_topic(ws, "ops/queue.md", "# Queue\n\nThe queue is RabbitMQ, and it feeds billing.[^e1]\n\n"
                      "[^e1]: Time: `2025-12-31`; Sources: [q](openprogram/billing/m5)\n", summary="by hand").ok
    app = make_app(built.state)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_sleep(app, pilot, settle)
        await pilot.press("p")
        await settle(pilot)
        assert screen.preview.topics["topics/ops/queues.md"] is None
        assert "would merge ops/queues.md into ops/queue.md" in text(app)
        await pilot.press("i")
        await settle(pilot)
        assert screen.result.code == "REORGANIZED" and "merged ops/queues.md into ops/queue.md" in text(app)
    assert not (built.state / "memory" / "topics" / "ops" / "queues.md").exists()
    assert "The billing queue runs on RabbitMQ" in (built.state / "memory" / "topics" / "ops" / "queue.md").read_text()


async def test_a_discarded_preview_installs_nothing(make_app, settle, built: Built) -> None:
    before, commit = memory_bytes(built.state), head(built.state)
    app = make_app(built.state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_sleep(app, pilot, settle)
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert screen.preview is None and "Preview discarded" in text(app)
        await pilot.press("i")  # nothing left to install
        await settle(pilot)
        assert memory_bytes(built.state) == before and head(built.state) == commit


async def test_installing_a_stale_preview_is_a_conflict(make_app, settle, built: Built) -> None:
    app = make_app(built.state)
    async with app.run_test(size=(140, 48)) as pilot:
        screen = await open_sleep(app, pilot, settle)
        await pilot.press("p")
        await settle(pilot)
        ws = Workspace(built.state)
        edited = save_topic(ws, "billing.md", ws.read_topic("billing.md").replace("Postgres 16", "Postgres 17"))
        assert edited.outcome == "installed"
        before = memory_bytes(built.state)
        await pilot.press("i")
        await settle(pilot)
        assert screen.result.code == "CONCURRENT_UPDATE" and head(built.state) == edited.commit
        assert memory_bytes(built.state) == before
        assert [d.rule for d in screen.query_one(DiagnosticsPanel).diagnostics] == ["conflict"]
        assert "memory changed since the preview was made" in text(app)


def _organizer(steps):
    """A model behind the writer's seam serving organizer `steps` (each a reply, a list of tool
    calls, or a callable returning one); the last step repeats."""
    from scriptorium.core.writer.model import Reply

    class Scripted:
        served = 0

        def complete(self, model, messages, tools, timeout):
            step = steps[min(self.served, len(steps) - 1)]
            self.served += 1
            return Reply.of(step(messages) if callable(step) else step, self.served * 100)

    return Scripted()


async def test_a_rejected_sleep_shows_its_diagnostics(make_app, settle, built: Built,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    emptied = [("write_file", {"path": "billing.md", "content": "# Billing\n"})]
    register_provider("tuireject", _organizer([emptied, "done", emptied, "done"]))  # the repair fails too
    monkeypatch.setenv("SCRIPTORIUM_MODEL", "tuireject/test")
    before, commit = memory_bytes(built.state), head(built.state)
    app = make_app(built.state)
    async with app.run_test(size=(140, 48)) as pilot:
        screen = await open_sleep(app, pilot, settle)
        await pilot.press("s")
        await settle(pilot)
        assert screen.result.code == "COMMIT_REJECTED"
        shown = screen.query_one(DiagnosticsPanel).diagnostics
        billing = [p.block_id for p in Workspace(built.state).topic("billing.md").blocks]
        assert {(d.rule, d.file, d.block_id) for d in shown} == {
            *(("block-id-kept", "topics/billing.md", block_id) for block_id in billing),
            ("link-resolves", "topics/ops/queues.md", built.database)}  # the later link into billing.md
        assert "block-id-kept" in text(app) and "nothing was installed" in text(app)
        assert memory_bytes(built.state) == before and head(built.state) == commit


async def test_the_app_stays_responsive_and_can_cancel_while_the_model_works(
        make_app, settle, built: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow(messages):
        entered.set()
        assert release.wait(30), "the test never released the model"
        return "Nothing to reorganize."

    register_provider("tuislow", _organizer([slow]))
    monkeypatch.setenv("SCRIPTORIUM_MODEL", "tuislow/test")
    commit = head(built.state)
    app = make_app(built.state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_sleep(app, pilot, settle)
        await pilot.press("s")
        assert await asyncio.to_thread(entered.wait, 30)  # the model is now busy
        await pilot.pause()
        assert screen.running == "Sleep" and "round 1" in text(app) and "c cancels" in text(app)

        await pilot.press("p")  # a second run cannot start while one works
        assert [w.name for w in app.workers if w.group == "sleep-run"] == ["run_sleep"]
        await pilot.press("6")  # other screens open and read while the model works
        assert isinstance(app.screen, HistoryScreen)
        await settle_screen(pilot, app.screen)
        assert "queues: name the broker" in text(app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "5")
        assert app.screen is screen

        await pilot.press("c")
        await pilot.pause()
        assert "cancelling" in text(app)
        release.set()
        await settle(pilot)
        assert (screen.result.outcome, screen.result.code) == ("retryable", "CANCELLED")
        assert screen.running is None and "Cancelled: nothing was installed" in text(app)
    assert head(built.state) == commit


def test_the_sleep_preview_diff_at_80x24(snap_compare, make_app, settle, built: Built) -> None:
    test_the_sleep_preview_diff(snap_compare, make_app, settle, (80, 24), built)
