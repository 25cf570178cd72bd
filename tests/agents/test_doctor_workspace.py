"""`doctor` validates memory as a whole (issue 28, item 6): every topic parses, ids are
unique, links and citations resolve — the check a purge makes afterwards (memory/check.py)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from scriptorium.core.cli import main


@pytest.fixture
def state(tmp_path, monkeypatch):
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no agent of this machine's user
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "SCRIPTORIUM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "state"


def doctor(state, capsys) -> tuple[int, dict, str]:
    code = main(["--state", str(state), "doctor", "--no-model-call", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert main(["--state", str(state), "doctor", "--no-model-call"]) == code
    return code, doc, capsys.readouterr().out


def save(state, tmp_path, name: str, text: str) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(text, encoding="utf-8")
    assert main(["--state", str(state), "topic", "save", name, "--from", str(draft)]) == 0


def commit_by_hand(state, name: str, edit) -> None:
    topic = state / "memory" / "topics" / name
    topic.write_text(edit(topic.read_text(encoding="utf-8")), encoding="utf-8")
    subprocess.run(["git", "-C", str(state / "memory"), "commit", "-qam", "a hand edit"], check=True)


def test_doctor_says_unhealthy_when_a_topic_no_longer_parses_or_a_link_dangles(state, tmp_path, capsys) -> None:
    """Before: a topic whose block id was rewritten (what a purge of an id did), or a link to
    a block no topic holds, left doctor healthy, exit 0."""
    save(state, tmp_path, "vault.md", "# Vault\n\nThe vault opens at nine.\n")
    bid = re.search(r" \^([0-9a-f]{8})$", (state / "memory" / "topics" / "vault.md").read_text(), re.M).group(1)
    save(state, tmp_path, "ops.md", f"# Ops\n\nSee [the vault](vault.md#^{bid}) first.\n")
    capsys.readouterr()
    code, doc, out = doctor(state, capsys)
    memory = next(c for c in doc["checks"] if c["name"] == "memory")
    assert code == 0 and doc["healthy"] and memory["ok"] and "memory ok" in out

    commit_by_hand(state, "vault.md", lambda t: t.replace(f"^{bid}", "^[REDACTED:purged:0badf00d]"))
    code, doc, out = doctor(state, capsys)
    memory = next(c for c in doc["checks"] if c["name"] == "memory")
    assert code == 1 and not doc["healthy"] and not memory["ok"]
    assert any(p.startswith("topics/vault.md:3:") for p in memory["problems"])
    assert any("dangling link" in p and p.startswith("topics/ops.md") for p in memory["problems"])
    assert "memory FAIL" in out and "topics/vault.md:3" in out and any(p.startswith("memory: ") for p in doc["problems"])


def test_doctor_stays_healthy_after_syncs_pull_and_merge(state, tmp_path, capsys) -> None:
    """The workspace check's 'HEAD is the newest audited commit' held after every sync's
    pull or merge: sync audits commits its merge replaces, and a pull moves HEAD past the
    audited ones. HEAD must hold the newest audited commit of a local change."""
    from scriptorium.core.memory import Workspace
    from scriptorium.core.sync.remote import add_remote
    from scriptorium.core.sync.run import sync

    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    other = tmp_path / "other"
    for s in (state, other):
        add_remote(Workspace.open(s).root, "origin", str(bare))
    save(other, tmp_path, "x.md", "# X\n\nAlpha ships on Mondays.\n")
    assert sync(other).code == "PUSHED"
    assert sync(state).code == "PULLED"
    save(state, tmp_path, "y.md", "# Y\n\nBeta ships on Tuesdays.\n")
    assert sync(state).code == "PUSHED"
    save(other, tmp_path, "z.md", "# Z\n\nGamma ships on Fridays.\n")
    assert sync(other).code == "MERGED"
    assert sync(state).code == "PULLED"
    for s in (state, other):
        capsys.readouterr()
        code, doc, _ = doctor(s, capsys)
        memory = next(c for c in doc["checks"] if c["name"] == "memory")
        assert memory["ok"] and code == 0, memory


def test_an_edit_in_progress_is_named_but_not_a_problem(state, tmp_path, capsys) -> None:
    """Before: a topic changed in an editor and not yet saved (a new line has no block id
    until it is saved) made doctor unhealthy, exit 1: 'git disagrees with the files'. It is
    a person's work in progress: named, checked when saved; broken installed memory is
    still a problem beside it."""
    save(state, tmp_path, "ops.md", "# Ops\n\nThe rack is in the basement.\n")
    save(state, tmp_path, "keys.md", "# Keys\n\nThe spare key hangs by the door.\n")
    topics = state / "memory" / "topics"
    (topics / "ops.md").write_text((topics / "ops.md").read_text() + "\nA line typed by hand.\n")
    (topics / "new.md").write_text("# New\n\nA topic started in an editor.\n")
    capsys.readouterr()
    code, doc, out = doctor(state, capsys)
    memory = next(c for c in doc["checks"] if c["name"] == "memory")
    assert code == 0 and memory["ok"], doc
    assert sorted(memory["edits_in_progress"]) == ["topics/new.md", "topics/ops.md"]
    assert "edits in progress" in out and "topics/ops.md" in out

    commit_by_hand(state, "keys.md", lambda text: text.replace(" ^", " ^^"))  # installed memory broken
    code, doc, _ = doctor(state, capsys)
    memory = next(c for c in doc["checks"] if c["name"] == "memory")
    assert code == 1 and not memory["ok"] and any("keys.md" in p for p in memory["problems"]), doc
