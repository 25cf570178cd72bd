"""The README's local-model settings, exactly as printed, work: each block (its api_base
pointed at a scripted server of that kind) makes doctor's model check answer with a tool
call, and the request names the model the block configures."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.writer.probe import probe_model

from .servers import ScriptedServer, Turn, ollama_chat, openai_chat

README = Path(__file__).resolve().parents[2] / "README.md"


def blocks() -> list[dict]:
    text = README.read_text()
    section = text.split("### Local models", 1)[1].split("\n## ", 1)[0]
    return [tomllib.loads(b) for b in re.findall(r"```toml\n(.*?)```", section, flags=re.S)]


def test_the_readme_shows_ollama_lm_studio_vllm_and_a_generic_server():
    models = [b["writer"]["model"].split("/", 1)[0] for b in blocks()]
    assert models == ["ollama_chat", "lm_studio", "hosted_vllm", "openai"]


@pytest.mark.parametrize("block", blocks(), ids=lambda b: b["writer"]["model"].split("/", 1)[0])
def test_each_readme_block_answers_through_litellm(store, block, monkeypatch):
    model = block["writer"]["model"]
    served = model.split("/", 1)[1]
    build = ollama_chat if model.startswith("ollama") else openai_chat
    if "api_key_env" in block["model"]:
        monkeypatch.setenv(block["model"]["api_key_env"], "any-value")
    with ScriptedServer([build(Turn(calls=[("ping", {"ok": True})]), model=served)], max_requests=1) as server:
        for table in ("writer", "model"):
            for key, value in block[table].items():
                if key == "api_base":  # the same path, on the scripted server's port
                    value = re.sub(r"^http://localhost:\d+", server.url, value)
                set_config_value(store.state_dir, f"{table}.{key}", value)
        probe = probe_model(store.state_dir)
    assert probe.ok and probe.facts["tool_calls"] and probe.facts["answered_by"], probe.detail
    assert probe.facts["context_tokens"] == block["model"]["context_tokens"]
    assert server.requests[0].body["model"] == served
    assert server.requests[0].path == ("/api/chat" if model.startswith("ollama") else "/v1/chat/completions")
