"""The History screen: the workspace's commits with their audit record and diff; revert as
a new validated commit, or a rejection with diagnostics that changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.tui.history.model import list_commits
from scriptorium.tui.history.screen import HistoryScreen
from scriptorium.tui.history.commit_list import CommitList
from scriptorium.tui.common.diagnostics_panel import DiagnosticsPanel
from scriptorium.tui.common.diff_view import parse_diff

from .helpers import screen_lines
from .memory_history import Built, build, fix_git, head, memory_bytes
from .topics_support import Probe, settle_until

pytestmark = pytest.mark.anyio


@pytest.fixture()
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Built:
    fix_git(monkeypatch)
    return build(tmp_path / "state")


async def open_history(app, pilot, settle) -> HistoryScreen:
    await settle(pilot)
    await app.switch_mode("history")
    await settle(pilot)
    assert isinstance(app.screen, HistoryScreen)
    return app.screen


async def select(pilot, settle, screen: HistoryScreen, row: int) -> None:
    commits = screen.query_one(CommitList)
    commits.focus()
    steps = row - commits.cursor_row
    await pilot.press(*(["down" if steps > 0 else "up"] * abs(steps)))
    await settle(pilot)
    assert screen.detail is not None and screen.detail.row.sha == screen.commits[row].sha


async def revert_selected(pilot, settle) -> None:
    await pilot.press("u")
    await settle(pilot)
    await pilot.press("enter")  # the dialog's first button: Revert
    await settle(pilot)


def text(app) -> str:
    return "\n".join(screen_lines(app))


def test_the_history_screen_with_a_diff(snap_compare, make_app, settle, terminal_size, built: Built) -> None:
    async def run_before(pilot) -> None:
        await open_history(pilot.app, pilot, settle)

    assert snap_compare(make_app(built.state), terminal_size=terminal_size, run_before=run_before)


async def test_every_commit_is_listed_with_its_record_and_diff(make_app, settle, built: Built) -> None:
    app = make_app(built.state)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_history(app, pilot, settle)
        assert [(c.kind, c.summary) for c in screen.commits] == [
            ("edit", "queues: name the broker"), ("write", "queue notes"), ("write", "billing notes"),
            ("", "memory: initialize history")]
        assert [c.sha for c in screen.commits] == Workspace(built.state).repo.git.log("--format=%H").split()
        detail = screen.detail
        assert detail.row.sha == head(built.state) and detail.audit["kind"] == "edit" and detail.revertable
        [changed] = parse_diff(detail.diff)
        assert changed.path == "topics/ops/queues.md" and (changed.count("+"), changed.count("-")) == (1, 1)
        shown = text(app)
        assert "+The billing queue runs on RabbitMQ" in shown and "-The billing queue feeds" in shown
        assert "queues: name the broker" in shown and "u reverts this commit" in shown

        await select(pilot, settle, screen, 1)  # the write: its audit record names the blocks it created
        assert built.duplicate in screen.detail.audit["created_blocks"]
        assert f"^{built.duplicate}" in text(app) and "archived  4 source records" in text(app)
        await select(pilot, settle, screen, 3)  # the initial commit: no audit record, nothing to revert
        assert screen.detail.audit is None and not screen.detail.revertable
        assert "No audit record" in text(app)


async def test_revert_makes_a_new_commit(make_app, settle, built: Built) -> None:
    edited = head(built.state)
    before = (built.state / "memory" / "topics" / "ops" / "queues.md").read_text()
    app = make_app(built.state)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_history(app, pilot, settle)
        await revert_selected(pilot, settle)
        new = head(built.state)
        assert new != edited and Workspace(built.state).repo.commit(new).parents[0].hexsha == edited
        assert [c.sha for c in screen.commits][:2] == [new, edited]
        assert screen.commits[0].kind == "revert" and screen.commits[0].summary.startswith(f"undo {edited[:12]} ")
        assert screen.detail.row.sha == new  # the new commit is selected, its diff shown
        assert "-The billing queue runs on RabbitMQ" in text(app)
    after = (built.state / "memory" / "topics" / "ops" / "queues.md").read_text()
    assert after != before and "The billing queue feeds [the database]" in after


async def test_a_revert_that_breaks_a_later_block_is_rejected(make_app, settle, built: Built) -> None:
    before, commit = memory_bytes(built.state), head(built.state)
    app = make_app(built.state)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_history(app, pilot, settle)
        await select(pilot, settle, screen, 2)  # billing notes: a later block links to its database block
        await revert_selected(pilot, settle)
        diagnostics = screen.query_one(DiagnosticsPanel).diagnostics
        assert [(d.rule, d.file, d.block_id) for d in diagnostics] == [
            ("link-resolves", "topics/ops/queues.md", built.database)]
        shown = text(app)
        assert "rejected" in shown and "link-resolves" in shown
        assert len(list_commits(built.state)) == len(screen.commits) == 4
    assert memory_bytes(built.state) == before and head(built.state) == commit


async def test_a_commit_made_elsewhere_appears_without_a_reload(make_app, settle, built: Built) -> None:
    app = make_app(built.state)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_history(app, pilot, settle)
        looking_at = screen.detail.row.sha
        await settle_until(pilot, settle, lambda: app.live.running)
        probe = Probe()
        app.live.subscribe(probe)
        ws = Workspace(built.state)
        result = save_topic(ws, "billing.md", ws.read_topic("billing.md").replace("Postgres 16", "Postgres 17"))
        assert result.outcome == "installed"
        await probe.until(lambda m: "billing.md" in m.topics)
        await settle_until(pilot, settle, lambda: screen.commits[0].sha == result.commit)
        assert screen.detail.row.sha == looking_at  # the cursor stays on the commit being read
        assert "topics/billing.md" in text(app) and "edit topics/billing.md" not in text(app)


async def test_a_state_without_memory_has_no_history(make_app, settle, tmp_path: Path) -> None:
    app = make_app(tmp_path / "fresh")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_history(app, pilot, settle)
        assert screen.commits == [] and "No memory history yet" in text(app)
    assert not (tmp_path / "fresh" / "memory").exists()  # looking creates nothing


def test_diff_lines_that_look_like_headers_stay_in_their_hunk() -> None:
    diff = ("diff --git a/topics/a.md b/topics/a.md\nindex 1..2 100644\n--- a/topics/a.md\n+++ b/topics/a.md\n"
            "@@ -1,2 +1,2 @@\n--- not a header\n+++ not one either\n keep\n"
            "diff --git a/topics/b.md b/topics/b.md\nnew file mode 100644\n--- /dev/null\n+++ b/topics/b.md\n"
            "@@ -0,0 +1 @@\n+new\n")
    a, b = parse_diff(diff)
    assert (a.path, a.status, a.count("+"), a.count("-")) == ("topics/a.md", "", 1, 1)
    assert a.lines[1:] == ["--- not a header", "+++ not one either", " keep"]
    assert (b.path, b.status, b.count("+"), b.count("-")) == ("topics/b.md", "new file", 1, 0)


def test_the_history_screen_at_80x24(snap_compare, make_app, settle, built: Built) -> None:
    test_the_history_screen_with_a_diff(snap_compare, make_app, settle, (80, 24), built)
