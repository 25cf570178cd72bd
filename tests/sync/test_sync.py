"""Sync between machines through real git remotes (bare repositories on disk)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from scriptorium.core.memory import Transaction, Workspace, install
from scriptorium.core.memory import save_topic
from scriptorium.core.sync.conflicts import list_conflicts, resolve_conflict
from scriptorium.core.sync.remote import add_remote
from scriptorium.core.sync.run import sync


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture()
def bare(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def machine(tmp_path: Path, name: str, bare: Path) -> Path:
    state = tmp_path / name
    ws = Workspace.open(state)
    add_remote(ws.root, "origin", str(bare))
    return state


def topics(state: Path) -> dict[str, str]:
    ws = Workspace(state)
    return {rel: ws.read_topic(rel) for rel in ws.topic_paths()}


def block_id(state: Path, topic: str, words: str) -> str:
    doc = Workspace(state).topic(topic)
    return next(p.block_id for p in doc.paragraphs if words in p.text)


def edit(state: Path, topic: str, old: str, new: str) -> None:
    ws = Workspace.open(state)
    result = save_topic(ws, topic, ws.read_topic(topic).replace(old, new))
    assert result.outcome == "installed", result.diagnostics


def validates(state: Path) -> bool:
    """Every topic, re-judged from scratch, passes the transaction's rules."""
    ws = Workspace.open(state)
    with Transaction(ws, "edit", "check") as txn:
        for rel in ws.topic_paths():
            txn.write_topic(rel, ws.read_topic(rel) + "\n")
        return txn.check().outcome != "rejected"


@pytest.fixture()
def pair(tmp_path: Path, bare: Path) -> tuple[Path, Path]:
    a = machine(tmp_path, "a", bare)
    assert save_topic(Workspace.open(a), "people/ada.md",
                      "# Ada\n\nAda likes tea.\n\nAda lives in Paris.\n\nAda has a cat.\n").outcome == "installed"
    first = sync(a)
    assert (first.outcome, first.code, first.pushed) == ("ok", "PUSHED", True)
    b = machine(tmp_path, "b", bare)
    adopted = sync(b)
    assert adopted.outcome == "ok", adopted.message
    assert topics(b) == topics(a)
    return a, b


def test_a_sync_leaves_a_staged_hand_edit_and_stray_files_out_of_what_travels(pair):
    """Issue 19, item 4: the merge's install commits its own paths only, so a person's
    staged, unvalidated edit and a stray file are neither committed nor pushed."""
    a, b = pair
    assert save_topic(Workspace.open(a), "people/bob.md", "# Bob\n\nBob likes coffee.\n").outcome == "installed"
    assert sync(a).pushed
    ws = Workspace.open(b)
    ada = ws.topics / "people" / "ada.md"
    ada.write_text(ada.read_text().replace("Paris", "Lyon"))
    git(ws.root, "add", "topics/people/ada.md")
    (ws.topics / "notes.txt").write_text("a stray file\n")
    result = sync(b)
    assert result.outcome == "ok", result.message
    assert "people/bob.md" in topics(b)
    assert git(ws.root, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        "M  topics/people/ada.md", "?? topics/notes.txt"]
    remote = git(ws.root, "ls-tree", "-r", "--name-only", "refs/remotes/origin/main").split()
    assert "topics/notes.txt" not in remote and "Lyon" not in git(ws.root, "show", "origin/main:topics/people/ada.md")
    assert "Lyon" not in git(ws.root, "show", "HEAD:topics/people/ada.md")


def test_a_fresh_machine_adopts_the_remote_memory_and_keeps_its_own_workspace_id(pair):
    a, b = pair
    assert Workspace(a).id != Workspace(b).id
    assert validates(b)
    assert (Workspace(b).root / "core.md").exists() == (Workspace(a).root / "core.md").exists()


def test_edits_of_different_blocks_and_new_topics_meet_on_both_machines(pair):
    a, b = pair
    edit(a, "people/ada.md", "Ada likes tea.", "Ada likes green tea.")
    assert save_topic(Workspace.open(a), "people/bob.md", "# Bob\n\nBob plays chess.\n").outcome == "installed"
    edit(b, "people/ada.md", "Ada lives in Paris.", "Ada lives in Lyon.")
    assert save_topic(Workspace.open(b), "places/lyon.md", "# Lyon\n\nLyon is on the Rhone.\n").outcome == "installed"
    assert sync(a).outcome == "ok"
    merged = sync(b)
    assert (merged.outcome, merged.conflicts) == ("ok", []), merged.message
    again = sync(a)
    assert again.outcome == "ok", again.message
    ta, tb = topics(a), topics(b)
    assert ta == tb
    ada = ta["people/ada.md"]
    assert "Ada likes green tea." in ada and "Ada lives in Lyon." in ada and "Ada has a cat." in ada
    assert set(ta) >= {"people/ada.md", "people/bob.md", "places/lyon.md"}
    assert validates(a) and validates(b)
    assert sync(b).code in ("UP_TO_DATE", "MERGED", "PUSHED")
    assert sync(a).code == "UP_TO_DATE" and sync(b).code == "UP_TO_DATE"  # converged: no endless merges


def test_the_same_block_edited_on_both_keeps_both_texts_until_a_person_resolves_it(pair):
    a, b = pair
    bid = block_id(a, "people/ada.md", "Ada likes tea.")
    edit(a, "people/ada.md", "Ada likes tea.", "Ada likes green tea.")
    edit(b, "people/ada.md", "Ada likes tea.", "Ada likes black tea.")
    assert sync(a).outcome == "ok"
    result = sync(b)
    assert result.outcome == "ok" and [c["block_id"] for c in result.conflicts] == [bid]
    ada = topics(b)["people/ada.md"]
    assert "Ada likes black tea." in ada and "Ada likes green tea." in ada
    listed = list_conflicts(b)
    assert [(c.block_id, c.local, c.incoming) for c in listed] == [(bid, "Ada likes black tea.", "Ada likes green tea.")]
    assert validates(b)
    resolved = resolve_conflict(b, bid, keep="incoming")
    assert resolved.outcome == "installed", resolved.diagnostics
    ada = topics(b)["people/ada.md"]
    assert "Ada likes green tea." in ada and "black tea" not in ada and "Sync conflict" not in ada
    assert block_id(b, "people/ada.md", "green tea") == bid  # the block keeps its identity
    assert list_conflicts(b) == []
    assert sync(b).outcome == "ok" and sync(a).outcome == "ok"
    assert topics(a) == topics(b) and list_conflicts(a) == []


@pytest.mark.parametrize("keep,expect", [("local", ["black"]), ("both", ["black", "green"])])
def test_keeping_the_local_text_or_both(pair, keep, expect):
    a, b = pair
    bid = block_id(a, "people/ada.md", "Ada likes tea.")
    edit(a, "people/ada.md", "Ada likes tea.", "Ada likes green tea.")
    edit(b, "people/ada.md", "Ada likes tea.", "Ada likes black tea.")
    sync(a)
    sync(b)
    assert resolve_conflict(b, bid, keep=keep).outcome == "installed"
    ada = topics(b)["people/ada.md"]
    assert [w for w in ("black", "green") if f"Ada likes {w} tea." in ada] == expect
    assert "Sync conflict" not in ada and list_conflicts(b) == [] and validates(b)


def test_an_incoming_commit_with_a_dangling_link_is_refused_and_nothing_changes_here(pair, tmp_path):
    a, b = pair
    # a third party pushes a topic that links to a block that does not exist
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(tmp_path / "remote.git"), str(clone)], check=True)
    ada = (clone / "topics/people/ada.md").read_text()
    bid = block_id(a, "people/ada.md", "Ada has a cat.")
    (clone / "topics/people/ada.md").write_text(ada.replace("Ada has a cat.", "Ada has a cat, see [x](bob.md#^deadbeef)."))
    git(clone, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "forged")
    git(clone, "push", "-q", "origin", "HEAD:main")
    before, head = topics(b), git(Workspace(b).root, "rev-parse", "HEAD")
    result = sync(b)
    assert (result.outcome, result.code, result.exit_code) == ("permanent", "SYNC_REJECTED", 1)
    assert result.diagnostics and any("deadbeef" in str(d) or "link" in str(d).lower() for d in result.diagnostics)
    assert topics(b) == before and git(Workspace(b).root, "rev-parse", "HEAD") == head
    assert bid in topics(b)["people/ada.md"]


def test_a_rewritten_evidence_record_is_refused(pair, tmp_path):
    a, b = pair
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(tmp_path / "remote.git"), str(clone)], check=True)
    archive = next(clone.glob("sources/**/*.md"))
    archive.write_text(archive.read_text().replace("Ada likes tea.", "Ada likes coffee."))
    git(clone, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "forged evidence")
    git(clone, "push", "-q", "origin", "HEAD:main")
    before = topics(b)
    result = sync(b)
    assert result.outcome == "permanent" and result.diagnostics
    assert topics(b) == before


def test_an_unreachable_remote_is_retryable_and_changes_nothing(tmp_path):
    gone = tmp_path / "unmounted.git"  # there when added (remote add refuses a missing path), gone at sync
    subprocess.run(["git", "init", "-q", "--bare", str(gone)], check=True)
    state = machine(tmp_path, "a", gone)
    shutil.rmtree(gone)
    save_topic(Workspace.open(state), "ada.md", "# Ada\n\nAda likes tea.\n")
    before = git(Workspace(state).root, "rev-parse", "HEAD")
    result = sync(state)
    assert (result.outcome, result.exit_code, result.code) == ("retryable", 75, "REMOTE_UNREACHABLE")
    assert git(Workspace(state).root, "rev-parse", "HEAD") == before


class Crash(BaseException):  # a kill: nothing catches it
    pass


@pytest.mark.parametrize("step", ["sync-fetched", "journal", "committed", "sync-installed"])
def test_a_crash_at_any_step_leaves_both_sides_valid_and_a_later_sync_completes(pair, monkeypatch, step):
    a, b = pair
    edit(a, "people/ada.md", "Ada likes tea.", "Ada likes green tea.")
    edit(b, "people/ada.md", "Ada has a cat.", "Ada has two cats.")
    assert sync(a).outcome == "ok"

    def hook(name: str) -> None:
        if name == step:
            raise Crash(name)

    monkeypatch.setattr(install, "crash_hook", hook)
    with pytest.raises(Crash):
        sync(b)
    monkeypatch.setattr(install, "crash_hook", None)
    assert validates(b) and validates(a)
    assert sync(b).outcome == "ok" and sync(a).outcome == "ok"
    assert topics(a) == topics(b)
    ada = topics(a)["people/ada.md"]
    assert "green tea" in ada and "two cats" in ada


def test_two_machines_syncing_in_turn_after_concurrent_pushes_end_with_the_same_memory(pair):
    a, b = pair
    for i in range(3):
        edit(a, "people/ada.md", "Ada likes tea." if i == 0 else f"Ada likes tea {i - 1}.", f"Ada likes tea {i}.")
        edit(b, "people/ada.md", "Ada lives in Paris." if i == 0 else f"Ada lives in Paris {i - 1}.",
             f"Ada lives in Paris {i}.")
        sync(a)
        sync(b)
    sync(a)
    assert topics(a) == topics(b)
    assert "Ada likes tea 2." in topics(a)["people/ada.md"] and "Paris 2." in topics(a)["people/ada.md"]
