"""The CLI contract of the foundation: session/pending commands, JSON shapes, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True)


def test_session_lifecycle_and_pending_json(tmp_path: Path) -> None:
    sid = run(tmp_path, "session", "new", "--title", "T").stdout.strip()
    a = run(tmp_path, "session", "append", sid, "--role", "user", "--text", "hello").stdout.strip()
    b = run(tmp_path, "session", "append", sid, "--role", "assistant", "--text", "hi", "--meta", "x=3", "--meta", "y=abc").stdout.strip()
    c = run(tmp_path, "session", "append", sid, "--role", "assistant", "--text", "other", "--after", a).stdout.strip()
    show = json.loads(run(tmp_path, "session", "show", sid, "--json").stdout)
    assert show["id"] == sid and show["title"] == "T" and show["head_id"] == c
    assert set(show["tips"]) == {b, c}
    node_b = next(n for n in show["nodes"] if n["id"] == b)
    assert node_b["metadata"] == {"x": 3, "y": "abc"} and node_b["predecessor"] == a
    assert {"id", "role", "predecessor", "metadata"} <= set(node_b)

    assert run(tmp_path, "session", "mark", sid, a).returncode == 0
    doc = json.loads(run(tmp_path, "pending", sid, "--json").stdout)
    assert doc["session"] == sid
    by_tip = {br["tip"]: br for br in doc["branches"]}
    assert [t["id"] for t in by_tip[b]["pending"]] == [b]
    assert by_tip[c]["is_head"] is True and by_tip[b]["is_head"] is False
    assert by_tip[c]["pending_tokens"] == sum(t["tokens"] for t in by_tip[c]["pending"]) > 0
    only = json.loads(run(tmp_path, "pending", sid, "--tip", b, "--json").stdout)
    assert [br["tip"] for br in only["branches"]] == [b]

    rw = run(tmp_path, "session", "rewind", sid, c)
    assert rw.returncode == 0
    assert json.loads(run(tmp_path, "session", "show", sid, "--json").stdout)["head_id"] == a


def test_exit_codes(tmp_path: Path) -> None:
    unknown = run(tmp_path, "pending", "nosuch", "--json")
    assert unknown.returncode == 1 and unknown.stderr.count("\n") == 1 and "Traceback" not in unknown.stderr
    assert run(tmp_path, "session", "append").returncode == 2
    sid = run(tmp_path, "session", "new").stdout.strip()
    bad_after = run(tmp_path, "session", "append", sid, "--role", "user", "--text", "x", "--after", "ghost")
    assert bad_after.returncode == 1 and "ghost" in bad_after.stderr
    assert run(tmp_path, "session", "append", sid, "--role", "user", "--text", "x", "--meta", "novalue").returncode == 2


def test_json_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    """`scriptorium … --json | head -1`: the reader leaves early; no BrokenPipeError traceback."""
    from scriptorium.core.sessions.store import SessionStore

    store = SessionStore(tmp_path)
    sid = store.create_session(title="T")
    with store.batch(sid):
        for number in range(40):
            store.append(sid, "user", f"turn {number} " + "x" * 4000)
    cli = subprocess.Popen([sys.executable, "-m", "scriptorium.core.cli", "--state", str(tmp_path), "session", "show",
                            sid, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert cli.stdout is not None and cli.stderr is not None
    cli.stdout.read(10)
    cli.stdout.close()  # like `head` once it has its line
    err = cli.stderr.read().decode()
    assert cli.wait(timeout=60) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_a_failing_command_into_a_closed_pipe_exits_quietly_with_its_code(tmp_path: Path) -> None:
    """`get X --json | true`: the failure document meets a closed pipe; the exit code is the
    command's (1: no such block), stderr keeps its one line and no traceback."""
    cli = subprocess.Popen([sys.executable, "-m", "scriptorium.core.cli", "--state", str(tmp_path), "get", "X",
                            "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert cli.stdout is not None and cli.stderr is not None
    cli.stdout.close()  # `true` never reads
    err = cli.stderr.read().decode()
    assert cli.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert err == "scriptorium: no block with id 'X'\n"
