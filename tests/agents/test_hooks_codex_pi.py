"""`scriptorium hook codex EVENT` (Codex's schemas) and `scriptorium hook pi EVENT` (our JSON)."""

from __future__ import annotations

import json
import shutil

import pytest

from scriptorium.core.agents.hooks import FOREGROUND_ENV
from scriptorium.core.fence import AGENT_NOTE, OPEN
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore

from .conftest import CODEX_SMALL, PI_SMALL, call, cli, last, payload, set_config, wait_for_job

CODEX_THREAD = "019fc8be-3658-7ca3-9e29-000000000000"  # the fixture rollout's session_meta id
PI_SESSION = "019e19b4-eb48-746a-aa6b-8dfcfa37954b"  # the fixture session header's id


def context_of(out: str, event_name: str) -> str:
    doc = json.loads(out)
    assert doc["hookSpecificOutput"]["hookEventName"] == event_name
    return doc["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("name", ["SessionStart", "session-start"])
def test_codex_session_start_answers_additional_context(state, name):
    out = call(state, "codex", name, payload("codex", "SessionStart"))
    context = context_of(out, "SessionStart")
    assert context.startswith(f"{OPEN}\n{AGENT_NOTE}") and "green tea" in context
    assert last(state).agent == "codex" and last(state).session_id == payload("codex", "SessionStart")["session_id"]


def test_codex_prompt_recall_and_its_dedupe(state):
    call(state, "codex", "SessionStart", payload("codex", "SessionStart"))
    asked = payload("codex", "UserPromptSubmit", prompt="When do production deploys run?")
    assert "Tuesday evenings" in context_of(call(state, "codex", "UserPromptSubmit", asked), "UserPromptSubmit")
    assert call(state, "codex", "user-prompt-submit", asked) == ""


def test_codex_session_end_finishes_the_session(state, tmp_path, monkeypatch):
    """Before: SessionEnd was no Codex event of ours, so a short session stayed pending."""
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    rollout = tmp_path / f"rollout-2026-08-03T10-48-56-{CODEX_THREAD}.jsonl"
    shutil.copyfile(CODEX_SMALL, rollout)
    assert call(state, "codex", "SessionEnd", payload("codex", "SessionEnd", session_id=CODEX_THREAD,
                                                       transcript_path=str(rollout))) == ""
    logged = last(state)
    assert logged.outcome == "ok" and logged.event == "session-end", logged.error
    assert pending(SessionStore(state), f"codex-{CODEX_THREAD}") == []


def test_codex_sub_agent_start_gets_the_core_in_its_own_context(state):
    doc = payload("codex", "SubagentStart")
    context = context_of(call(state, "codex", "SubagentStart", doc), "SubagentStart")
    assert "green tea" in context
    assert last(state).session_id == f"{doc['session_id']}/{doc['agent_id']}"  # its own seen record
    call(state, "codex", "SessionStart", payload("codex", "SessionStart"))  # the parent's record is its own
    asked = payload("codex", "UserPromptSubmit", prompt="What does the user drink? green tea?")
    assert call(state, "codex", "UserPromptSubmit", asked) == ""  # the parent was given the core already


def test_codex_stop_and_pre_compact_write_the_imported_codex_session(state, tmp_path, monkeypatch):
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    rollout = tmp_path / "sessions" / "2026" / "08" / "03" / f"rollout-2026-08-03T10-48-56-{CODEX_THREAD}.jsonl"
    rollout.parent.mkdir(parents=True)
    shutil.copyfile(CODEX_SMALL, rollout)
    stop = payload("codex", "Stop", session_id=CODEX_THREAD, transcript_path=str(rollout))
    assert call(state, "codex", "Stop", stop) == ""
    step = last(state).detail["steps"][-1]
    assert last(state).outcome == "ok" and step["session"] == f"codex-{CODEX_THREAD}" and step["nodes_added"] > 0
    assert step["write"]["code"] == "BELOW_THRESHOLD"
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))  # no transcript_path (null): found by thread id
    compact = payload("codex", "PreCompact", session_id=CODEX_THREAD, transcript_path=None)
    assert call(state, "codex", "PreCompact", compact) == ""
    assert last(state).outcome == "ok", last(state).error
    assert last(state).detail["steps"][-1]["write"]["code"] == "WRITTEN"
    assert pending(SessionStore(state), f"codex-{CODEX_THREAD}") == []


def test_codex_stop_without_any_rollout_is_logged(state, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    done = cli(state, "codex", "Stop", payload("codex", "Stop", transcript_path=None))
    assert done.returncode == 0 and done.stdout == b""
    assert last(state).detail["phase"] == "queued"  # looked up by thread id in the detached job
    job = wait_for_job(state)
    assert job.outcome == "error" and "transcript not found" in job.error


def test_pi_before_agent_start_gives_core_and_recall(state):
    asked = {"session_id": PI_SESSION, "session_file": "/x.jsonl", "cwd": "/tmp", "prompt": "deploys on Fridays?"}
    done = cli(state, "pi", "before-agent-start", asked)
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert set(doc) == {"core", "recall"}
    assert "green tea" in doc["core"] and "never on Fridays" in doc["recall"]
    assert "green tea" not in doc["recall"]
    again = json.loads(cli(state, "pi", "before-agent-start", asked).stdout)
    assert "green tea" in again["core"] and again["recall"] == ""  # the core every prompt, recall once


def test_pi_answers_a_well_formed_document_even_when_it_fails(state):
    set_config(state, "[core]\ninject = false\n")
    assert json.loads(call(state, "pi", "before-agent-start", {"prompt": "deploys?"})) == {"core": "", "recall": ""}
    assert json.loads(call(state, "pi", "before-agent-start", b"[1, 2]")) == {"core": "", "recall": ""}
    assert last(state).outcome == "error"


def test_pi_session_shutdown_imports_and_finishes(state, tmp_path, monkeypatch):
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    session_file = tmp_path / f"2026-05-12T01-02-27-657Z_{PI_SESSION}.jsonl"
    shutil.copyfile(PI_SMALL, session_file)
    out = call(state, "pi", "session-shutdown", {"session_id": PI_SESSION, "session_file": str(session_file)})
    assert json.loads(out) == {}
    logged = last(state)
    assert logged.outcome == "ok", logged.error
    assert logged.event == "session-end" and logged.detail["steps"][-1]["session"] == f"pi-{PI_SESSION}"
    assert pending(SessionStore(state), f"pi-{PI_SESSION}") == []
