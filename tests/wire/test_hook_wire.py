"""The hook log says how a write through a real model ended: a Claude Code pre-compact
hook (the head branch written with force) against a scripted server having a bad day."""

from __future__ import annotations

import json
import shutil

import pytest

from agents.conftest import CC_TOOL_HEAVY, call, last, payload
from scriptorium.core.agents.hooks import FOREGROUND_ENV
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore

from .conftest import PROVIDERS, configure
from .servers import ScriptedServer, Turn, error


@pytest.fixture()
def hooked(tmp_path, monkeypatch):
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    project = tmp_path / "projects" / "-home-user-spotter"
    project.mkdir(parents=True)
    sid = next(json.loads(line)["sessionId"] for line in CC_TOOL_HEAVY.read_text().splitlines() if "sessionId" in line)
    transcript = project / f"{sid}.jsonl"
    shutil.copyfile(CC_TOOL_HEAVY, transcript)
    store = SessionStore(tmp_path / "state")
    return store, payload("claude-code", "pre-compact", session_id=sid, transcript_path=str(transcript)), f"cc-{sid}"


def test_a_rate_limit_is_logged_as_skipped_with_its_wait(hooked):
    store, doc, sid = hooked
    with ScriptedServer([error(429, "slow down", headers={"retry-after": "12"})], repeat_last=True) as server:
        configure(store, PROVIDERS["openai"], server.url)
        assert call(store.state_dir, "claude-code", "pre-compact", doc) == ""
    logged = last(store.state_dir)
    write = logged.detail["steps"][-1]["write"]
    assert logged.outcome == "skipped"  # retryable: the next turn's job tries again
    assert (write["outcome"], write["code"], write["retry_after_s"]) == ("retryable", "MODEL_RATE_LIMIT", 12)
    assert pending(store, sid)


def test_a_looping_model_is_logged_as_an_error_saying_what_it_did(hooked):
    store, doc, sid = hooked
    looping = PROVIDERS["openai"].answer(Turn(calls=[("read_file", {"path": "infra/nowhere.md"})]), False)
    with ScriptedServer([looping], repeat_last=True, max_requests=10) as server:
        configure(store, PROVIDERS["openai"], server.url)
        call(store.state_dir, "claude-code", "pre-compact", doc)
    logged = last(store.state_dir)
    write = logged.detail["steps"][-1]["write"]
    assert logged.outcome == "error" and logged.error.startswith("WRITER_NO_PROGRESS: the model openai/gpt-4o-mini")
    assert "same call 3 rounds in a row (read_file" in logged.error and "no such file" in logged.error
    assert write["model"]["input_tokens"] == 3 * 11 and write["model"]["cost_usd"] > 0
    assert pending(store, sid)
