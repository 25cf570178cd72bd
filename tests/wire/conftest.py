"""The writer over the wire: a state configured for a real model behind a local scripted server.

`Provider` describes one wire protocol as the tests drive it: the litellm model id, the
`api_base` to configure for a server, the answer builder of `servers.py`, and how to read
back what the client sent (the system prompt, the tools offered, the task, the tool
results returned) from a request body in that provider's format.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.store import SessionStore

from .servers import Response, Turn, anthropic_messages, ollama_chat, openai_chat

KEY_ENV = "SCRIPTORIUM_WIRE_TEST_KEY"
KEY = "sk-wire-test-0123456789abcdefghijklmnop"  # must reach the server in a header, never in a body


@dataclass(frozen=True)
class Seen:
    """What one request asked, read back in neutral terms."""

    system: str
    tools: list[str]
    task: str
    results: list[tuple[str, str]]  # (call id, tool result text), in order
    assistant_calls: list[str]  # call ids of the assistant's earlier tool calls, in order

    @property
    def rounds(self) -> int:
        """Assistant answers already in the conversation: the round this request is for, minus one."""
        return len(self.assistant_calls)


@dataclass(frozen=True)
class Provider:
    name: str  # the protocol: "openai" | "anthropic" | "ollama"
    model: str
    path: str  # the request path the client posts to
    suffix: str  # what api_base adds to the server's URL
    build: Callable[..., Response]
    key_header: str

    def answer(self, turn: Turn, stream: bool) -> Response:
        return self.build(turn, stream=stream)

    def seen(self, body: dict[str, Any]) -> Seen:
        if self.name == "anthropic":
            return _anthropic_seen(body)
        return _openai_seen(body)  # Ollama's /api/chat takes OpenAI-shaped messages and tools


def _openai_seen(body: dict[str, Any]) -> Seen:
    messages = body["messages"]
    tools = [t["function"]["name"] for t in body.get("tools", [])]
    results = [(m.get("tool_call_id", ""), m["content"]) for m in messages if m["role"] == "tool"]
    calls = [m for m in messages if m["role"] == "assistant"]
    ids = [c.get("id", "") for m in calls for c in m.get("tool_calls") or []]
    return Seen(messages[0]["content"], tools, messages[1]["content"], results, ids or [""] * len(calls))


def _anthropic_seen(body: dict[str, Any]) -> Seen:
    system = body["system"]
    if isinstance(system, list):
        system = "".join(block["text"] for block in system)
    tools = [t["name"] for t in body.get("tools", [])]
    messages = body["messages"]
    first = messages[0]["content"]
    task = first if isinstance(first, str) else "".join(b.get("text", "") for b in first)
    results, ids = [], []
    for m in messages:
        for block in m["content"] if isinstance(m["content"], list) else []:
            if block["type"] == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
                results.append((block["tool_use_id"], text))
            elif block["type"] == "tool_use":
                ids.append(block["id"])
    return Seen(system, tools, task, results, ids)


PROVIDERS = {
    "openai": Provider("openai", "openai/gpt-4o-mini", "/v1/chat/completions", "/v1", openai_chat, "authorization"),
    "anthropic": Provider("anthropic", "anthropic/claude-sonnet-4-5", "/v1/messages", "", anthropic_messages,
                          "x-api-key"),
    "ollama": Provider("ollama", "ollama_chat/llama3.1", "/api/chat", "", ollama_chat, "authorization"),
}


@pytest.fixture()
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name in list(os.environ):  # no real key of the machine's may reach a test server
        if name.endswith("_API_KEY") or name.endswith("_BASE_URL"):
            monkeypatch.delenv(name)


def configure(store: SessionStore, provider: Provider, url: str, *, stream: bool = False, **more: Any) -> None:
    """Point the state at a scripted server as a user would, in config.toml."""
    state = store.state_dir
    set_config_value(state, "writer.model", provider.model)
    set_config_value(state, "model.api_base", url + provider.suffix)
    set_config_value(state, "model.api_key_env", KEY_ENV)
    set_config_value(state, "model.stream", stream)
    for key, value in more.items():
        set_config_value(state, key.replace("__", "."), value)


def refs(task: str) -> list[str]:
    """The record refs a writer task hands over."""
    return [json.loads(line)["ref"] for line in task.splitlines() if line.startswith('{"ref"')]


def block_ids(listing: str) -> list[str]:
    return re.findall(r"^\^(\S+)", listing, flags=re.M)


def audit_records(store: SessionStore) -> list[dict[str, Any]]:
    path = StatePaths(store.state_dir).runtime / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def topics(store: SessionStore) -> dict[str, str]:
    root = StatePaths(store.state_dir).memory / "topics"
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.md"))}
