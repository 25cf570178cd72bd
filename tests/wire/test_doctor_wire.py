"""`doctor`'s model check against local servers: one tiny request through the configured
model, saying what answered, how fast, and whether tool calls work."""

from __future__ import annotations

import json

from scriptorium.core.cli import main
from scriptorium.core.config import set_config_value
from scriptorium.core.memory import Workspace

from .conftest import KEY, PROVIDERS, configure
from .servers import ScriptedServer, Turn, error, ollama_chat, openai_chat


def doctor(store, capsys, *more: str) -> tuple[int, dict, str]:
    Workspace.open(store.state_dir)
    code = main(["--state", str(store.state_dir), "doctor", "--json", *more])
    doc = json.loads(capsys.readouterr().out)
    main(["--state", str(store.state_dir), "doctor", *more])
    text = capsys.readouterr().out
    return code, next(c for c in doc["checks"] if c["name"] == "model"), text


def test_an_openai_compatible_local_server_answers_with_tool_calls(store, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    answer = openai_chat(Turn(calls=[("ping", {"ok": True})], input_tokens=40, output_tokens=5),
                         model="qwen2.5-7b-instruct")
    with ScriptedServer([answer, answer], max_requests=2) as server:
        configure(store, PROVIDERS["openai"], server.url, writer__model="openai/qwen2.5-7b-instruct",
                  model__context_tokens=32768)
        code, check, text = doctor(store, capsys)
    assert check["ok"] and check["answered_by"] == "qwen2.5-7b-instruct" and check["tool_calls"] is True
    assert 0 <= check["latency_s"] < 30 and check["context_tokens"] == 32768
    assert check["detail"].startswith(f"openai/qwen2.5-7b-instruct at {server.url}/v1: answered by qwen2.5-7b-instruct")
    assert "tool calls work" in check["detail"] and "context window 32,768 tokens (config)" in check["detail"]
    body = server.requests[0].body
    assert [t["function"]["name"] for t in body["tools"]] == ["ping"] and body["messages"][-1]["content"] == "ping"
    assert KEY not in server.requests[0].raw.decode() and KEY in server.requests[0].headers["authorization"]
    assert "model  ok    openai/qwen2.5-7b-instruct at" in text
    print(text)


def test_a_model_that_does_not_call_tools_is_a_problem(store, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    answer = ollama_chat(Turn("pong"), model="tinyllama")
    with ScriptedServer([answer, answer], max_requests=2) as server:
        configure(store, PROVIDERS["ollama"], server.url, writer__model="ollama_chat/tinyllama")
        set_config_value(store.state_dir, "model.api_key_env", "")
        code, check, text = doctor(store, capsys)
    assert code == 1 and not check["ok"] and check["tool_calls"] is False and check["answered_by"]
    assert "without calling the tool" in check["detail"]
    assert "context window unknown: set [model] context_tokens" in check["detail"]
    assert "model  FAIL" in text


def test_a_rate_limited_model_is_reported_with_its_wait(store, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    limited = error(429, "slow down", protocol="anthropic", headers={"retry-after": "30"})
    with ScriptedServer([limited, limited], max_requests=2) as server:
        configure(store, PROVIDERS["anthropic"], server.url)
        code, check, _text = doctor(store, capsys)
    assert code == 1 and not check["ok"] and check["code"] == "MODEL_RATE_LIMIT" and check["retryable"]
    assert "did not answer: MODEL_RATE_LIMIT" in check["detail"] and "retry after 30 s" in check["detail"]


def test_no_model_call_sends_nothing_and_the_offline_model_is_never_called(store, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    with ScriptedServer([], max_requests=1) as server:
        configure(store, PROVIDERS["openai"], server.url)
        code, check, _ = doctor(store, capsys, "--no-model-call")
        assert code == 0 and check == {"name": "model", "ok": True, "detail": "openai/gpt-4o-mini"}
        set_config_value(store.state_dir, "writer.model", "scriptorium/offline")
        code, check, _ = doctor(store, capsys)
    assert code == 0 and "offline" in check["detail"] and server.requests == []
