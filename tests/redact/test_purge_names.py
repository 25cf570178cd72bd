"""Purge of a text that is in a topic's file name (issue 28, item 5), and of a pattern that
matches an id (item 6): the name is renamed everywhere — the work tree, every commit's
tree objects, the links to it (percent-quoted or not), the derived views — or the purge
says what it left and exits 1; an id is never rewritten."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from scriptorium.core.cli import main
from scriptorium.core.purge.scrub import purge_tag

SECRET = "zorbleflux9431"
WIDE = "пароль7731"  # a non-ASCII secret: UTF-8 in trees, percent-quoted in links


@pytest.fixture()
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    state = tmp_path / "state"
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # doctor reads the agents' configurations there
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "SCRIPTORIUM_MODEL"):
        monkeypatch.delenv(name, raising=False)

    def cli(*args: str) -> tuple[int, Any, str]:
        code = main(["--state", str(state), *args])
        captured = capsys.readouterr()
        try:
            doc = json.loads(captured.out)
        except ValueError:
            doc = None
        return code, doc, captured.out + captured.err

    cli.state = state  # type: ignore[attr-defined]
    return cli


def name_placeholder(secret: str) -> str:
    """What a renamed file's name holds instead of the secret (the same on every machine)."""
    return f"REDACTED-purged-{purge_tag(secret)}"


def save(run, tmp_path: Path, name: str, text: str) -> None:
    source = tmp_path / "draft.md"
    source.write_text(text, encoding="utf-8")
    code, doc, out = run("topic", "save", name, "--from", str(source), "--json")
    assert code == 0 and doc["outcome"] == "installed", out


def block_id(state: Path, name: str) -> str:
    """The id of the topic's first block (its suffix, not a link's)."""
    text = (state / "memory" / "topics" / name).read_text(encoding="utf-8")
    return re.search(r" \^([0-9a-f]{8})$", text, re.M).group(1)


def everything(state: Path) -> bytes:
    """Every file's name and bytes, every object of every git repository (tree objects hold
    the names), every commit message."""
    chunks = [str(p.relative_to(state)).encode() for p in sorted(state.rglob("*"))]
    chunks += [p.read_bytes() for p in sorted(state.rglob("*")) if p.is_file() and not p.is_symlink()]
    for git_dir in sorted(state.rglob(".git")):
        repo = str(git_dir.parent)
        chunks.append(subprocess.run(["git", "-C", repo, "cat-file", "--batch-all-objects", "--batch"],
                                     capture_output=True, check=True).stdout)
        chunks.append(subprocess.run(["git", "-C", repo, "log", "--all", "--format=%B", "--name-only"],
                                     capture_output=True, check=True).stdout)
    return b"\n".join(chunks)


def forms(secret: str) -> list[bytes]:
    return [secret.encode(), urllib.parse.quote(secret).encode()]


def healthy(run) -> list[str]:
    """What doctor finds wrong with memory ([] = healthy, exit 0)."""
    code, doc, _ = run("doctor", "--no-model-call", "--json")
    memory = next(c for c in doc["checks"] if c["name"] == "memory")
    problems = memory.get("problems", [])
    assert memory["ok"] == (not problems) and (code == 0) == doc["healthy"] == (not problems), doc
    return problems


def test_a_topic_named_with_the_secret_is_renamed_in_every_commit_and_every_link(run, tmp_path) -> None:
    """Before: the file kept its name (`topics/keys/vault-S.md`) in the work tree and in every
    tree object, yet purge reported done with no problems (or a dangling link, when its
    link was rewritten and the file was not)."""
    state: Path = run.state
    save(run, tmp_path, f"keys/vault-{SECRET}.md", "# Vault\n\nThe vault opens at nine.\n")
    save(run, tmp_path, f"keys/ключ-{WIDE}.md", "# Ключ\n\nThe spare key hangs by the door.\n")
    vault, key = block_id(state, f"keys/vault-{SECRET}.md"), block_id(state, f"keys/ключ-{WIDE}.md")
    dated = (state / "memory" / "topics" / "keys" / f"vault-{SECRET}.md").read_text().replace("`undated`", "2026-11-03")
    save(run, tmp_path, f"keys/vault-{SECRET}.md", dated)  # the timeline links to it too
    timeline = state / "memory" / "timeline" / "2026" / "11" / "03.md"
    assert f"vault-{SECRET}.md#^{vault}" in timeline.read_text()
    quoted = urllib.parse.quote(f"../keys/ключ-{WIDE}.md", safe="/._-")
    save(run, tmp_path, "team/ops.md", f"# Ops\n\nSee [the vault](../keys/vault-{SECRET}.md#^{vault}) and "
                                       f"[the key]({quoted}#^{key}), or [the raw key](../keys/ключ-{WIDE}.md#^{key}).\n")
    assert run("search", "vault", "--json")[0] == 0  # the search caches name the files too
    for secret in (SECRET, WIDE):
        assert any(f in everything(state) for f in forms(secret))

    code, done, out = run("purge", "--text", SECRET, "--yes", "--json")
    assert code == 0 and done["done"] and done["problems"] == [], out
    assert done["renamed"] == [f"topics/keys/vault-{name_placeholder(SECRET)}.md"]
    assert SECRET not in out
    code, done, out = run("purge", "--text", WIDE, "--yes", "--json")
    assert code == 0 and done["done"] and done["problems"] == [], out
    assert done["renamed"] == [f"topics/keys/ключ-{name_placeholder(WIDE)}.md"]

    stored = everything(state)
    for secret in (SECRET, WIDE):
        assert not any(f in stored for f in forms(secret)), secret
    topics = sorted(p.relative_to(state / "memory" / "topics").as_posix()
                    for p in (state / "memory" / "topics").rglob("*.md"))
    assert topics == sorted([f"keys/vault-{name_placeholder(SECRET)}.md", f"keys/ключ-{name_placeholder(WIDE)}.md",
                             "team/ops.md"])
    assert healthy(run) == []  # every link resolves, every topic parses
    code, got, _ = run("get", vault, "--json")
    assert code == 0 and json.dumps(got).count(name_placeholder(SECRET)) >= 1
    code, got, _ = run("get", key, "--json")
    assert code == 0
    recent = [json.loads(line) for line in (state / "memory" / "recent_events.jsonl").read_text().splitlines()]
    assert {r["topic_path"] for r in recent} == {f"topics/{t}" for t in topics}
    relations = json.loads((state / "memory" / "relations.json").read_text())
    assert sorted(relations["outbound"][block_id(state, "team/ops.md")]) == sorted([vault, key])
    assert f"../../../topics/keys/vault-{name_placeholder(SECRET)}.md#^{vault}" in timeline.read_text()
    code, hits, _ = run("search", "vault", "--json")
    assert code == 0 and name_placeholder(SECRET) in json.dumps(hits)
    views = {p: (state / "memory" / p).read_bytes() for p in ("relations.json", "recent_events.jsonl")}
    day = timeline.read_bytes()
    save(run, tmp_path, "later.md", "# Later\n\nA plain note after the purge.\n")  # transactions go on
    assert timeline.read_bytes() == day  # the views a transaction rebuilds are what purge left
    assert (state / "memory" / "recent_events.jsonl").read_bytes().startswith(views["recent_events.jsonl"])


def test_a_name_purge_cannot_rename_is_reported_and_exits_1(run, tmp_path) -> None:
    """Before: a name outside the topics (here a file beside memory) and a topic whose new
    name is taken kept the secret, and purge said done, no problems, exit 0."""
    state: Path = run.state
    save(run, tmp_path, f"vault-{SECRET}.md", f"# Vault\n\nThe vault opens at nine; ask for {SECRET}.\n")
    save(run, tmp_path, f"vault-{name_placeholder(SECRET)}.md", "# Taken\n\nThat name is taken already.\n")
    (state / f"notes-{SECRET}.txt").write_text("a note\n")
    code, done, out = run("purge", "--text", SECRET, "--yes", "--json")
    assert code == 1 and done["done"], out
    assert done["renamed"] == []
    left = [p for p in done["problems"] if "not renamed" in p]
    assert len(left) == 2 and any("notes-" in p for p in left) and any("topics/vault-" in p for p in left)
    assert SECRET not in out
    assert SECRET.encode() not in (state / "memory" / "topics" / f"vault-{SECRET}.md").read_bytes()  # the text is purged


def test_a_pattern_matching_an_id_is_refused_and_changes_nothing(run, tmp_path) -> None:
    """Before: `--pattern` rewrote the `^id` suffix (and footnote ids, and cited sources):
    the topic no longer parsed, `get` failed, and doctor said healthy."""
    state: Path = run.state
    save(run, tmp_path, "vault.md", "# Vault\n\nThe vault opens at nine.\n")
    bid = block_id(state, "vault.md")
    footnote = re.search(r"\[\^(e-[0-9a-f]+)\]:", (state / "memory" / "topics" / "vault.md").read_text()).group(1)
    before = everything(state)
    for pattern in (bid[:6] + "[0-9a-f]{2}", re.escape(footnote), r"\b[0-9a-f]{8}\b"):
        code, doc, out = run("purge", "--pattern", pattern, "--yes", "--json")
        assert code == 2 and doc["code"] == "BLOCK_ID", out
        assert "ids are never purged" in doc["message"]
    code, doc, _ = run("purge", "--pattern", bid[:6] + "[0-9a-f]{2}", "--yes", "--json")
    assert f"block id ^{bid} (topics/vault.md)" in doc["message"]  # says which
    code, doc, _ = run("purge", "--text", bid[2:], "--yes", "--json")  # a piece of an id, as --text
    assert code == 2 and doc["code"] == "BLOCK_ID"
    assert everything(state) == before
    assert run("get", bid)[0] == 0
    assert healthy(run) == []


def test_edits_in_progress_in_memory_outlive_the_history_rewrite(run, tmp_path) -> None:
    """Before: the history rewrite checked the work tree out anew (git-filter-repo's reset),
    so a topic changed in an editor and not yet saved lost the change: a person's unsaved
    edit gone, with purge reporting done. Now it is kept as it was (scrubbed, if it holds
    the secret too), still uncommitted."""
    state: Path = run.state
    save(run, tmp_path, "ops.md", "# Ops\n\nThe vault opens at nine.\n")
    save(run, tmp_path, "keys.md", f"# Keys\n\nThe vault code is {SECRET} this week.\n")
    topics = state / "memory" / "topics"
    edited = (topics / "ops.md").read_text() + "\nA hand note, not saved yet.\n"
    (topics / "ops.md").write_text(edited)
    keys = (topics / "keys.md").read_text() + f"\nAlso written down by hand: {SECRET}.\n"
    (topics / "keys.md").write_text(keys)

    code, done, out = run("purge", "--text", SECRET, "--yes", "--json")
    assert code == 0 and done["done"], out
    assert (topics / "ops.md").read_text() == edited
    kept = (topics / "keys.md").read_text()
    assert SECRET not in kept and "Also written down by hand" in kept
    assert SECRET not in everything(state).decode("utf-8", "replace")
    status = subprocess.run(["git", "-C", str(state / "memory"), "status", "--porcelain", "--", "topics"],
                            capture_output=True, text=True, check=True).stdout
    assert " M topics/ops.md" in status  # still the person's edit, not committed for them
