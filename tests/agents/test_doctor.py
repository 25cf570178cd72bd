"""`scriptorium doctor`: installs, the hook log's last calls and errors, state/git/model checks."""

from __future__ import annotations

import json
import time

import pytest

from scriptorium.core.agents import hook_log
from scriptorium.core.agents.hook_log import HookCall
from scriptorium.core.cli import main
from scriptorium.core.memory import Workspace

from .test_recall_warm import warm  # noqa: F401  (the fixture: warm processes on, ended after the test)


@pytest.fixture
def env(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "SCRIPTORIUM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    state = tmp_path / "state"
    Workspace.open(state)
    return home, state


def doctor(state, capsys, *more: str) -> tuple[int, dict]:
    code = main(["--state", str(state), "doctor", "--json", *more])
    return code, json.loads(capsys.readouterr().out)


def test_healthy_with_nothing_installed_then_shows_the_install_and_the_last_calls(env, capsys):
    home, state = env
    code, doc = doctor(state, capsys)
    assert code == 0 and doc["healthy"] and doc["problems"] == []
    assert {c["name"]: c["ok"] for c in doc["checks"]} == {"state": True, "git": True, "memory": True,
                                                          "model": True, "recall": True}
    assert [(a["agent"], a["installed"]) for a in doc["agents"]] == [("claude-code", False), ("codex", False), ("pi", False)]

    assert main(["--state", str(state), "install", "codex"]) == 0
    capsys.readouterr()
    now = time.time()
    hook_log.append(state, HookCall(agent="codex", event="session-start", outcome="ok", ms=4.0, time=now - 60))
    hook_log.append(state, HookCall(agent="codex", event="stop", outcome="error", error="transcript missing", time=now - 30))
    hook_log.append(state, HookCall(agent="codex", event="stop", outcome="ok", ms=2.0, time=now))
    code, doc = doctor(state, capsys)
    codex = next(a for a in doc["agents"] if a["agent"] == "codex")
    assert codex["installed"] and str(home / ".codex" / "hooks.json") in codex["scopes"][0]["where"]
    assert codex["last_calls"]["stop"]["outcome"] == "ok"  # the error is history now
    assert codex["last_calls"]["session-start"]["ms"] == 4.0
    assert [e["error"] for e in codex["errors"]] == ["transcript missing"]
    assert code == 0 and doc["healthy"]


def test_a_failing_hook_and_a_half_install_are_problems(env, capsys):
    home, state = env
    hook_log.append(state, HookCall(agent="claude-code", event="user-prompt-submit", outcome="error",
                                    error="state directory is corrupt"))
    assert main(["--state", str(state), "install", "pi"]) == 0
    assert main(["--state", str(state), "install", "claude-code"]) == 0
    (home / ".claude.json").unlink()  # the MCP registration went missing
    capsys.readouterr()
    code, doc = doctor(state, capsys)
    assert code == 1 and not doc["healthy"]
    assert any("user-prompt-submit hook failed: state directory is corrupt" in p for p in doc["problems"])
    assert any(p.startswith("claude-code: only partly installed") for p in doc["problems"])
    pi = next(a for a in doc["agents"] if a["agent"] == "pi")
    assert pi["installed"] and not pi["partial"]

    assert main(["--state", str(state), "doctor"]) == 1
    out = capsys.readouterr().out
    assert "claude-code  partly installed" in out and "2 problems:" in out


def test_unusable_state_and_model_are_reported(env, capsys, monkeypatch, tmp_path):
    _, state = env
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    code, doc = doctor(not_a_dir, capsys)
    assert code == 1 and doc["checks"][0] == {"name": "state", "ok": False, "detail": f"{not_a_dir} is not a directory"}

    monkeypatch.setenv("SCRIPTORIUM_MODEL", "anthropic/claude-sonnet-4-5")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, doc = doctor(state, capsys)
    model = next(c for c in doc["checks"] if c["name"] == "model")
    assert code == 1 and not model["ok"] and "ANTHROPIC_API_KEY" in model["detail"]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    code, doc = doctor(state, capsys, "--no-model-call")  # the settings alone (a call is tests/wire's)
    assert code == 0


def test_untrusted_codex_hooks_and_entries_pointing_at_another_state_are_problems(env, capsys, tmp_path):
    """Before: doctor said "installed, healthy" for hooks Codex skipped, or that wrote to another state."""
    import tomlkit

    home, state = env
    assert main(["--state", str(state), "install", "codex"]) == 0
    config = home / ".codex" / "config.toml"
    doc = tomlkit.parse(config.read_text())
    del doc["hooks"]["state"][next(k for k in doc["hooks"]["state"] if k.endswith(":session_end:0:0"))]
    config.write_text(doc.as_string())
    other = tmp_path / "demo-state"
    assert main(["--state", str(other), "install", "pi"]) == 0
    capsys.readouterr()
    code, report = doctor(state, capsys)
    assert code == 1
    codex = next(a for a in report["agents"] if a["agent"] == "codex")
    assert codex["untrusted_hooks"] == ["session_end"]
    assert any("Codex has not trusted 1 of our hooks (session_end)" in p and "/hooks" in p for p in report["problems"])
    assert any(p.startswith("pi:") and f"points at another state ({other})" in p for p in report["problems"])
    assert main(["--state", str(state), "install", "codex"]) == 0  # install again trusts it again
    capsys.readouterr()
    _, report = doctor(state, capsys)
    assert not any("Codex has not trusted" in p for p in report["problems"]), report["problems"]


def test_doctor_reports_the_warm_recall_process_and_how_the_last_recall_went(env, capsys, warm):  # noqa: F811
    from .test_recall_warm import end_all, warm_up

    home, state = env
    recall = lambda doc: next(c for c in doc["checks"] if c["name"] == "recall")  # noqa: E731
    _code, doc = doctor(state, capsys, "--no-model-call")
    assert recall(doc)["warm_pid"] is None and "no warm process running" in recall(doc)["detail"]
    warm.append(state)
    process = warm_up(state)
    hook_log.append(state, HookCall(agent="claude-code", event="user-prompt-submit", outcome="ok",
                                    detail={"recall_via": "warm"}))
    _code, doc = doctor(state, capsys, "--no-model-call")
    assert recall(doc)["warm_pid"] == process and recall(doc)["last_recall_via"] == "warm"
    assert f"warm process {process} serves this state" in recall(doc)["detail"]
    assert main(["--state", str(state), "doctor", "--no-model-call"]) == 0
    assert f"recall ok    warm process {process}" in capsys.readouterr().out
    end_all([state], __import__("signal").SIGTERM)
    _code, doc = doctor(state, capsys, "--no-model-call")
    assert recall(doc)["warm_pid"] is None
