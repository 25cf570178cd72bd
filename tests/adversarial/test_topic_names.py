"""Hostile topic file names: a name that is not UTF-8, a `.md` file in a hidden folder
(Obsidian's `.trash/`), a backslash, a control character. Names are data: a file with such
a name is skipped and reported by every reader and every write, never fatal, and never
changed; a new name with a control character is refused at every door."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scriptorium.core.agents.memory_tools import MemoryTools
from scriptorium.core.cli import main
from scriptorium.core.memory import Transaction, Workspace, save_topic
from scriptorium.core.writer.tools import TopicTools, ToolError

ODD = {  # name on disk (bytes) -> how it is reported
    b".trash/old.md": ("topics/.trash/old.md", "a hidden file or folder"),
    b"a\\b.md": ("topics/a\\b.md", "the name holds a backslash"),
    b"bad\xff.md": ("topics/bad\\xff.md", "the name is not valid UTF-8"),
    b"esc\x1b[2J.md": ("topics/esc\\x1b[2J.md", "the name holds a control character"),
}
ESCAPE_NAME = "notes/x\x1b[2Jy.md"


def with_odd_names(state: Path) -> dict[bytes, bytes]:
    """A workspace with one real topic and a file of every odd name; their bytes."""
    ws = Workspace.open(state)
    assert save_topic(ws, "people/ada.md", "# Ada\n\nAda runs the basement rack.\n").outcome == "installed"
    topics = os.fsencode(ws.topics)
    files = {}
    for name in ODD:
        path = os.path.join(topics, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        files[name] = b"# Odd\n\nThe rack is odd.\n"
        with open(path, "wb") as fh:
            fh.write(files[name])
    return files


def odd_bytes(state: Path) -> dict[bytes, bytes]:
    topics = os.fsencode(Workspace(state).topics)
    out = {}
    for name in ODD:
        with open(os.path.join(topics, name), "rb") as fh:
            out[name] = fh.read()
    return out


def cli(capsys: pytest.CaptureFixture[str], state: Path, *args: str) -> tuple[int, dict, str]:
    code = main(["--state", str(state), *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if "--json" in args else {}, captured.err


def reported(doc: dict) -> set[tuple[str, str]]:
    return {(s["path"], s["reason"]) for s in doc.get("skipped", [])}


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    with_odd_names(state)
    return state


def test_search_and_get_skip_odd_names_and_report_them(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = cli(capsys, state, "search", "rack", "--json")
    assert code == 0 and [h["path"] for h in doc["hits"]] == ["topics/people/ada.md"]
    assert reported(doc) == set(ODD.values())
    code, got, _ = cli(capsys, state, "get", doc["hits"][0]["block_id"], "--json")
    assert code == 0 and got["path"] == "topics/people/ada.md" and reported(got) == set(ODD.values())
    code, _, err = cli(capsys, state, "search", "rack")  # plain text: hits on stdout, what was skipped on stderr
    assert code == 0 and "skipped topics/bad\\xff.md: the name is not valid UTF-8" in err
    assert "\x1b" not in err


def test_topic_save_and_write_succeed_report_and_leave_odd_files_alone(state: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    before = odd_bytes(state)
    draft = state.parent / "bob.md"
    draft.write_text("# Bob\n\nBob keeps the spare disks.\n")
    code, doc, _ = cli(capsys, state, "topic", "save", "people/bob.md", "--from", str(draft), "--json")
    assert code == 0 and doc["outcome"] == "installed" and reported(doc) == set(ODD.values())
    assert not [f for f in doc["changed_files"] if "odd" in f or "bad" in f or "trash" in f]

    sid = _new_session(capsys, state)
    code, doc, _ = cli(capsys, state, "write", sid, "--force", "--json")
    assert code == 0 and doc["outcome"] == "ok" and doc["code"] == "WRITTEN", doc
    assert reported(doc) == set(ODD.values())
    assert odd_bytes(state) == before

    code, doc, _ = cli(capsys, state, "doctor", "--json")
    assert {w.split(": ", 1)[0] for w in doc["warnings"]} == {path for path, _ in ODD.values()}


def _new_session(capsys: pytest.CaptureFixture[str], state: Path) -> str:
    assert main(["--state", str(state), "session", "new"]) == 0
    sid = capsys.readouterr().out.strip()
    for role, text in (("user", "The deploy key lives in vault path ops/deploy."),
                       ("assistant", "Noted: the deploy key is in vault ops/deploy.")):
        assert main(["--state", str(state), "session", "append", sid, "--role", role, "--text", text]) == 0
    capsys.readouterr()
    return sid


@pytest.mark.parametrize("name", [ESCAPE_NAME, "x\x9b31m.md", "x\u202eevil.md", os.fsdecode(b"x\xff.md")])
def test_topic_save_refuses_a_control_character_with_exit_2_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text("# X\n\nA fact.\n")
    fresh = tmp_path / "fresh"
    assert main(["--state", str(fresh), "topic", "save", name, "--from", str(draft)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "refused topic name" in err and "\x1b" not in err and "\x9b" not in err
    assert not fresh.exists()  # refused before anything was created

    state = tmp_path / "state"
    with_odd_names(state)
    head = Workspace(state).repo.head.commit.hexsha
    code, doc, err = cli(capsys, state, "topic", "save", name, "--from", str(draft), "--json")
    assert code == 2 and doc["code"] == "UNSAFE_TOPIC_NAME" and len(err.splitlines()) == 1
    assert Workspace(state).repo.head.commit.hexsha == head
    assert Workspace(state).topic_paths() == ["people/ada.md"]


def test_the_writer_tools_refuse_a_control_character(tmp_path: Path) -> None:
    root = tmp_path / "topics"
    root.mkdir()
    tools = TopicTools(root, lambda ref: None)
    for name in (ESCAPE_NAME, "x\udcff.md", "x\x00.md"):
        with pytest.raises(ToolError, match="refused") as refused:
            tools.call("write_file", json.dumps({"path": name, "content": "# X\n\nA fact.\n"}))
        assert "\x1b" not in str(refused.value)
    assert list(root.rglob("*")) == []
    # the listing the writer sees holds only names memory accepts
    for raw in (b"ok.md", b"a\\b.md", b"bad\xff.md"):
        with open(os.path.join(os.fsencode(root), raw), "wb") as fh:
            fh.write(b"# T\n")
    assert tools.call("list_files", {}).splitlines() == ["ok.md  (4 bytes)"]


def test_memory_remember_refuses_a_control_character(state: Path) -> None:
    head = Workspace(state).repo.head.commit.hexsha
    answer = MemoryTools(state).remember("The rack is in the basement.", ESCAPE_NAME)
    assert answer["outcome"] == "rejected" and "\x1b" not in json.dumps(answer, ensure_ascii=False)
    assert Workspace(state).repo.head.commit.hexsha == head


def test_an_edit_that_stages_an_odd_name_is_rejected_not_a_crash(state: Path) -> None:
    ws = Workspace.open(state)
    with Transaction(ws, "edit", "odd") as txn:
        txn.apply(lambda topics: (topics / "c\\d.md").write_text("# C\n\nA fact.\n"))
        result = txn.commit()
    assert result.outcome == "rejected"
    assert [(d.rule, d.file) for d in result.diagnostics] == [("parse", "topics/c\\d.md")]
    assert not (ws.topics / "c\\d.md").exists()


def test_purge_rewrites_a_secret_in_an_odd_name_and_the_workspace_still_validates(
        state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = "sk-live-ABCDEF123456"
    odd = os.path.join(os.fsencode(Workspace(state).topics), b"sec\xfe.md")
    with open(odd, "wb") as fh:
        fh.write(f"# S\n\nThe token is {secret} here.\n".encode())
    code, doc, _ = cli(capsys, state, "purge", "--text", secret, "--yes", "--json")
    assert code == 0 and doc["done"] and doc["problems"] == []  # skipped files are no sign of a broken workspace
    assert [f["path"] for f in doc["files"]] == ["memory/topics/sec\\xfe.md"]
    with open(odd, "rb") as fh:
        assert secret.encode() not in fh.read()
