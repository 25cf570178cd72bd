"""The Topics screen's model, without the app: a block's history from the workspace's git."""

from __future__ import annotations

from pathlib import Path

import git

from scriptorium.core.memory import Transaction, retire_block
from scriptorium.tui.topics.model import block_history, list_topics

from .conftest import fix_workspace_id
from .topics_support import build_topics


def test_history_names_each_change_to_a_block_and_skips_the_rest(tmp_path: Path) -> None:
    state = tmp_path / "state"
    fix_workspace_id(state)
    workspace = build_topics(state)
    deploys = workspace.topic("ops/deploys.md")
    block = deploys.blocks[0]
    definition = deploys.lines[deploys.definition_list[0].index]
    # move the block into core.md (one transaction: it leaves one file and lands in the other)
    with Transaction(workspace, "edit", "move the Friday rule into the core") as txn:
        core = txn.read_topic("core.md")
        txn.write_topic("core.md", core.replace("\n\n[^", f"\n\n{block.text}\n\n[^", 1) + definition.replace(
            "../../sources", "../sources") + "\n")
        txn.write_topic("ops/deploys.md", "# Deploys\n")
        moved = txn.commit()
    assert moved.outcome == "installed", moved.diagnostics
    # an unrelated edit does not appear in its history
    cache = workspace.read_topic("infra/build-cache.md").replace("50 GB", "60 GB")
    with Transaction(workspace, "edit", "resize the cache") as txn:
        txn.write_topic("infra/build-cache.md", cache)
        assert txn.commit().outcome == "installed"
    retired = retire_block(workspace, "core.md", block.block_id, "superseded by the release calendar")
    assert retired.outcome == "installed", retired.diagnostics

    history = block_history(state, block.block_id)
    assert [(h.change, h.path) for h in history] == [
        ("removed", None), ("moved", "core.md"), ("created", "ops/deploys.md")]
    repo = git.Repo(state / "memory")
    assert [h.commit for h in history] == [retired.commit, moved.commit, repo.commit("HEAD~4").hexsha]  # the first write
    assert history[0].summary.startswith("edit: retire ^")


def test_listing_counts_blocks_marks_the_core_and_collects_backlinks(tmp_path: Path) -> None:
    state = tmp_path / "state"
    fix_workspace_id(state)
    workspace = build_topics(state)
    listing = list_topics(state)
    assert [(t.path, t.blocks, t.is_core) for t in listing.topics] == [
        ("core.md", 2, True), ("infra/build-cache.md", 3, False), ("ops/deploys.md", 1, False)]
    target = workspace.topic("infra/build-cache.md").blocks[0].block_id
    core_block = workspace.topic("core.md").blocks[0]
    assert [(b.path, b.line, b.block_id) for b in listing.backlinks[target]] == [
        ("core.md", core_block.line, core_block.block_id)]


def test_a_state_without_memory_lists_nothing_and_creates_nothing(tmp_path: Path) -> None:
    assert list_topics(tmp_path / "fresh").topics == []
    assert block_history(tmp_path / "fresh", "abcd1234") == []
    assert not (tmp_path / "fresh").exists()
