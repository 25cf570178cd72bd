"""`scriptorium hook claude-code EVENT`: Claude Code's documented payloads in, its hook output out."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from scriptorium.core.agents.hooks import FOREGROUND_ENV
from scriptorium.core.fence import AGENT_NOTE, CLOSE, NOTE, OPEN
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore

from .conftest import CC_TOOL_HEAVY, call, cli, last, payload, set_config, wait_for_job

A = "claude-code"


def context_of(out: str, event_name: str) -> str:
    doc = json.loads(out)
    assert set(doc) == {"hookSpecificOutput"}
    assert doc["hookSpecificOutput"]["hookEventName"] == event_name
    return doc["hookSpecificOutput"]["additionalContext"]


def test_session_start_injects_the_core_once_fenced_as_recalled_facts(state):
    out = call(state, A, "session-start", payload(A, "session-start"))
    context = context_of(out, "SessionStart")
    assert context.count(OPEN) == 1 and context.count(CLOSE) == 1
    assert context.startswith(f"{OPEN}\n{AGENT_NOTE}\n")
    assert "Ada and drinks green tea" in context
    assert "System note" not in context and NOTE not in context  # plain facts, no system framing
    assert "Tuesday" not in context  # only the core, not every topic
    logged = last(state)
    assert (logged.agent, logged.event, logged.outcome, logged.session_id) == (A, "session-start", "ok", "abc123")
    assert logged.detail["injected"] == "injected" and logged.detail["chars"] == len(context)
    assert logged.detail["text"] == context and logged.ms is not None


def test_claude_codes_own_event_names_are_accepted(state):
    out = call(state, A, "SessionStart", payload(A, "session-start"))
    assert "green tea" in context_of(out, "SessionStart")


def test_injection_off_prints_nothing(state):
    set_config(state, "[core]\ninject = false\n")
    assert call(state, A, "session-start", payload(A, "session-start")) == ""
    assert last(state).detail["injected"] == "off" and last(state).outcome == "skipped"
    assert call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", prompt="when do deploys run?")) == ""
    assert last(state).detail["recall"] == "off"


def test_empty_memory_prints_nothing(tmp_path):
    state = tmp_path / "fresh"
    assert call(state, A, "session-start", payload(A, "session-start")) == ""
    assert last(state).detail["injected"] == "empty"
    assert call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", prompt="deploys on fridays?")) == ""
    assert last(state).outcome == "skipped"


def test_prompt_recall_brings_matching_blocks_never_twice_and_never_the_injected_core(state):
    call(state, A, "session-start", payload(A, "session-start", session_id="s1"))
    asked = payload(A, "user-prompt-submit", session_id="s1", prompt="Can we deploy on Fridays? And who is Ada?")
    context = context_of(call(state, A, "user-prompt-submit", asked), "UserPromptSubmit")
    assert "never on Fridays" in context and context.count(OPEN) == 1
    assert "green tea" not in context  # the core block was injected at session start
    hits = last(state).detail["hits"]
    assert [h["path"] for h in hits] == ["topics/infra/deploys.md"] and hits[0]["relevance"] > 0
    assert call(state, A, "user-prompt-submit", asked) == ""  # already given in this session
    assert last(state).detail["recall"] == "all seen"
    other = payload(A, "user-prompt-submit", session_id="s2", prompt="Can we deploy on Fridays?")
    assert "never on Fridays" in context_of(call(state, A, "user-prompt-submit", other), "UserPromptSubmit")


def test_recall_stays_within_its_budget_and_above_the_floor(state):
    asked = payload(A, "user-prompt-submit", prompt="deploys fridays sccache bucket region expire")
    both = context_of(call(state, A, "user-prompt-submit", dict(asked, session_id="a")), "UserPromptSubmit")
    assert "Fridays" in both and "sccache" in both
    set_config(state, f"[recall]\nbudget_chars = {len(both) - 1}\n")
    one = context_of(call(state, A, "user-prompt-submit", dict(asked, session_id="b")), "UserPromptSubmit")
    assert len(one) <= len(both) - 1 and len(last(state).detail["hits"]) == 1
    assert last(state).detail["recall_chars"] == len(one)
    set_config(state, "[recall]\nmin_relevance = 1000.0\nmin_similarity = 1.0\n")
    assert call(state, A, "user-prompt-submit", dict(asked, session_id="c")) == ""
    assert last(state).detail["recall"] == "no hits"
    set_config(state, "")
    assert call(state, A, "user-prompt-submit", dict(asked, session_id="d", prompt="the and of")) == ""


def test_a_corrupt_state_exits_0_prints_nothing_and_logs_the_error(state):
    core = state / "memory" / "core.md"
    core.unlink()
    core.mkdir()  # the rendered core is not a file any more
    (state / "memory" / ".scriptorium" / "search-model.bin").write_bytes(b"\x00garbage")
    (state / "memory" / ".scriptorium" / "search-cache.json").write_text("{not json", encoding="utf-8")
    set_config(state, "this is = = not toml [[[")
    done = cli(state, A, "session-start", payload(A, "session-start"))
    assert done.returncode == 0 and done.stdout == b""
    logged = last(state)
    assert logged.outcome == "error" and "IsADirectoryError" in logged.error
    asked = payload(A, "user-prompt-submit", prompt="deploy on Fridays?")
    done = cli(state, A, "user-prompt-submit", asked)  # recall still works from the topics
    assert done.returncode == 0 and "Fridays" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    done = cli(state, A, "user-prompt-submit", b"\xff{ not json")
    assert done.returncode == 0 and done.stdout == b"" and last(state).outcome == "error"
    done = cli(state, A, "no-such-event", payload(A, "stop"))
    assert done.returncode == 0 and done.stdout == b"" and "no-such-event" in last(state).error


def test_a_missing_transcript_is_logged_not_raised(state):
    gone = payload(A, "stop", transcript_path=str(state / "nowhere.jsonl"))
    done = cli(state, A, "stop", gone)
    assert done.returncode == 0 and done.stdout == b""
    logged = last(state)
    assert logged.outcome == "error" and "transcript not found" in logged.error and logged.event == "stop"


def _grow(src: Path, dst: Path, lines: int) -> None:
    with open(src, "rb") as fh:
        dst.write_bytes(b"".join(fh.readlines()[:lines]))


@pytest.fixture()
def live(state, tmp_path, monkeypatch):
    """The real Claude Code transcript laid out as Claude Code stores it, written in foreground."""
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    project = tmp_path / "projects" / "-home-user-spotter"
    project.mkdir(parents=True)
    sid = next(json.loads(line)["sessionId"] for line in CC_TOOL_HEAVY.read_text().splitlines() if "sessionId" in line)
    return state, sid, project / f"{sid}.jsonl"  # Claude Code names the file after the session


def test_stop_writes_per_turn_and_session_end_finishes_the_head_branch(live):
    state, sid, transcript = live
    set_config(state, "[writer]\ntrigger_tokens = 15\n")  # the fixture's 3 turns hold 47 tokens
    total = len(CC_TOOL_HEAVY.read_bytes().splitlines())
    store = SessionStore(state)
    written = []
    for lines in (10, 25):  # turn 1 (4 tokens) by line 4, turn 2 (16) by 13, turn 3 (27) by 28
        _grow(CC_TOOL_HEAVY, transcript, lines)
        assert call(state, A, "stop", payload(A, "stop", session_id=sid, transcript_path=str(transcript))) == ""
        logged = last(state)
        assert logged.outcome == "ok", logged.error
        step = logged.detail["steps"][-1]
        assert step["session"] == f"cc-{sid}"
        written.append(step["write"]["code"])
    assert written == ["BELOW_THRESHOLD", "WRITTEN"]  # one pass, once the threshold is reached
    _grow(CC_TOOL_HEAVY, transcript, total)  # the last turn, and the session ends
    assert call(state, A, "session-end", payload(A, "session-end", session_id=sid, transcript_path=str(transcript))) == ""
    logged = last(state)
    step = logged.detail["steps"][-1]
    assert logged.outcome == "ok" and step["event"] == "session-end" and step["nodes_added"] > 0
    assert step["write"]["code"] == "WRITTEN"
    assert pending(store, f"cc-{sid}") == []  # the head branch is fully marked


def test_pre_compact_writes_the_head_branch_with_force(live):
    state, sid, transcript = live
    shutil.copyfile(CC_TOOL_HEAVY, transcript)  # the default threshold (8000 tokens) is never reached
    call(state, A, "stop", payload(A, "stop", session_id=sid, transcript_path=str(transcript)))
    store = SessionStore(state)
    assert last(state).detail["steps"][-1]["write"]["code"] == "BELOW_THRESHOLD" and pending(store, f"cc-{sid}")
    call(state, A, "pre-compact", payload(A, "pre-compact", session_id=sid, transcript_path=str(transcript)))
    assert last(state).detail["steps"][-1]["write"]["code"] == "WRITTEN"
    assert pending(store, f"cc-{sid}") == []


def test_the_hook_returns_before_the_detached_work_is_done(live):
    state, sid, transcript = live
    shutil.copyfile(CC_TOOL_HEAVY, transcript)
    started = time.time()
    done = cli(state, A, "session-end", payload(A, "session-end", session_id=sid, transcript_path=str(transcript)))
    returned = time.time()
    assert done.returncode == 0 and done.stdout == b""
    queued = last(state)
    assert queued.detail["phase"] == "queued" and queued.outcome == "ok"
    job = wait_for_job(state)
    assert job.outcome == "ok", job.error
    assert job.time + job.ms / 1000 > returned > started  # the work ended after the hook had returned
    assert job.detail["steps"][-1]["write"]["outcome"] == "ok"
    assert pending(SessionStore(state), f"cc-{sid}") == []


def test_a_big_stale_index_is_rebuilt_in_the_background_not_while_the_agent_waits(state, monkeypatch):
    from scriptorium.core.agents import recall
    from scriptorium.core.agents.jobs import REBUILD_MARK, jobs_dir

    monkeypatch.setattr(recall, "INLINE_BUILD", 1)  # as if the workspace held more blocks than that
    model = state / "memory" / ".scriptorium" / "search-model.bin"
    assert not model.exists()  # nothing has searched this memory yet
    asked = payload(A, "user-prompt-submit", prompt="deploy on Fridays?")
    assert call(state, A, "user-prompt-submit", asked) == ""
    assert last(state).detail["recall"] == "index rebuilding" and last(state).outcome == "skipped"
    deadline = time.time() + 120
    while (not model.exists() or (jobs_dir(state) / REBUILD_MARK).exists()) and time.time() < deadline:
        time.sleep(0.2)
    assert model.exists()
    assert "never on Fridays" in context_of(call(state, A, "user-prompt-submit", asked), "UserPromptSubmit")


def test_the_injected_core_is_plain_text_ids_and_sources_stay_in_the_files(state):
    """Before: footnote markers, block ids and source paths went in (321 characters for a 56-character fact)."""
    import re

    rendered = (state / "memory" / "core.md").read_text(encoding="utf-8")
    assert "[^" in rendered and "sources/" in rendered  # the file keeps its evidence
    context = json.loads(call(state, "claude-code", "session-start", payload("claude-code", "session-start")))
    text = context["hookSpecificOutput"]["additionalContext"]
    assert "The user is called Ada and drinks green tea." in text
    assert "[^" not in text and "sources/" not in text and not re.search(r"\^[0-9a-f]{8}", text)
    assert len(text) < len(rendered) + len(AGENT_NOTE) + 40
    assert last(state).detail["blocks"] == 1  # the block's id is still known, for recall's dedupe
