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
