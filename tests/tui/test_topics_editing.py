"""The Topics screen's editing state, without the app: the dirty flag, which topic is open,
the diagnostics a rejection leaves, and each decision about a draft — against real
transactions on a real workspace (the screen's model saves and retires)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace
from scriptorium.tui.topics import model
from scriptorium.tui.topics.editing import TopicEditing

from .topics_support import topics_state_copy


@pytest.fixture()
def state(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return topics_state_copy(tmp_path_factory, tmp_path)


def opened(state: Path, path: str) -> tuple[TopicEditing, str]:
    editing = TopicEditing()
    text = model.read_topic(state, path)
    assert editing.open(path, "", jump=False) == "read"  # nothing open: nothing to lose
    editing.opened(path, text)
    return editing, text


def save(state: Path, editing: TopicEditing, draft: str):
    assert editing.begin_save(draft) == "save" and editing.saving
    assert editing.begin_save(draft) == "busy"  # one save at a time
    result, error = model.save(state, editing.path, draft, editing.base)
    assert error == ""
    return editing.finished(editing.path, draft, result, "save"), result


def test_a_draft_is_dirty_until_saved_and_the_saved_text_becomes_the_base(state: Path) -> None:
    editing, text = opened(state, "core.md")
    assert not editing.dirty(text) and editing.begin_save(text) == "clean"
    draft = text.replace("prefers tea", "prefers green tea")
    assert editing.dirty(draft)
    assert editing.open("ops/deploys.md", draft, jump=False) == "ask"  # the draft is not dropped silently
    assert editing.open("core.md", draft, jump=True) == "go-to"  # a link into the draft moves within it
    assert not editing.accepts("ops/deploys.md", draft) and editing.accepts("core.md", draft)
    assert editing.discarded() == text

    outcome, result = save(state, editing, draft)
    assert outcome == "installed" and not editing.saving
    assert editing.base == Workspace(state).read_topic("core.md") and "green tea" in editing.base
    assert not editing.dirty(editing.base) and editing.diagnostics == []


def test_a_rejection_keeps_the_draft_and_lists_the_lines_to_fix(state: Path) -> None:
    editing, text = opened(state, "infra/build-cache.md")
    ids = [b.block_id for b in Workspace(state).topic("infra/build-cache.md").blocks]
    draft = text.replace(f" ^{ids[0]}", "").replace(f" ^{ids[2]}", "")  # two block ids dropped
    then = []
    editing.after_save = lambda: then.append("left")
    outcome, result = save(state, editing, draft)
    assert outcome == "rejected" and editing.take_after_save() is None and then == []  # no leaving after a rejection
    assert editing.dirty(draft) and editing.base == text  # nothing written, the draft kept
    lines = editing.problem_lines()
    assert lines == [5, 9]  # the two paragraphs; core.md's broken link to one of them is not a line here
    assert [d.file for d in editing.diagnostics] == ["topics/core.md"] + ["topics/infra/build-cache.md"] * 2
    assert editing.next_problem(0) == lines[0] and editing.next_problem(lines[0]) == lines[1]
    assert editing.next_problem(lines[1]) == lines[0]  # wraps around
    editing.opened("infra/build-cache.md", text)  # reading the file again clears them
    assert editing.problem_lines() == [] and editing.next_problem(1) is None


def test_a_conflict_is_kept_until_the_draft_is_rebased_on_the_disk(state: Path) -> None:
    editing, text = opened(state, "core.md")
    workspace = Workspace(state)
    theirs = text.replace("Deploy only", "Ship only")
    assert model.save(state, "core.md", theirs, text)[0].outcome == "installed"  # someone else saved
    draft = text.replace("prefers tea", "prefers coffee")
    assert editing.disk_changed(frozenset({"core.md"}), draft) == "keep-draft" and editing.changed_on_disk
    outcome, _ = save(state, editing, draft)
    assert outcome == "conflict" and editing.changed_on_disk and editing.dirty(draft)
    assert workspace.read_topic("core.md") == theirs  # nothing overwritten

    assert editing.kept_over("core.md", workspace.read_topic("core.md")) and not editing.changed_on_disk
    outcome, _ = save(state, editing, draft)
    assert outcome == "installed" and "prefers coffee" in workspace.read_topic("core.md")


def test_a_change_on_disk_without_a_draft_reloads_and_elsewhere_refreshes(state: Path) -> None:
    editing, text = opened(state, "core.md")
    assert editing.disk_changed(frozenset({"core.md"}), text) == "reload" and not editing.changed_on_disk
    assert editing.disk_changed(frozenset({"ops/deploys.md"}), text + "x") == "elsewhere"


def test_retiring_needs_a_clean_editor_and_keeps_the_text_it_did_not_touch(state: Path) -> None:
    editing, text = opened(state, "infra/build-cache.md")
    assert not editing.begin_retire(text + "draft\n")
    assert editing.begin_retire(text) and editing.saving
    block = Workspace(state).topic("infra/build-cache.md").blocks[1].block_id
    result, error = model.retire(state, "infra/build-cache.md", block, "no longer true")
    assert error == "" and editing.finished("infra/build-cache.md", text, result, "retire") == "installed"
    assert block not in editing.base and editing.base == Workspace(state).read_topic("infra/build-cache.md")
    assert not editing.saving and not editing.dirty(editing.base)


def test_a_transaction_that_cannot_run_fails_and_forgets_what_was_next(tmp_path: Path) -> None:
    editing = TopicEditing()
    editing.opened("notes.md", None)  # a new topic
    assert editing.dirty("# Notes\n") and not editing.dirty("")
    editing.after_save = lambda: None
    assert editing.begin_save("# Notes\n") == "save"
    assert editing.finished("notes.md", "# Notes\n", None, "save") == "failed"
    assert not editing.saving and editing.take_after_save() is None and editing.base is None
