"""The warm recall process (core/agents/recall_server.py): the same answer as a cold recall,
a fallback for every way it can be missing, and one process per state, serving that state only."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scriptorium.core.agents import recall_server
from scriptorium.core.agents.recall_server import WARM_ENV, ask, pid
from scriptorium.core.memory import Workspace, save_topic

from .conftest import CC_TOOL_HEAVY, call, cli, last, payload, wait_for_job

A = "claude-code"
PROMPTS = ("When do production deploys run?", "how long do sccache objects stay in the bucket",
           "what does Ada drink?", "zebra crossing lanterns")


def _gone(process: int) -> bool:
    try:
        os.kill(process, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie (our own child, killed) counts as gone
        return open(f"/proc/{process}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _until(condition, timeout: float = 60.0, what: str = "") -> object:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or condition}")


def warm_up(state: Path) -> int:
    """Start the state's warm process and wait until it answers; its pid."""
    recall_server.ensure(state)
    _until(lambda: ask(state, "warm up", set())[1] == "warm", what="a warm answer")
    return pid(state)  # type: ignore[return-value]


@pytest.fixture()
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Warm processes on (60 s idle); every state appended to the list has its process ended after the test."""
    monkeypatch.setenv(WARM_ENV, "60")
    states: list[Path] = []
    yield states
    end_all(states, signal.SIGTERM)


def end_all(states: list[Path], how: int) -> None:
    """End the states' warm processes, and any spare one still waiting for its lock."""
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < 2 * recall_server.LOCK_WAIT_S:
        for state in states:
            process = pid(state)
            if process:
                os.kill(process, how)
                _until(lambda: _gone(process), 30, "the warm process to end")
                quiet_since = time.monotonic()
        time.sleep(0.1)


def prompts_through_the_cli(state: Path, session: str) -> list[tuple[str, str]]:
    """A session start and every prompt of PROMPTS in fresh processes: (stdout, recall_via) per prompt."""
    assert cli(state, A, "session-start", payload(A, "session-start", session_id=session)).returncode == 0
    answers = []
    for prompt in PROMPTS:
        done = cli(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", session_id=session, prompt=prompt))
        assert done.returncode == 0 and done.stderr == b""
        answers.append((done.stdout.decode(), last(state).detail["recall_via"]))
    return answers


def test_warm_and_cold_recall_give_the_same_answers(state, warm, monkeypatch):
    monkeypatch.setenv(WARM_ENV, "0")
    cold = prompts_through_the_cli(state, "cold-session")
    assert {via for _out, via in cold} == {"cold (warm process off)"}
    assert sum(bool(out) for out, _via in cold) >= 2  # deploys and the cache are recalled
    assert pid(state) is None
    monkeypatch.setenv(WARM_ENV, "60")
    warm.append(state)
    warm_up(state)
    hot = prompts_through_the_cli(state, "warm-session")
    assert {via for _out, via in hot} == {"warm"}
    assert [out for out, _via in hot] == [out for out, _via in cold]
    seen = [json.loads(p.read_text())["blocks"] for p in sorted((state / "memory/.scriptorium/hooks/sessions").iterdir())]
    assert len(seen) == 2 and seen[0] == seen[1]  # both sessions were given the same blocks


def test_a_session_start_starts_the_warm_process_and_only_one(state, warm):
    warm.append(state)
    for n in range(3):
        assert call(state, A, "session-start", payload(A, "session-start", session_id=f"s{n}"))
    first = _until(lambda: pid(state), what="the warm process")
    call(state, A, "session-start", payload(A, "session-start", session_id="s9"))
    time.sleep(0.5)
    assert pid(state) == first
    assert (state / "memory/.scriptorium/recall.sock").is_socket()
    assert oct((state / "memory/.scriptorium/recall.sock").stat().st_mode & 0o777) == "0o600"


def test_a_dead_process_socket_falls_back_to_cold_and_a_new_process_starts(state, warm, monkeypatch):
    monkeypatch.setenv(WARM_ENV, "0")
    cold = call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", session_id="c", prompt=PROMPTS[0]))
    monkeypatch.setenv(WARM_ENV, "60")
    warm.append(state)
    dead = warm_up(state)
    end_all([state], signal.SIGKILL)
    assert (state / "memory/.scriptorium/recall.sock").exists()  # what a killed process leaves
    out = call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", session_id="w", prompt=PROMPTS[0]))
    assert out == cold and out
    assert last(state).detail["recall_via"] == "cold (no warm process: started one)"
    assert _until(lambda: pid(state) not in (None, dead), what="a new warm process")
    _until(lambda: ask(state, "warm up", set())[1] == "warm", what="the new process to answer")


def test_a_process_that_never_answers_costs_one_wait_then_cold(state, monkeypatch):
    monkeypatch.setenv(WARM_ENV, "60")
    monkeypatch.setattr(recall_server, "WAIT_S", 0.3)
    monkeypatch.chdir(state / "memory/.scriptorium")  # a short path to bind, however long tmp_path is
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wedged:
        wedged.bind("recall.sock")
        wedged.listen(8)  # connects, never accepts
        started = time.monotonic()
        out = call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", prompt=PROMPTS[0]))
        assert time.monotonic() - started < 30
    assert "Tuesday evenings" in out
    assert last(state).detail["recall_via"] == "cold (the warm process did not answer in time)"


def test_a_process_of_another_install_is_not_asked_and_ends(state, warm, monkeypatch):
    warm.append(state)
    old = warm_up(state)
    real = recall_server._identity
    monkeypatch.setattr(recall_server, "_identity", lambda: {**real(), "version": "0.0.0-other"})
    out = call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", prompt=PROMPTS[0]))
    assert "Tuesday evenings" in out
    assert last(state).detail["recall_via"] == "cold (the warm process refused: another install)"
    _until(lambda: _gone(old), 30, "the out-of-date process to end")
    _until(lambda: pid(state) not in (None, old), 30, "the process that replaces it")


def _second_state(tmp_path: Path) -> Path:
    root = tmp_path / "other"
    ws = Workspace.open(root)
    text = "# Deploys\n\nStaging deploys run every morning at nine, from the release branch.\n"
    assert save_topic(ws, "infra/deploys.md", text).outcome == "installed"
    return root


def test_a_process_serves_its_own_state_only(state, tmp_path, warm):
    other = _second_state(tmp_path)
    warm.extend([state, other])
    mine, theirs = warm_up(state), warm_up(other)
    assert mine != theirs
    ask_deploys = payload(A, "user-prompt-submit", prompt="When do deploys run?")
    assert "Tuesday evenings" in call(state, A, "user-prompt-submit", ask_deploys)
    out = call(other, A, "user-prompt-submit", ask_deploys)
    assert "every morning at nine" in out and "Tuesday" not in out
    assert last(other).detail["recall_via"] == "warm"
    # the other state's socket replaced by a way into this state's process: refused, recalled cold
    sock = other / "memory/.scriptorium/recall.sock"
    sock.unlink()
    sock.symlink_to(state / "memory/.scriptorium/recall.sock")
    out = call(other, A, "user-prompt-submit", payload(A, "user-prompt-submit", session_id="x", prompt="When do deploys run?"))
    assert "every morning at nine" in out and "Tuesday" not in out
    assert last(other).detail["recall_via"] == "cold (the warm process refused: another state)"
    _until(lambda: _gone(theirs), 30, "the process whose socket was taken to end")


def test_the_process_ends_when_idle_and_when_its_state_is_removed(state, tmp_path, warm, monkeypatch):
    monkeypatch.setenv(WARM_ENV, "1")
    idle = warm_up(state)
    _until(lambda: _gone(idle), 30, "the idle process to end")
    assert not (state / "memory/.scriptorium/recall.sock").exists()
    other = _second_state(tmp_path)
    monkeypatch.setenv(WARM_ENV, "600")
    orphan = warm_up(other)
    import shutil

    shutil.rmtree(other)
    _until(lambda: _gone(orphan), 30, "the process of a removed state to end")


def test_recall_off_starts_no_process(state, warm, monkeypatch):
    warm.append(state)
    (state / "config.toml").write_text("[recall]\nenabled = false\n", encoding="utf-8")
    call(state, A, "session-start", payload(A, "session-start"))
    time.sleep(0.5)
    assert pid(state) is None
    (state / "config.toml").write_text("[recall]\nwarm_minutes = 0\n", encoding="utf-8")
    monkeypatch.delenv(WARM_ENV)
    call(state, A, "session-start", payload(A, "session-start"))
    out = call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", prompt=PROMPTS[0]))
    assert "Tuesday evenings" in out and last(state).detail["recall_via"] == "cold (warm process off)"
    assert pid(state) is None


HOOK_PROBE = """
import json, sys
from scriptorium.tui.entry import main
code = main(sys.argv[1:])
sys.stderr.write(json.dumps({"code": code, "modules": sorted(sys.modules)}) + "\\n")
"""


@pytest.mark.parametrize("event", ["session-start", "user-prompt-submit", "stop"])
def test_a_hook_call_loads_neither_the_cli_nor_what_its_event_does_not_use(state, warm, event):
    """The console script answers a hook without argparse or the CLI package (hook_entry.py);
    a warm recall loads no model, numpy or search index in the hook's process."""
    import subprocess
    import sys

    warm.append(state)
    warm_up(state)
    doc = payload(A, event, session_id="probe", prompt=PROMPTS[0], transcript_path=str(CC_TOOL_HEAVY))
    done = subprocess.run([sys.executable, "-c", HOOK_PROBE, "--state", str(state), "hook", A, event],
                          input=json.dumps(doc).encode(), capture_output=True, timeout=120, check=False)
    report = json.loads(done.stderr.decode().strip().splitlines()[-1])
    assert report["code"] == 0
    loaded = set(report["modules"])
    assert not loaded & {"argparse", "scriptorium.core.cli", "scriptorium.core.cli.common", "socket", "subprocess"}
    assert not loaded & {"numpy", "orjson", "tokenizers", "tiktoken", "scriptorium.core.search", "tomllib"}
    if event == "user-prompt-submit":
        assert "Tuesday evenings" in done.stdout.decode() and last(state).detail["recall_via"] == "warm"
    if event == "stop":
        assert wait_for_job(state).outcome != "error"  # the detached job, started without subprocess


def test_a_prompt_right_after_the_session_start_waits_for_the_process_it_started(state, warm):
    """The first prompt can arrive before the spawned process has bound its socket: it waits
    for that one (noted in recall.spawned) instead of recalling cold beside it and spawning another."""
    warm.append(state)
    recall_server.ensure(state)  # what the session start does
    found, via = ask(state, PROMPTS[0], set())
    assert via == "warm" and "Tuesday evenings" in found["text"]
    first = pid(state)
    assert first is not None and ask(state, PROMPTS[1], set())[1] == "warm" and pid(state) == first
