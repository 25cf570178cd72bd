from scriptorium.core.agents import hook_log
from scriptorium.core.agents.hook_log import HookCall


def test_calls_read_back_newest_first_and_bad_lines_are_skipped(tmp_path):
    hook_log.append(tmp_path, HookCall(agent="claude-code", event="session-start", outcome="ok", ms=3.0))
    with open(hook_log.log_path(tmp_path), "a") as fh:
        fh.write("{not json\n")
    hook_log.append(tmp_path, HookCall(agent="codex", event="stop", outcome="error", error="boom"))
    calls = hook_log.recent(tmp_path)
    assert [(c.agent, c.outcome) for c in calls] == [("codex", "error"), ("claude-code", "ok")]
    assert calls[0].error == "boom"


def test_the_log_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(hook_log, "MAX_BYTES", 2000)
    for i in range(200):
        hook_log.append(tmp_path, HookCall(agent="pi", event="e", outcome="ok", detail={"i": i}))
    assert hook_log.log_path(tmp_path).stat().st_size <= 2000 + 200
    assert hook_log.recent(tmp_path)[0].detail == {"i": 199}


def test_an_unwritable_state_does_not_raise(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    hook_log.append(blocker, HookCall(agent="pi", event="e", outcome="ok"))
    assert hook_log.recent(blocker) == []


def test_what_a_hook_is_given_is_redacted_before_it_is_logged(tmp_path):
    """A session id, a transcript path and an event name are whatever the agent sent; a
    secret in them never reaches hooks.jsonl (nor doctor, which reads it)."""
    from tests.agents.conftest import cli, payload

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    aws = "AKIA" + "QX7ZJ2LM4NB5VC6K"
    state = tmp_path / "state"
    doc = payload("claude-code", "stop", session_id=token, transcript_path=f"/tmp/password=Hunter2x{aws}/t.jsonl")
    assert cli(state, "claude-code", "stop", doc, foreground=True).returncode == 0
    assert cli(state, "claude-code", f"stop-{aws}", doc).returncode == 0
    logged = hook_log.log_path(state).read_text(encoding="utf-8")
    assert len(logged.splitlines()) == 2 and "error" in logged
    assert token not in logged and aws not in logged and "Hunter2x" not in logged
    assert "[REDACTED:github-token:" in logged and "[REDACTED:aws-access-key:" in logged


def test_a_log_line_is_redacted_by_the_users_rules_and_private_spans_too(tmp_path):
    """The log line builds the redactor only when a string could hold a secret; a user's own
    rule (no literals), a `<private>` span and a secret-named field always count as that."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "config.toml").write_text('[redact.patterns]\nticket = "zq[0-9]{6}"\n', encoding="utf-8")
    detail = {"note": "before <PRIVATE>hidden words</PRIVATE> after", "api_key": "Zx81Qp02Lm93Wn74"}
    hook_log.append(state, HookCall(agent="pi", event="e", outcome="error", error="failed on zq123456",
                                    detail=detail))
    logged = hook_log.log_path(state).read_text(encoding="utf-8")
    assert "zq123456" not in logged and "[REDACTED:ticket:" in logged
    assert "hidden words" not in logged and "Zx81Qp02Lm93Wn74" not in logged
