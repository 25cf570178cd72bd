"""`trilogy scaffold|inject|checkpoint|status`: JSON shapes and exit codes."""

import json
from pathlib import Path

from scriptorium.core.cli import main


def _run(capsys, state: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--state", str(state), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_scaffold_checkpoint_inject_status(tmp_path: Path, capsys):
    state, proj = tmp_path / "state", tmp_path / "proj"
    proj.mkdir()
    code, out, _ = _run(capsys, state, "trilogy", "scaffold", str(proj), "--json")
    assert code == 0 and len(json.loads(out)["created"]) == 3

    items = tmp_path / "items.json"
    items.write_text(json.dumps({"items": [
        {"kind": "session", "area": "cli", "done": "added the CLI, verified by tests"},
        {"kind": "project", "section": "State", "delete": "暂无"},
    ]}), encoding="utf-8")
    code, out, _ = _run(capsys, state, "trilogy", "checkpoint", str(proj), "--from", str(items), "--json")
    doc = json.loads(out)
    assert code == 1  # something was refused
    assert [a["file"] for a in doc["applied"]] == ["SESSIONS.md"]
    assert doc["refused"][0]["index"] == 1 and "deletion guard" in doc["refused"][0]["reason"]

    code, out, _ = _run(capsys, state, "trilogy", "inject", str(proj), "--window", "100000")
    assert code == 0 and out.startswith("<memory-context>") and "区域：cli(1)" in out

    code, out, _ = _run(capsys, state, "trilogy", "status", str(proj), "--json", "--window", "100000")
    status = json.loads(out)
    assert status["budget"] == 16_000
    assert [f["name"] for f in status["files"]] == ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"]
    assert [s["name"] for s in status["sections"]] == ["这是什么", "怎么跑和怎么测", "东西都在哪", "State", "坑"]
    assert status["areas"][0]["name"] == "cli" and status["areas"][0]["injected"] == 1
    assert status["accounting_line"].startswith("[trilogy] 本次注入") and status["archive"]["entries"] == 0


def test_disabled_and_bad_input(tmp_path: Path, capsys):
    state, proj = tmp_path / "state", tmp_path / "proj"
    proj.mkdir()
    code, _, err = _run(capsys, state, "trilogy", "inject", str(tmp_path / "missing"))
    assert code == 1 and "not a directory" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    code, _, err = _run(capsys, state, "trilogy", "checkpoint", str(proj), "--from", str(bad))
    assert code == 1 and err.count("\n") == 1
    state.mkdir()
    (state / "config.toml").write_text("[trilogy]\nenabled = false\n", encoding="utf-8")
    code, _, err = _run(capsys, state, "trilogy", "scaffold", str(proj))
    assert code == 1 and "disabled" in err and not (proj / "memory").exists()


def test_archive_status_restore_and_read(tmp_path: Path, capsys):
    state, proj = tmp_path / "state", tmp_path / "proj"
    proj.mkdir()
    state.mkdir()
    (state / "config.toml").write_text("[trilogy]\nsessionsMaxEntries = 3\n", encoding="utf-8")
    items = tmp_path / "items.json"
    items.write_text(json.dumps([
        {"kind": "session", "done": f"step {n}", "date": f"2026-09-0{n}", "area": "ops"} for n in range(1, 6)
    ]), encoding="utf-8")
    code, out, _ = _run(capsys, state, "trilogy", "checkpoint", str(proj), "--from", str(items), "--json")
    assert code == 0 and json.loads(out)["archived"] == 2

    code, out, _ = _run(capsys, state, "trilogy", "status", str(proj), "--json")
    archive = json.loads(out)["archive"]
    assert archive["entries"] == 2 and archive["newest"] == "2026-09-02" and archive["oldest"] == "2026-09-01"

    code, out, _ = _run(capsys, state, "trilogy", "read", str(proj), "archive")
    assert code == 0 and "Done: step 2" in out and "Done: step 1" in out
    code, out, _ = _run(capsys, state, "trilogy", "restore", str(proj), "--count", "1", "--json")
    assert code == 0 and json.loads(out) == {"restored": 1}
    code, out, _ = _run(capsys, state, "trilogy", "read", str(proj), "SESSIONS", "--section", "2026-09-02")
    assert code == 0 and "Done: step 2" in out
    code, _, err = _run(capsys, state, "trilogy", "read", str(proj), "NOTES")
    assert code == 1 and "unknown memory file" in err
