"""The memory history read back from git (`memory.log`): commits, one commit's changes, one
block's history — and `scriptorium log --block`, which reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.cli import main
from scriptorium.core.memory import Workspace, retire_block, save_topic
from scriptorium.core.memory.log import block_history, commit_changes, commit_diff, commits

from .support import Seeded, git


def edit_tea(ws: Workspace) -> str:
    text = ws.read_topic("people/ada.md")
    result = save_topic(ws, "people/ada.md", text.replace("green tea", "rooibos"), base=text)
    assert result.outcome == "installed", result.diagnostics
    return result.commit


def test_commits_newest_first_with_kind_summary_and_files(seeded: Seeded) -> None:
    ws = seeded.ws
    sha = edit_tea(ws)
    rows = commits(ws.root, 10)
    assert [r.sha for r in rows] == git(ws, "log", "--format=%H").split()
    assert rows[0].sha == sha and rows[0].kind == "edit" and rows[0].topic_files == ["topics/people/ada.md"]
    assert [(r.kind, r.summary) for r in rows[1:3]] == [("write", "seed links"), ("write", "seed")]
    assert rows[-1].kind == "" and rows[-1].summary == "memory: initialize history"  # not a transaction
    assert len(commits(ws.root, 2)) == 2


def test_one_commits_changes(seeded: Seeded) -> None:
    ws = seeded.ws
    sha = edit_tea(ws)
    changes = commit_changes(ws.root, sha)
    assert changes is not None and changes.has_parent
    assert "-Ada likes green tea." in changes.diff and "+Ada likes rooibos." in changes.diff
    assert changes.diff == commit_diff(ws.root, sha)
    assert ("topics/people/ada.md", 1, 1) in changes.stats
    first = commits(ws.root, 100)[-1]
    assert not commit_changes(ws.root, first.sha).has_parent


def test_a_blocks_history_names_each_change_and_skips_the_rest(seeded: Seeded) -> None:
    ws = seeded.ws
    tea = seeded.ada[0]
    edited = edit_tea(ws)
    cache = ws.read_topic("projects/cache.md")
    assert save_topic(ws, "projects/cache.md", cache.replace("sized by", "sized, as ever, by"),
                      base=cache).outcome == "installed"  # another block: not in tea's history
    retired = retire_block(ws, "people/ada.md", tea, "tastes change")
    assert retired.outcome == "installed", retired.diagnostics
    history = block_history(ws.root, tea)
    assert [(h.change, h.path) for h in history] == [
        ("removed", None), ("edited", "people/ada.md"), ("created", "people/ada.md")]
    assert [h.commit for h in history[:2]] == [retired.commit, edited]
    assert history[0].summary.startswith("edit: retire ^")
    assert block_history(ws.root, tea, limit=1) == history[:1]


def test_no_history_without_a_repository_and_nothing_created(tmp_path: Path) -> None:
    root = tmp_path / "state" / "memory"
    assert commits(root, 10) == [] and block_history(root, "abcd1234") == []
    assert commit_changes(root, "HEAD") is None and commit_diff(root, "HEAD") == ""
    assert not (tmp_path / "state").exists()


def test_log_block_json_and_text(seeded: Seeded, capsys: pytest.CaptureFixture[str]) -> None:
    ws = seeded.ws
    state = str(ws.state_dir)
    edited = edit_tea(ws)
    assert main(["--state", state, "log", "--block", seeded.ada[0], "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [set(d) for d in doc] == [{"commit", "at", "summary", "change", "path"}] * 2
    assert [(d["change"], d["commit"]) for d in doc][0] == ("edited", edited)
    assert doc[1]["change"] == "created" and doc[1]["path"] == "people/ada.md" and doc[0]["at"].endswith("+00:00")
    assert main(["--state", state, "log", "--block", "^" + seeded.ada[0], "--limit", "1"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert "edited" in line and edited[:8] in line and "people/ada.md" in line
    assert main(["--state", state, "log", "--block", "ffffffff", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


class _Killed(BaseException):
    """A process killed mid-install: nothing after the crash point runs."""


def _kill_between_commit_and_audit(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> str:
    from scriptorium.core.memory import install

    def hook(step: str) -> None:
        if step == "committed":
            raise _Killed(step)

    monkeypatch.setattr(install, "crash_hook", hook)
    text = ws.read_topic("people/ada.md")
    with pytest.raises(_Killed):
        save_topic(ws, "people/ada.md", text.replace("green tea", "rooibos"), base=text)
    monkeypatch.setattr(install, "crash_hook", None)
    sha = git(ws, "rev-parse", "HEAD").strip()
    assert (ws.runtime / install.JOURNAL).exists() and all(r.get("commit") != sha for r in ws.audit_log())
    return sha


def test_log_reads_the_audit_of_an_install_a_crash_left_unfinished(
        seeded: Seeded, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    sha = _kill_between_commit_and_audit(seeded.ws, monkeypatch)
    assert main(["--state", str(seeded.ws.state_dir), "log", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["commit"] == sha and records[0]["kind"] == "edit"


def test_the_history_screen_finds_the_audit_of_an_install_a_crash_left_unfinished(
        seeded: Seeded, monkeypatch: pytest.MonkeyPatch) -> None:
    from scriptorium.tui.history.model import list_commits, load_commit

    sha = _kill_between_commit_and_audit(seeded.ws, monkeypatch)
    row = next(r for r in list_commits(seeded.ws.state_dir) if r.sha == sha)
    detail = load_commit(seeded.ws.state_dir, row)
    assert detail.audit is not None and detail.audit["kind"] == "edit"
