"""Reverting a commit: a new `revert` transaction that undoes the commit's topic changes,
keeps later changes, and is rejected (changing nothing) when it would break later memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.cli import main
from scriptorium.core.memory import LockBusy, Workspace, retire_block, save_topic
from scriptorium.core.memory.revert import RevertError, revert_commit

from .support import Seeded, git, git_agrees, snapshot


def head(ws: Workspace) -> str:
    return git(ws, "rev-parse", "HEAD").strip()


def edit(ws: Workspace, topic: str, old: str, new: str) -> str:
    result = save_topic(ws, topic, ws.read_topic(topic).replace(old, new))
    assert result.outcome == "installed" and result.commit, result.diagnostics
    return result.commit


def test_reverting_an_edit_restores_the_text_as_a_new_commit(seeded: Seeded) -> None:
    ws = seeded.ws
    original = ws.read_topic("people/ada.md")
    edited = edit(ws, "people/ada.md", "green tea", "rooibos")
    result = revert_commit(ws, edited)
    assert result.outcome == "installed" and result.kind == "revert"
    assert result.changed_topics == ["topics/people/ada.md"] and result.retired == []
    assert ws.read_topic("people/ada.md") == original
    assert git(ws, "rev-parse", "HEAD~1").strip() == edited and head(ws) == result.commit  # a new commit on top
    assert git(ws, "log", "-1", "--format=%s").startswith(f"revert: undo {edited[:12]} (edit: ")
    record = ws.audit_log()[0]
    assert record["kind"] == "revert" and record["commit"] == result.commit
    assert git_agrees(ws)


def test_reverting_a_write_retires_the_blocks_it_created(seeded: Seeded) -> None:
    ws = seeded.ws
    second = head(ws)  # the write that created projects/cache.md (linking into ada.md) and the core
    result = revert_commit(ws, second)
    assert result.outcome == "installed", result.diagnostics
    assert ws.read_topic("projects/cache.md") is None and ws.read_topic("core.md") is None
    retired = {r["id"]: r["reason"] for r in result.retired}
    assert seeded.cache in retired and retired[seeded.cache] == f"reverted with commit {second[:12]}"
    assert len(retired) == 2  # the cache block and the core's block
    assert [p.block_id for p in ws.topic("people/ada.md").blocks] == seeded.ada  # the earlier write stays


def test_a_retired_block_comes_back_under_a_new_id(seeded: Seeded) -> None:
    ws = seeded.ws
    text = ws.read_topic("projects/cache.md")
    retired = retire_block(ws, "projects/cache.md", seeded.cache, "stale")
    assert retired.outcome == "installed" and ws.read_topic("projects/cache.md") is None
    result = revert_commit(ws, retired.commit)
    assert result.outcome == "installed", result.diagnostics
    [block] = ws.topic("projects/cache.md").blocks
    assert block.content == f"The cache is sized by [Ada](../people/ada.md#^{seeded.ada[1]})."
    assert block.block_id != seeded.cache and result.created_blocks == [block.block_id]  # ids are never reused
    assert ws.read_topic("projects/cache.md") == text.replace(seeded.cache, block.block_id)


def test_later_changes_elsewhere_in_the_file_survive(seeded: Seeded) -> None:
    ws = seeded.ws
    first = edit(ws, "people/ada.md", "green tea", "rooibos")
    edit(ws, "people/ada.md", "maintains the build cache", "owns the build cache")
    assert revert_commit(ws, first).outcome == "installed"
    text = ws.read_topic("people/ada.md")
    assert "green tea" in text and "rooibos" not in text and "owns the build cache" in text


def test_a_revert_that_removes_a_block_a_later_block_links_to_is_rejected(seeded: Seeded) -> None:
    ws = seeded.ws
    first = git(ws, "rev-parse", "HEAD~1").strip()  # created ada's blocks; a later block links to ada[1]
    before = snapshot(ws)
    result = revert_commit(ws, first)
    assert result.outcome == "rejected" and result.commit is None
    rules = {(d.rule, d.file, d.block_id) for d in result.diagnostics}
    assert ("link-resolves", "topics/projects/cache.md", seeded.ada[1]) in rules  # the link into what goes
    assert snapshot(ws) == before  # not a byte changed, no commit


def test_overlapping_later_changes_are_a_conflict_at_the_current_line(seeded: Seeded) -> None:
    ws = seeded.ws
    first = edit(ws, "people/ada.md", "green tea", "rooibos")
    edit(ws, "people/ada.md", "likes rooibos", "likes rooibos with honey")
    before = snapshot(ws)
    result = revert_commit(ws, first)
    assert result.outcome == "rejected"
    [d] = result.diagnostics
    lines = ws.read_topic("people/ada.md").split("\n")
    assert (d.rule, d.file, d.block_id) == ("conflict", "topics/people/ada.md", seeded.ada[0])
    assert "with honey" in lines[d.line - 1] and first[:12] in d.message and d.hint
    assert snapshot(ws) == before


def test_what_cannot_be_reverted_says_why(seeded: Seeded) -> None:
    ws = seeded.ws
    with pytest.raises(RevertError, match="no such commit"):
        revert_commit(ws, "0" * 40)
    root = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    with pytest.raises(RevertError, match="first commit"):
        revert_commit(ws, root)
    edited = edit(ws, "people/ada.md", "green tea", "rooibos")
    assert revert_commit(ws, edited).outcome == "installed"
    with pytest.raises(RevertError, match="already undone"):
        revert_commit(ws, edited)


def run(capsys: pytest.CaptureFixture[str], state: Path, *args: str) -> tuple[int, object, str]:
    code = main(["--state", str(state), *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def test_cli_shape_and_exit_codes(seeded: Seeded, capsys: pytest.CaptureFixture[str]) -> None:
    ws = seeded.ws
    state = ws.state_dir
    edited = edit(ws, "people/ada.md", "green tea", "rooibos")
    code, doc, _ = run(capsys, state, "revert", edited[:10], "--json")
    assert code == 0 and set(doc) == {"outcome", "commit", "changed_files", "diagnostics", "redactions"}
    assert doc["outcome"] == "installed" and doc["commit"] == head(ws)
    assert "topics/people/ada.md" in doc["changed_files"]

    code, doc, _ = run(capsys, state, "revert", git(ws, "rev-parse", "HEAD~3").strip(), "--json")
    assert code == 1 and doc["outcome"] == "rejected" and doc["commit"] is None
    assert {d["rule"] for d in doc["diagnostics"]} == {"link-resolves"}

    code, doc, err = run(capsys, state, "revert", "nonsense", "--json")
    assert code == 1 and doc["outcome"] == "permanent" and "no such commit" in err  # the failure document

    with ws.lock(0):
        code, doc, err = run(capsys, state, "revert", edited, "--json")
    assert code == 75 and doc["outcome"] == "retryable" and doc["code"] == "CONCURRENT_UPDATE" and err.strip()
    with ws.lock(0), pytest.raises(LockBusy):
        revert_commit(ws, edited, lock_timeout=0)
