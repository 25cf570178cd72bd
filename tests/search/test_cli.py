"""`search` and `get`: the JSON contracts and exit codes."""

import json
from pathlib import Path

from scriptorium.core.cli import main


def _run(capsys, state: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--state", str(state), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json_contract(memory: Path, capsys):
    state = memory.parent
    code, out, _ = _run(capsys, state, "search", "部署窗口是什么时候", "--json")
    assert code == 0
    hits = json.loads(out)["hits"]
    assert hits[0]["block_id"] == "5e6f7a8b"
    assert all(set(hit) == {"block_id", "path", "line", "score", "text"} for hit in hits)
    code, out, _ = _run(capsys, state, "search", "cache", "--top-k", "1", "--json")
    assert len(json.loads(out)["hits"]) == 1
    code, out, _ = _run(capsys, state, "search", "zanzibar", "--sources", "--json")
    assert json.loads(out)["hits"][0]["block_id"] == "openprogram/s1/m1"


def test_get_json_and_unknown_block(memory: Path, capsys):
    state = memory.parent
    code, out, _ = _run(capsys, state, "get", "0a0b0c0d", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["block_id"] == "0a0b0c0d" and doc["path"] == "topics/people/ada.md"
    assert doc["citations"][0]["sources"][0]["source_id"] == "openprogram/s1/m3"
    code, out, err = _run(capsys, state, "get", "deadbeef", "--json")
    assert code == 1 and err.count("\n") == 1 and "deadbeef" in err
    assert json.loads(out)["outcome"] == "permanent"  # --json: the failure document


def test_search_on_an_empty_state_dir(tmp_path: Path, capsys):
    code, out, _ = _run(capsys, tmp_path, "search", "anything", "--json")
    assert code == 0 and json.loads(out) == {"hits": []}
