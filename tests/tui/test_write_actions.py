"""The Sessions screen's write actions, driven with keys: write a branch now (`w`), finish the
session (`f`). The model is the offline writer behind a gate the test opens, so a write can
be held in flight while the test checks that the app keeps answering."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.sessions.marker import pending
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer_status import record_session_outcome, session_failures
from scriptorium.tui.sessions.model import PENDING, WRITTEN
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.branch_list import BranchList
from scriptorium.tui.sessions.write_status import WriteStatus

from .conftest import WORKSPACE
from .helpers import open_session, screen_lines

pytestmark = pytest.mark.anyio

PROVIDER = "gated"


class Hold:
    """One writer run held at its first model call until the test releases it."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.released = threading.Event()


class GatedWriter:
    """Wraps the offline model: raises `error` if set, else answers as the offline writer does;
    the writer runs (batches) numbered in `holds` wait at their first call for their release."""

    def __init__(self) -> None:
        from scriptorium.core.writer.offline import OfflineModel

        offline = OfflineModel()
        outer = self

        class Gated:
            def complete(self, model, messages, tools, timeout):
                outer.calls += 1
                names = {t["function"]["name"] for t in tools}
                if len(messages) == 2 and "retire_block" not in names:  # a writer run starts
                    outer.runs += 1
                    hold = outer.holds.get(outer.runs)
                    if hold is not None:
                        hold.entered.set()
                        if not hold.released.wait(timeout=60):
                            raise TimeoutError("the test never released the writer")
                if outer.error is not None:
                    raise outer.error
                reply = offline.complete(model, messages, tools, timeout)
                reply.input_tokens, reply.output_tokens, reply.cost_usd = 1000, 50, 0.00125  # as a priced model's
                return reply

        self.handler = Gated()
        self.reset()

    def reset(self, error: BaseException | None = None, hold: tuple[int, ...] = ()) -> None:
        self.calls = 0
        self.runs = 0
        self.error = error
        self.holds = {run: Hold() for run in hold}

    def release_all(self) -> None:
        for hold in self.holds.values():
            hold.released.set()


@pytest.fixture(scope="module")
def gated_writer() -> GatedWriter:
    from scriptorium.core.writer import register_provider

    writer = GatedWriter()
    register_provider(PROVIDER, writer.handler)
    return writer


@pytest.fixture()
def writer(gated_writer: GatedWriter, demo_state: Path, monkeypatch: pytest.MonkeyPatch) -> GatedWriter:
    """The gated writer configured as the demo state's model (`writer.model`), gate open."""
    monkeypatch.delenv("SCRIPTORIUM_MODEL", raising=False)
    set_config_value(demo_state, "writer.model", f"{PROVIDER}/test")
    gated_writer.reset()
    yield gated_writer
    gated_writer.release_all()  # never leave a worker thread waiting


async def wait_until(pilot, condition, what: str, timeout: float = 30.0) -> None:
    """Let the app run until `condition()` holds (a worker's result arrives); fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause()


def states(screen, ids) -> set[str]:
    return {row.state for row in screen.graph.rows if row.id in ids}


def listed_row(app, title: str) -> str:
    """The session list's row of the session with this title, as on screen."""
    return next(line.split("│")[1] for line in screen_lines(app) if line.startswith("│") and title in line)


def status_text(screen) -> str:
    return screen.query_one(WriteStatus).plain


async def test_writing_a_branch_keeps_the_app_responsive_then_shows_the_outcome_and_marks(
        make_app, settle, demo_state: Path, writer: GatedWriter) -> None:
    store = SessionStore(demo_state)
    sid = "demo-checkout"  # nothing of it is written
    head = store.head(sid)
    other = next(tip for tip in store.list_branches(sid) if tip != head)
    owed = [t.id for t in pending(store, sid, head, WORKSPACE)]
    set_config_value(demo_state, "writer.trigger_tokens", 60)  # the branch takes several batches
    writer.reset(hold=(1, 2))
    first, second = writer.holds[1], writer.holds[2]
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, sid)
        assert screen.query_one(BranchGraph).selected_tip == head
        assert states(screen, owed) == {PENDING}
        await pilot.press("w")
        await wait_until(pilot, first.entered.is_set, "the first batch's model call")
        await wait_until(pilot, lambda: f"0/{len(owed)} turns" in status_text(screen), "the progress bar")
        assert "Write branch" in status_text(screen)

        # The model is busy: every part of the app still answers.
        await pilot.press("right_square_bracket")
        assert screen.query_one(BranchGraph).selected_tip == other
        await pilot.press("down")  # the session list has the focus: the next session opens
        await wait_until(pilot, lambda: screen.graph is not None and screen.graph.session_id != sid, "another graph")
        assert "Write branch" in status_text(screen)  # the running write stays in view
        await pilot.press("w")  # a second write is refused while one runs, not queued
        await pilot.press("2")
        assert app.current_mode == "core"
        await pilot.press("1")
        assert app.current_mode == "sessions" and screen.job is not None and writer.calls == 1

        first.released.set()  # the first batch is written and marked; the second one waits
        await wait_until(pilot, second.entered.is_set, "the second batch's model call")
        batch = len(owed) - len(pending(store, sid, head, WORKSPACE))
        assert 0 < batch < len(owed)
        await wait_until(pilot, lambda: f"{batch}/{len(owed)} turns" in status_text(screen), "progress read back")
        second.released.set()
        await settle(pilot)
        assert screen.job is None
        screen = await open_session(pilot, settle, sid)
        text = status_text(screen)
        assert "Write branch" in text and "ok" in text and "WRITTEN" in text and f"{len(owed)} turns" in text
        # the model's tokens and their price, summed over the batches' model calls (n of them)
        usage = re.search(rf"{PROVIDER}/test · ([\d,]+) tokens in, ([\d,]+) out · \$(\d+\.\d{{4}})", text)
        assert usage is not None, text
        n = int(usage[1].replace(",", "")) // 1000
        assert n >= 3 and usage[2] == f"{50 * n:,}" and usage[3] == f"{0.00125 * n:.4f}"
        assert pending(store, sid, head, WORKSPACE) == []
        assert states(screen, owed) == {WRITTEN}  # the graph re-read its marks
        assert states(screen, [t.id for t in pending(store, sid, other, WORKSPACE)]) == {PENDING}
        listed = str(screen.query_one(BranchList).prompt(head))
        assert "written" in listed


async def test_finishing_a_session_writes_its_head_and_leaves_a_short_retry(
        make_app, settle, demo_state: Path, writer: GatedWriter) -> None:
    store = SessionStore(demo_state)
    sid = "demo-build-cache"
    head = store.head(sid)
    head_owed = [t.id for t in pending(store, sid, head, WORKSPACE)]
    retry = next(tip for tip in store.list_branches(sid) if len(pending(store, sid, tip, WORKSPACE)) == 1)
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, sid)
        screen.query_one(BranchList).focus()
        await pilot.press("down", "down")  # another branch selected: finish is about the session
        await settle(pilot)
        selected = screen.query_one(BranchGraph).selected_tip
        finish = next(c for c in app.get_system_commands(screen) if c.title == "Finish session")
        await finish.callback()  # from the command palette, as the key `f` does
        await settle(pilot)
        text = status_text(screen)
        assert "Finish the session: ok" in text and "WRITTEN" in text
        assert states(screen, head_owed) == {WRITTEN}
        assert [row.state for row in screen.graph.rows if row.id == retry] == [PENDING]
        assert screen.query_one(BranchGraph).selected_tip == selected  # the selection survived the re-read
        row = listed_row(app, "Build cache design")
        assert f"{len(pending(store, sid, retry, WORKSPACE))} · " in row  # the list's backlog re-read too


@pytest.mark.parametrize(("status", "code", "flagged"), [(401, "MODEL_AUTHENTICATION", True),
                                                         (429, "MODEL_RATE_LIMIT", False)])
async def test_a_failed_write_shows_its_outcome_code_and_reason(make_app, settle, demo_state: Path,
                                                                writer: GatedWriter, status: int, code: str,
                                                                flagged: bool) -> None:
    from litellm.llms.custom_llm import CustomLLMError

    sid = "demo-checkout"
    store = SessionStore(demo_state)
    owed = [t.id for t in pending(store, sid, store.head(sid), WORKSPACE)]
    writer.reset(CustomLLMError(status, "the provider said no"))
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, sid)
        await pilot.press("w")
        await settle(pilot)
        text = status_text(screen)
        outcome = "permanent" if flagged else "retryable"
        assert f"Write branch {owed[-1][:8]}: {outcome}" in text and code in text and "the provider said no" in text
        assert "the unwritten turns stay pending" in text
        assert states(screen, owed) == {PENDING}
        row = listed_row(app, "Checkout latency regression")
        assert row.strip().startswith("!") is flagged  # the list marks a permanent failure
        assert (sid in session_failures(StatePaths(demo_state))) is flagged


async def test_a_session_whose_last_write_failed_permanently_is_marked_with_its_reason(
        make_app, settle, demo_state: Path) -> None:
    record_session_outcome(StatePaths(demo_state), "demo-deploy-window", "COMMIT_REJECTED",
                           "[@click=app.quit]the edit[/] deleted block ^1f227123")
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        marked = [line.split("│")[1] for line in screen_lines(app) if line.startswith("│ !")]
        assert len(marked) == 1 and "周五部署窗口" in marked[0]
        screen = await open_session(pilot, settle, "demo-build-cache")
        assert status_text(screen) == ""  # no failure, no outcome: the line is hidden
        screen = await open_session(pilot, settle, "demo-deploy-window")
        text = status_text(screen)
        assert "failed permanently" in text and "COMMIT_REJECTED" in text
        assert "[@click=app.quit]the edit[/] deleted block ^1f227123" in text  # shown as written, inert


async def test_the_write_actions_are_offered_once_there_is_a_session(make_app, settle, tmp_path: Path,
                                                                      demo_state: Path) -> None:
    empty = make_app(tmp_path / "empty")
    async with empty.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        footer = screen_lines(empty)[-1]
        assert "Reload" in footer and "Write branch" not in footer and "Finish session" not in footer
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        footer = screen_lines(app)[-1]
        assert "w Write branch" in footer and "f Finish session" in footer
        assert {"Write branch", "Finish session"} <= {c.title for c in app.get_system_commands(app.screen)}
