"""What people expect of a command line (issue 29): a typo gets a suggestion, `--version`,
Ctrl-C says what it left and exits 130, a read-only command never creates a mistyped
--state, import names the sessions it made, core/doctor --help describe themselves, an
unknown session has its own code, `remote add` refuses a path that does not exist."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PY = sys.executable


def _as_from_a_terminal() -> None:
    """The child starts with SIGINT's default action, as under a terminal: a test run launched
    in the background by a non-interactive shell inherits SIGINT ignored, and Python then keeps
    ignoring it (no KeyboardInterrupt to test)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(state: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=120, input=stdin)


def test_a_mistyped_command_gets_a_suggestion_not_the_whole_list(tmp_path: Path) -> None:
    run = cli(tmp_path, "serch", "cache")
    assert run.returncode == 2
    assert "unknown command 'serch'; did you mean 'search'" in run.stderr  # the closest first ('serve' is close too)
    assert "'purge'" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    sub = cli(tmp_path, "remote", "lst")
    assert sub.returncode == 2 and "did you mean 'list'?" in sub.stderr


def test_version() -> None:
    from importlib.metadata import version

    run = subprocess.run([PY, "-m", "scriptorium.core.cli", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == f"scriptorium {version('scriptorium-memory')}"


def test_ctrl_c_says_what_it_left_and_exits_130(tmp_path: Path) -> None:
    """A real SIGINT while a command waits (append reading its text from stdin)."""
    proc = subprocess.Popen([PY, "-m", "scriptorium.core.cli", "--state", str(tmp_path), "session", "append",
                             "s1", "--role", "user", "--text", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_from_a_terminal)
    time.sleep(1.5)  # let it reach the read
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "scriptorium: interrupted" in err and "Traceback" not in err


def test_ctrl_c_during_import_names_what_stays(tmp_path: Path) -> None:
    """SIGINT arriving inside the import itself (sent by the import, so it lands there)."""
    code = (
        "import os, signal, sys, time\n"
        "import scriptorium.core.importers.run as run\n"
        "def interrupted(*a, **k):\n"
        "    os.kill(os.getpid(), signal.SIGINT); time.sleep(30)\n"
        "run.import_sources = interrupted\n"
        "from scriptorium.core.cli import main\n"
        f"sys.exit(main(['--state', {str(tmp_path)!r}, 'import', 'claude-code', {str(tmp_path)!r}]))\n"
    )
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60,
                          preexec_fn=_as_from_a_terminal)
    assert proc.returncode == 130
    assert "interrupted: the sessions imported so far are kept; run the same import again" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", [["search", "cache"], ["get", "abc123"], ["core"], ["log"], ["conflicts"],
                                     ["session", "list"], ["remote", "list"]])
def test_a_read_only_command_does_not_create_a_mistyped_state(tmp_path: Path, command: list[str]) -> None:
    state = tmp_path / "stat"  # meant: state
    cli(state, *command)
    assert not state.exists()


def test_import_names_the_sessions_it_made(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hi there"},"uuid":"u1",'
                          '"sessionId":"s1","timestamp":"2026-01-02T00:00:00Z"}\n')
    state = tmp_path / "state"
    text = cli(state, "import", "claude-code", str(transcript))
    assert text.returncode == 0
    listed = json.loads(cli(state, "session", "list", "--json").stdout)
    ids = [s["id"] for s in listed["sessions"]]
    assert ids and all(sid in text.stdout for sid in ids)
    again = cli(state, "import", "claude-code", str(transcript))
    assert not any(sid in again.stdout for sid in ids)  # nothing made the second time


@pytest.mark.parametrize("command", ["core", "doctor"])
def test_core_and_doctor_describe_themselves(tmp_path: Path, command: str) -> None:
    run = cli(tmp_path, command, "--help")
    usage, _, rest = run.stdout.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert run.returncode == 0 and not description.startswith("options:") and len(description) > 40


def test_an_unknown_session_has_its_own_code(tmp_path: Path) -> None:
    for command in (["session", "show", "nope"], ["pending", "nope"]):
        run = cli(tmp_path, *command, "--json")
        assert run.returncode == 1
        assert json.loads(run.stdout)["code"] == "UNKNOWN_SESSION", command


def test_remote_add_refuses_a_path_that_does_not_exist(tmp_path: Path) -> None:
    state = tmp_path / "state"
    run = cli(state, "remote", "add", "origin", str(tmp_path / "nowhere.git"), "--json")
    assert run.returncode == 1 and json.loads(run.stdout)["code"] == "REMOTE_NOT_FOUND"
    assert "git init --bare" in run.stderr
    assert json.loads(cli(state, "remote", "list", "--json").stdout)["remotes"] == []
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    relative = os.path.relpath(bare, Path.cwd())
    assert cli(state, "remote", "add", "origin", relative).returncode == 0
    listed = json.loads(cli(state, "remote", "list", "--json").stdout)
    urls = [r["url"] for r in listed["remotes"]]
    assert urls == [str(bare)]  # kept absolute: git reads a relative one from memory's own folder
    assert cli(state, "remote", "add", "net", "git@example.com:team/memory.git").returncode == 0  # not checked
