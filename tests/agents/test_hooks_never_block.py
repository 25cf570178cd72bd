"""A hook never gets in its agent's way: exit 0 on every failure, one line where a person
can read it, lasting failures reported as errors (not retried), pi's non-ending shutdowns
not finishing the session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from scriptorium.core.agents.hooks import FOREGROUND_ENV
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore

from .conftest import CODEX_SMALL, PI_SMALL, call, cli, last, payload

PI_SESSION = "019e19b4-eb48-746a-aa6b-8dfcfa37954b"
CODEX_THREAD = "019fc8be-3658-7ca3-9e29-000000000000"


@pytest.mark.parametrize("agent,event", [("claude-code", "user-prompt-submit"), ("claude-code", "session-start"),
                                         ("codex", "SessionEnd"), ("pi", "before-agent-start")])
def test_a_state_that_is_a_file_exits_0_with_one_stderr_line(tmp_path, agent, event):
    broken = tmp_path / "state"
    broken.write_text("not a directory", encoding="utf-8")
    done = cli(broken, agent, event, {"session_id": "s1", "prompt": "hello", "transcript_path": "/x.jsonl"})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "not a directory" in lines[0]
    assert done.stdout.decode().strip() in ("", json.dumps({"core": "", "recall": ""}))


def test_a_missing_state_is_not_a_failure(tmp_path):
    done = cli(tmp_path / "nowhere", "claude-code", "session-start", payload("claude-code", "session-start"))
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""


def test_a_write_without_a_git_identity_still_writes(state, tmp_path):
    """Before: outcome "skipped" (retryable), so every later turn tried again, forever; then
    an error. Memory commits carry Scriptorium's own identity now (issue 26): no identity in
    the repository nor in the user's config is needed."""
    for key in ("user.name", "user.email"):
        subprocess.run(["git", "-C", str(state / "memory"), "config", "--unset", key], check=False)
    rollout = tmp_path / f"rollout-2026-08-03T10-48-56-{CODEX_THREAD}.jsonl"
    shutil.copyfile(CODEX_SMALL, rollout)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "EMAIL": "", "GIT_AUTHOR_NAME": "", "GIT_AUTHOR_EMAIL": "", "GIT_COMMITTER_NAME": "",
           "GIT_COMMITTER_EMAIL": ""}
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        env.pop(key)
    doc = payload("codex", "PreCompact", session_id=CODEX_THREAD, transcript_path=str(rollout))
    done = subprocess.run([*_cmd(state), "hook", "codex", "PreCompact", "--foreground"], input=json.dumps(doc).encode(),
                          capture_output=True, env=env, timeout=120, check=False)
    assert done.returncode == 0
    logged = last(state)
    assert logged.outcome != "error", logged.to_json()
    assert "identity" not in (logged.error or "").lower()


def _cmd(state):
    import sys

    return [sys.executable, "-m", "scriptorium.core.cli", "--state", str(state)]


@pytest.mark.parametrize("reason,finished", [("quit", True), ("new", True), ("resume", True),
                                             ("reload", False), ("fork", False), (None, True)])
def test_pi_shutdown_finishes_only_when_the_session_ended(state, tmp_path, monkeypatch, reason, finished):
    """Before: reload and fork (pi fires session_shutdown for both) finished the session."""
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    session_file = tmp_path / f"2026-05-12T01-02-27-657Z_{PI_SESSION}.jsonl"
    shutil.copyfile(PI_SMALL, session_file)
    doc = {"session_id": PI_SESSION, "session_file": str(session_file), **({"reason": reason} if reason else {})}
    assert json.loads(call(state, "pi", "session-shutdown", doc)) == {}
    logged = last(state)
    assert logged.outcome in ("ok", "skipped"), logged.error
    assert logged.detail["steps"][-1]["session"] == f"pi-{PI_SESSION}"  # imported either way
    left = pending(SessionStore(state), f"pi-{PI_SESSION}")
    assert (left == []) is finished
    assert logged.event == ("session-end" if finished else "stop")


def test_pi_extension_passes_the_shutdown_reason(tmp_path):
    from scriptorium.core.agents.install import make_target
    from scriptorium.core.agents.install_pi import render

    text = render(make_target("pi", "user", tmp_path / "s", home=tmp_path, command="/bin/scriptorium"))
    assert 'reason: event?.reason' in text
