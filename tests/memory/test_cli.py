"""CLI contracts: `topic save|retire`, `core --json`, `log --json` (shapes and exit codes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.cli import main

from .support import Seeded


def run(capsys: pytest.CaptureFixture[str], state: Path, *args: str) -> tuple[int, object]:
    code = main(["--state", str(state), *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if "--json" in args else out


def test_topic_save_installs_then_rejects_with_diagnostics(seeded: Seeded, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    state = seeded.ws.state_dir
    draft = tmp_path / "ada.md"
    draft.write_text(seeded.ws.read_topic("people/ada.md").replace("green tea", "rooibos"))
    code, doc = run(capsys, state, "topic", "save", "people/ada.md", "--from", str(draft), "--json")
    assert code == 0 and set(doc) == {"outcome", "commit", "changed_files", "diagnostics", "redactions"}
    assert doc["outcome"] == "installed" and len(doc["commit"]) == 40 and "topics/people/ada.md" in doc["changed_files"]

    draft.write_text(draft.read_text().replace(f" ^{seeded.ada[0]}", ""))
    code, doc = run(capsys, state, "topic", "save", "people/ada.md", "--from", str(draft), "--json")
    assert code == 1 and doc["outcome"] == "rejected" and doc["commit"] is None and doc["changed_files"] == []
    [d] = doc["diagnostics"]
    assert set(d) == {"rule", "file", "line", "block_id", "message", "hint"}
    assert (d["rule"], d["file"], d["line"], d["block_id"]) == ("block-id-kept", "topics/people/ada.md", 5, seeded.ada[0])

    new = tmp_path / "new.md"
    new.write_text("# Deploys\n\nDeploy windows are Tuesdays.\n")
    code, doc = run(capsys, state, "topic", "save", "ops/deploys.md", "--from", str(new), "--json")
    assert code == 0 and "topics/ops/deploys.md" in doc["changed_files"]  # a new path creates the topic


def test_topic_retire_and_the_log(seeded: Seeded, capsys: pytest.CaptureFixture[str]) -> None:
    state = seeded.ws.state_dir
    code, doc = run(capsys, state, "topic", "retire", "people/ada.md", seeded.ada[1], "--reason", "moved on", "--json")
    assert code == 1 and {d["rule"] for d in doc["diagnostics"]} == {"link-resolves"}  # still linked
    code, doc = run(capsys, state, "topic", "retire", "projects/cache.md", seeded.cache, "--reason", "stale", "--json")
    assert code == 0 and doc["outcome"] == "installed" and "topics/projects/cache.md" in doc["changed_files"]

    code, log = run(capsys, state, "log", "--json")
    assert code == 0 and [r["summary"] for r in log][:1] == [f"retire ^{seeded.cache} from topics/projects/cache.md: stale"]
    assert log[0]["retired"][0]["id"] == seeded.cache and log[0]["commit"] == doc["commit"]
    assert [r["kind"] for r in log] == ["edit", "write", "write"]  # newest first
    code, text = run(capsys, state, "log", "--limit", "1")
    assert code == 0 and len(str(text).splitlines()) == 1


def test_core_json_shape(seeded: Seeded, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run(capsys, seeded.ws.state_dir, "core", "--json")
    assert code == 0
    assert set(doc) == {"budget", "canonical_tokens", "rendered_tokens", "effective_tokens", "inject", "omitted_blocks"}
    assert doc["budget"] == 2000 and doc["inject"] is True and doc["omitted_blocks"] == []
    # the fence adds its note, plain text drops the footnotes and anchors: a short core may go either way
    assert 0 < doc["rendered_tokens"] and 0 < doc["effective_tokens"]


def test_bad_topic_paths_are_user_errors(seeded: Seeded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = tmp_path / "x.md"
    draft.write_text("x")
    for bad in ("../escape.md", "/etc/passwd.md", "notes.txt", ".scriptorium/x.md"):
        assert main(["--state", str(seeded.ws.state_dir), "topic", "save", bad, "--from", str(draft)]) == 1
    assert "not a topic path" in capsys.readouterr().err
