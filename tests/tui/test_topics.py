"""The Topics screen: hand edits go through the transaction; a rejection is shown inline and
changes no byte on disk; the inspector, retirement, auto-citation, unsaved drafts, conflicts."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.tui.topics.screen import TopicsScreen
from scriptorium.tui.topics.dialogs import Choice, RetireDialog, SourceDialog
from scriptorium.tui.topics.block_inspector import BlockInspector
from scriptorium.tui.common.diagnostics_panel import DiagnosticsPanel
from scriptorium.tui.topics.topic_view import BlockCard

from .helpers import open_topics, screen_lines, terminal_output
from .topics_support import settle_until, topics_state_copy, visible_files

pytestmark = pytest.mark.anyio

CACHE = "infra/build-cache.md"


@pytest.fixture()
def topics_state(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return topics_state_copy(tmp_path_factory, tmp_path)


def block_span(text: str, block_id: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The editor locations of ` ^block_id` in `text`."""
    for row, line in enumerate(text.split("\n")):
        column = line.find(f" ^{block_id}")
        if column >= 0:
            return (row, column), (row, column + len(block_id) + 2)
    raise AssertionError(f"^{block_id} not in the text")


def panel_text(screen: TopicsScreen) -> str:
    return "\n".join(str(item.content) for item in screen.query_one(DiagnosticsPanel).children)


def inspector_text(screen: TopicsScreen) -> str:
    return str(screen.query_one(BlockInspector).content)


async def break_a_block(pilot, settle, screen: TopicsScreen) -> tuple[str, int]:
    """Edit the cache topic: change the second block's text and delete its id, then save."""
    block = Workspace(screen.app.state_dir).topic(CACHE).blocks[1]
    await pilot.press("e")
    editor = screen.editor
    column = editor.text.split("\n")[block.start].index("main and release")
    editor.replace("main, release and nightly", (block.start, column), (block.start, column + 16))
    start, end = block_span(editor.text, block.block_id)
    editor.delete(start, end)
    await pilot.press("ctrl+s")
    await settle(pilot)
    return block.block_id, block.line


async def test_deleting_a_block_id_is_rejected_inline_then_the_fix_installs(make_app, settle,
                                                                            topics_state: Path) -> None:
    before = visible_files(topics_state)
    repo = git.Repo(topics_state / "memory")
    head = repo.head.commit.hexsha
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, CACHE)
        block_id, line = await break_a_block(pilot, settle, screen)
        draft = screen.editor.text

        # rejected: the rule and the line beside the editor, the cursor on that line, the draft kept
        [diagnostic] = screen.editing_state.diagnostics
        assert (diagnostic.rule, diagnostic.line, diagnostic.block_id) == ("block-id-kept", line, block_id)
        shown = panel_text(screen)
        assert f"line {line}" in shown and "block-id-kept" in shown and f"^{block_id}" in shown
        assert "fix:" in shown and "retire the block" in shown
        assert screen.editor.cursor_location[0] == line - 1 and screen.editor.has_focus
        assert screen.editor.marked == {line}
        assert screen.editor.text == draft and screen.dirty
        assert any("nothing was written" in row for row in screen_lines(app))
        assert visible_files(topics_state) == before  # byte-identical
        assert repo.head.commit.hexsha == head

        # fixed: the id back at the end of its paragraph (the new text stays) -> installed
        row = line - 1
        screen.editor.insert(f" ^{block_id}", (row, len(screen.editor.text.split("\n")[row])))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.editing_state.diagnostics == [] and not screen.dirty and screen.editor.marked == frozenset()
        assert not screen.query_one(DiagnosticsPanel).has_class("-shown")

    disk = Workspace(topics_state).read_topic(CACHE)
    assert "main, release and nightly branches" in disk and f"^{block_id}" in disk
    commit = repo.head.commit
    assert commit.hexsha != head and commit.message.startswith("edit: topics/infra/build-cache.md")
    assert f"topics/{CACHE}" in commit.stats.files


async def test_the_inspector_shows_citations_backlinks_and_history(make_app, settle, topics_state: Path) -> None:
    workspace = Workspace(topics_state)
    linked = workspace.topic(CACHE).blocks[0].block_id  # core.md links to it
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, CACHE)
        view = screen.query_one(BlockInspector).view
        assert view is not None and view.block_id == linked
        assert [c.source_id for c in view.citations] == ["openprogram/demo/d2"]
        assert view.citations[0].record and "50 GB per runner" in view.citations[0].record
        assert [(b.path, b.block_id) for b in view.backlinks] == [("core.md", workspace.topic("core.md").blocks[0].block_id)]
        assert [h.change for h in view.history] == ["created"]
        assert view.history[0].commit == git.Repo(topics_state / "memory").commit("HEAD~1").hexsha
        text = inspector_text(screen)
        assert "openprogram/demo/d2" in text and "core.md:3" in text and "created" in text

        # the cited record opens in full: from the inspector, and from the citation link in the text
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, SourceDialog)
        assert any("Size the shared build cache at 50 GB" in row for row in screen_lines(app))
        await pilot.press("escape")
        card = screen.view.cards[1]
        await card.run_action(f"cite('{card.paragraph.citations[0].id}')")
        await settle(pilot)
        assert isinstance(app.screen, SourceDialog)
        assert any("Rust target directories are cached only" in row for row in screen_lines(app))
        await pilot.press("escape")

        # a backlink opens the linking block
        screen.inspector.action_jump(0)
        await settle(pilot)
        assert screen.path == "core.md" and screen.view.paragraph.block_id == view.backlinks[0].block_id

        # a block edited later has that commit in its history too
        history = screen.inspector.view.history
        assert [h.change for h in history] == ["edited", "created"]


async def test_an_uncited_paragraph_is_cited_to_a_manual_note(make_app, settle, topics_state: Path) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, "ops/deploys.md")
        await pilot.press("e")
        screen.editor.insert("Rollbacks need a second approver.\n\n", (2, 0))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.editing_state.diagnostics == [] and not screen.dirty
        disk = Workspace(topics_state).read_topic("ops/deploys.md")
        paragraph = next(p for p in Workspace(topics_state).topic("ops/deploys.md").blocks
                         if p.content.startswith("Rollbacks"))
        assert paragraph.ids and "[manual note](" in disk
        screen.editor.go_to_line(paragraph.line)  # the cursor on the new block: the inspector shows its source
        await settle(pilot)
        view = screen.query_one(BlockInspector).view
        assert view.block_id == paragraph.block_id
        assert view.citations[0].label == "manual note" and view.citations[0].source_id.startswith("manual/")
        assert "Rollbacks need a second approver." in view.citations[0].record
        assert "manual note" in inspector_text(screen)


async def test_retire_asks_for_a_reason_and_goes_through_the_transaction(make_app, settle,
                                                                          topics_state: Path) -> None:
    workspace = Workspace(topics_state)
    linked, plain = [b.block_id for b in workspace.topic(CACHE).blocks[:2]]
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, CACHE)
        screen.view.focus()
        # a block another topic links to: the transaction rejects its retirement
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, RetireDialog) and app.screen.block_id == linked
        await pilot.press("enter")  # no reason: refused, the dialog stays
        assert isinstance(app.screen, RetireDialog)
        await pilot.press(*"outdated", "enter")
        await settle(pilot)
        assert [d.rule for d in screen.editing_state.diagnostics] == ["link-resolves"]
        assert screen.editing_state.diagnostics[0].file == "topics/core.md"
        assert linked in Workspace(topics_state).read_topic(CACHE)

        # an unlinked block: retired, with the reason on record
        screen.view.focus()
        await pilot.press("down", "x")
        await settle(pilot)
        assert app.screen.block_id == plain
        await pilot.press(*"moved to the wiki", "enter")
        await settle(pilot)
        assert screen.editing_state.diagnostics == []
        assert plain not in Workspace(topics_state).read_topic(CACHE)
        audit = Workspace(topics_state).audit_log()[0]
        assert audit["retired"][0]["id"] == plain and audit["retired"][0]["reason"] == "moved to the wiki"


async def test_leaving_a_draft_asks_first(make_app, settle, topics_state: Path) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, "core.md")
        await pilot.press("e", *"Draft ")
        assert screen.dirty
        draft = screen.editor.text

        screen.open_topic(CACHE)  # as a click in the tree does
        await settle(pilot)
        assert isinstance(app.screen, Choice)
        await pilot.press("escape")  # cancel: stay with the draft
        await settle(pilot)
        assert screen.path == "core.md" and screen.editor.text == draft

        await pilot.press("ctrl+q")  # quitting asks too
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, Choice)
        await pilot.press("escape")
        await settle(pilot)

        screen.open_topic(CACHE)
        await settle(pilot)
        app.screen.query_one("#discard").press()
        await settle(pilot)
        assert screen.path == CACHE and not screen.dirty
    assert "Draft" not in Workspace(topics_state).read_topic("core.md")


async def test_a_conflicting_change_on_disk_is_caught_at_save(make_app, settle, topics_state: Path) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, "ops/deploys.md")
        await pilot.press("e")
        screen.editor.insert("Hotfixes need two reviewers.[^e-64c267d197]\n\n", (2, 0))
        workspace = Workspace(topics_state)
        theirs = workspace.read_topic("ops/deploys.md").replace("# Deploys", "# Deploys and releases")
        assert save_topic(workspace, "ops/deploys.md", theirs).outcome == "installed"

        await pilot.press("ctrl+s")
        await settle_until(pilot, settle, lambda: isinstance(app.screen, Choice))
        assert [d.rule for d in screen.editing_state.diagnostics] == ["conflict"]
        assert Workspace(topics_state).read_topic("ops/deploys.md") == theirs
        app.screen.query_one("#keep").press()  # keep the draft: the next save replaces theirs
        await settle(pilot)
        assert "Hotfixes need two reviewers." in screen.editor.text and screen.editing_state.base == theirs
        await pilot.press("ctrl+s")
        await settle(pilot)
        disk = Workspace(topics_state).read_topic("ops/deploys.md")
        assert "Hotfixes need two reviewers." in disk and "# Deploys\n" in disk

        # and reloading takes theirs
        await pilot.press("e")
        screen.editor.insert("Mine.[^e-64c267d197]\n\n", (2, 0))
        theirs = disk.replace("# Deploys", "# Deploys (theirs)")
        assert save_topic(Workspace(topics_state), "ops/deploys.md", theirs).outcome == "installed"
        await pilot.press("ctrl+s")
        await settle_until(pilot, settle, lambda: isinstance(app.screen, Choice))
        app.screen.query_one("#reload").press()
        await settle_until(pilot, settle, lambda: screen.editor.text == theirs)
        assert not screen.dirty


def test_an_inline_rejection(snap_compare, make_app, settle, terminal_size, topics_state: Path) -> None:
    async def run_before(pilot) -> None:
        screen = await open_topics(pilot, settle, CACHE)
        await break_a_block(pilot, settle, screen)
        await settle(pilot)

    assert snap_compare(make_app(topics_state), terminal_size=terminal_size, run_before=run_before)


async def test_hostile_topic_text_is_shown_inertly(make_app, settle, topics_state: Path) -> None:
    hostile = ("# Notes [@click=app.quit]x[/]\n\n"
               "Click [@click=app.quit]here[/] \x1b[2J now \u202edesrever\u202c and \x9b31m.[^e1] ^abc12345\n\n"
               "[^e1]: Time: `2026-01-02`; Sources: [x](../sources/openprogram/_v2/demo.md#source-6add6abac03ec4ea)\n")
    (topics_state / "memory" / "topics" / "hostile.md").write_text(hostile, encoding="utf-8")
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle, "hostile.md")
        for mode in ("view", "edit"):
            if mode == "view":
                await pilot.click(BlockCard)  # clicking the text runs no action hidden in it
            else:
                await pilot.press("e")
            await settle(pilot)
            text = "\n".join(screen_lines(app))
            assert "[@click=app.quit]here[/]" in text and "␛[2J" in text
            output = terminal_output(app)
            assert "\x1b[2J" not in output and "\u202e" not in output and "\x9b" not in output
        assert app.is_running and screen.editor.text == hostile  # the file itself is edited as it is


def test_an_inline_rejection_at_80x24(snap_compare, make_app, settle, topics_state: Path) -> None:
    """At 80 columns the side panel with the rejection takes the tree's place by itself."""
    test_an_inline_rejection(snap_compare, make_app, settle, (80, 24), topics_state)
