"""What the screens say reads right (issue 29, Reading): tool rows tell their ids apart and
show what a call ran, arguments keep their newlines, counts are words, one footnote's three
records are not all [1], a rejection says where the cursor went, undoing back to the saved
text clears its problems, an edit's audit record does not list zeros."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.wording import count
from scriptorium.tui.history.commit_record import record_content
from scriptorium.tui.sessions.detail_pane import DetailPane
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.topics.block_inspector import BlockInspector

from .conftest import write_openprogram_session
from .helpers import open_session, open_topics, screen_lines
from .test_topics import CACHE, break_a_block, topics_state  # noqa: F401 - the fixture

pytestmark = pytest.mark.anyio

TOOL_IDS = ["tool-toolu_01AbCdEfGhJk", "tool-toolu_01ZyXwVuTsRq"]


@pytest.fixture()
def tool_session(tmp_path: Path) -> Path:
    """A session as Claude Code's import lays it out: tool calls named by their call ids, a
    Bash call with no output, a Write whose content has blank lines."""
    state = tmp_path / "state"
    write_openprogram_session(state, "cc-tools", [
        {"id": "u1", "text": "Clean the cache"},
        {"id": "a1", "role": "llm", "text": "Listing it first.", "predecessor": "u1"},
        {"id": TOOL_IDS[0], "role": "code", "name": "Bash", "input": {"command": "du -sh /var/cache/ci"},
         "text": "", "caller": "a1", "predecessor": "a1"},
        {"id": TOOL_IDS[1], "role": "code", "name": "Write",
         "input": {"file_path": "notes.md", "content": "one\n\ntwo"}, "text": "written", "caller": "a1",
         "predecessor": TOOL_IDS[0]},
    ], title="Tools", head=TOOL_IDS[1])
    return state


async def test_tool_rows_tell_their_ids_apart_and_show_what_they_ran(make_app, settle, tool_session: Path) -> None:
    app = make_app(tool_session)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, "cc-tools")
        rows = "\n".join(screen_lines(app))
        assert "tool-too " not in rows  # the id column (the detail names the whole id)
        assert "01AbCdEf" in rows and "01ZyXwVu" in rows
        assert "Bash: du -sh /var/cache/ci" in rows  # not "Bash:" and nothing
        graph = screen.query_one(BranchGraph)
        graph.focus()
        graph.move_to(TOOL_IDS[1])
        await settle(pilot)
        detail = screen.query_one(DetailPane).plain
        assert "content: one\n\ntwo" in detail and "\\n" not in detail


def test_counts_are_words() -> None:
    assert [count(1, "turn"), count(3, "turn"), count(2, "batch"), count(1, "topic file"),
            count(0, "topic file")] == ["1 turn", "3 turns", "2 batches", "1 topic file", "0 topic files"]


async def test_one_footnote_citing_three_records_is_numbered_apart(make_app, settle, demo_state: Path) -> None:
    app = make_app(demo_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, "core.md")
        await settle(pilot)
        text = str(screen.query_one(BlockInspector).content)
        assert "[1.1]" in text and "[1.2]" in text and "[1.3]" in text
        assert text.count("[1] ") == 0


async def test_a_rejection_says_where_the_cursor_went_and_undo_clears_it(make_app, settle,
                                                                        topics_state: Path) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, CACHE)
        _, line = await break_a_block(pilot, settle, screen)
        said = [n.message for n in app._notifications]
        assert any(f"The cursor is on line {line}" in m for m in said), said
        assert "problem" in str(screen.header.content)
        for _ in range(6):  # undo the two edits back to the text on disk
            if not screen.dirty:
                break
            await pilot.press("ctrl+z")
            await settle(pilot)
        assert not screen.dirty
        assert "problem" not in str(screen.header.content)
        assert not screen.editing_state.diagnostics


def test_an_edits_audit_record_does_not_list_zeros(tmp_path: Path) -> None:
    from scriptorium.tui.history import model

    state = tmp_path / "state"
    ws = Workspace.open(state)
    save_topic(ws, "ada.md", "# Ada\n\nAda likes tea.\n")
    result = save_topic(ws, "ada.md", ws.read_topic("ada.md").replace("tea", "green tea"))
    row = model.list_commits(state)[0]
    assert row.sha == result.commit and row.summary == "topics/ada.md"  # not "edit topics/ada.md" after "edit: "
    text = record_content(model.load_commit(state, row)).plain
    assert "0 blocks" not in text and "0 source records" not in text
    assert "none created, retired or archived" in text
