"""The one seam between the agent loop and a chat model.

A model is anything with `complete(model, messages, tools, timeout) -> Reply`:
OpenAI-style chat messages and tool schemas in, the assistant's text or tool calls
out. Providers are registered by name (`register_provider("scriptorium", ...)` serves
`scriptorium/...` model ids); the built-in offline model registers itself (offline.py)
and tests register scripted ones. Only a model id no registered provider serves goes
to litellm — the one place it is imported, inside the call, since it costs seconds
to import. A handler registered the older way, as a `litellm.CustomLLM`, is served
through litellm's custom provider map. This module imports nothing else of the
writer, so no module that implements a model is imported back from here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..config import load_config

MODEL_ENV = "SCRIPTORIUM_MODEL"
OFFLINE_MODEL = "scriptorium/offline"
DEFAULT_TIMEOUT_S = 120.0

Step = str | Sequence[tuple[str, dict[str, Any]]]
"""What a deterministic model decides: a final answer, or tool calls `(name, arguments)`."""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as models send it


@dataclass
class Reply:
    """One assistant turn: text, tool calls (none: the run is over), token usage, and
    what litellm knows of it: the cost in USD (None: unknown), the model id that
    answered, why the answer ended (`length`: cut at the output limit)."""

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    answered_by: str | None = None
    finish_reason: str | None = None

    @classmethod
    def of(cls, step: Step, offset: int = 0) -> Reply:
        """The reply for a step; tool call ids are numbered from `offset` (unique per run)."""
        if isinstance(step, str):
            return cls(content=step)
        return cls(tool_calls=[ToolCall(f"call_{offset + i}", name, json.dumps(args, ensure_ascii=False))
                               for i, (name, args) in enumerate(step)])


@runtime_checkable
class ChatModel(Protocol):
    def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 timeout: float) -> Reply: ...


# provider name -> a ChatModel, or a litellm CustomLLM (served through litellm)
_providers: dict[str, Any] = {}


def register_provider(name: str, handler: Any) -> None:
    """Serve model ids `<name>/...` with `handler`: a `ChatModel`, or a `litellm.CustomLLM`."""
    _providers[name] = handler


def resolve_model(state_dir: Path, explicit: str | None = None) -> str:
    """`--model`, then `$SCRIPTORIUM_MODEL`, then config `writer.model`, then the offline model."""
    if explicit:
        return explicit
    env = os.environ.get(MODEL_ENV, "").strip()
    if env:
        return env
    return load_config(state_dir).text("writer.model") or OFFLINE_MODEL


def model_timeout(state_dir: Path) -> float:
    return load_config(state_dir).positive("writer.timeout_s", DEFAULT_TIMEOUT_S)


@dataclass(frozen=True)
class Endpoint:
    """How a real model is reached, from config.toml's `[model]` table: `api_base` (a local
    server, a proxy), `api_key_env` (the name of the variable holding its key: the key
    itself never sits in the config), `stream` (answers read as they are generated), and
    `context_tokens` (the model's context window, for models litellm does not know)."""

    api_base: str | None = None
    api_key_env: str | None = None
    stream: bool = False
    context_tokens: int | None = None

    def options(self) -> dict[str, Any]:
        """litellm's keyword arguments for this endpoint."""
        out: dict[str, Any] = {}
        if self.api_base:
            out["api_base"] = self.api_base
        if self.api_key_env and os.environ.get(self.api_key_env):
            out["api_key"] = os.environ[self.api_key_env]
        return out


def model_endpoint(state_dir: Path) -> Endpoint:
    config = load_config(state_dir)
    window = config.integer("model.context_tokens", 0, low=1)
    return Endpoint(config.text("model.api_base"), config.text("model.api_key_env"), config.flag("model.stream", False),
                    window or None)


def context_window(model: str, endpoint: Endpoint) -> int | None:
    """The model's context window in tokens: `[model] context_tokens` when set (the user
    knows what their server loaded), else litellm's model info, else None (unknown).
    Only a model served by litellm is looked up (the lookup imports it)."""
    if endpoint.context_tokens:
        return endpoint.context_tokens
    if isinstance(_providers.get(model.split("/", 1)[0]), ChatModel):
        return None
    try:
        info = load_litellm().get_model_info(model)
    except Exception:  # not in litellm's map (most local models), or litellm missing
        return None
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if isinstance(window, int) and window > 0 else None


def warm(model: str) -> None:
    """Import what serving `model` takes (litellm: seconds), so that timing a call measures the call."""
    if not isinstance(_providers.get(model.split("/", 1)[0]), ChatModel):
        load_litellm()


def completion(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], timeout: float,
               endpoint: Endpoint | None = None) -> Reply:
    """One chat completion (with tools when given). Errors propagate (see classify.py)."""
    handler = _providers.get(model.split("/", 1)[0])
    if isinstance(handler, ChatModel):
        return handler.complete(model, messages, tools, timeout)
    return _litellm_completion(model, messages, tools, timeout, endpoint or Endpoint())


def load_litellm() -> Any:
    """Import litellm offline-safe: its bundled cost map, tiktoken's bundled encodings."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from ..tokens import encoding

    encoding()  # our shipped o200k_base, loaded before litellm points TIKTOKEN_CACHE_DIR at its own
    try:
        import litellm
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            "a real model needs litellm, an optional extra: pip install 'scriptorium-memory[models]' "
            "(the offline model needs nothing)") from exc

    litellm.suppress_debug_info = True
    return litellm


def _litellm_completion(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                        timeout: float, endpoint: Endpoint) -> Reply:
    litellm = load_litellm()
    custom = {name: h for name, h in _providers.items() if not isinstance(h, ChatModel)}
    if custom:
        others = [item for item in litellm.custom_provider_map if item.get("provider") not in custom]
        litellm.custom_provider_map = others + [{"provider": p, "custom_handler": h} for p, h in custom.items()]
        from litellm.utils import custom_llm_setup

        custom_llm_setup()
    extra: dict[str, Any] = {"tools": tools} if tools else {}  # some providers reject an empty tools list
    if endpoint.stream:
        extra["stream"] = True
        extra["stream_options"] = {"include_usage": True}
    # max_retries=0 too: the OpenAI SDK under litellm retries on its own otherwise; a retry
    # is the caller's decision (the outcome says when), never a hidden wait here
    response = litellm.completion(model=model, messages=messages, timeout=timeout, num_retries=0, max_retries=0,
                                  **endpoint.options(), **extra)
    reply = _streamed(response) if endpoint.stream else _answer(response)
    reply.cost_usd = _cost(litellm, model, reply)
    return reply


def _arguments(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _answer(response: Any) -> Reply:
    choice = response.choices[0]
    message = choice.message
    calls = [ToolCall(call.id, call.function.name, _arguments(call.function.arguments))
             for call in getattr(message, "tool_calls", None) or []]
    usage = getattr(response, "usage", None)
    return Reply(message.content, calls, int(getattr(usage, "prompt_tokens", 0) or 0),
                 int(getattr(usage, "completion_tokens", 0) or 0), None,
                 getattr(response, "model", None) or None, getattr(choice, "finish_reason", None))


def _streamed(chunks: Any) -> Reply:
    """A streamed answer put together: text pieces joined, each tool call's fragments joined
    by its index. Not litellm's stream_chunk_builder, which drops a call that arrives
    without an id (Ollama's calls with no arguments, `list_files {}`)."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    usage: Any = None
    finish: str | None = None
    answered_by: str | None = None
    for chunk in chunks:
        answered_by = getattr(chunk, "model", None) or answered_by
        usage = getattr(chunk, "usage", None) or usage
        for choice in chunk.choices or []:
            finish = getattr(choice, "finish_reason", None) or finish
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            for position, call in enumerate(delta.tool_calls or []):
                index = call.index if isinstance(getattr(call, "index", None), int) else position
                entry = calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
                entry["id"] = entry["id"] or call.id
                if call.function is not None:
                    entry["name"] += call.function.name or ""
                    entry["arguments"] += _arguments(call.function.arguments or "")
    tool_calls = [ToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"]) for i, c in sorted(calls.items())]
    return Reply("".join(text) or None, tool_calls, int(getattr(usage, "prompt_tokens", 0) or 0),
                 int(getattr(usage, "completion_tokens", 0) or 0), None, answered_by, finish)


def _cost(litellm: Any, model: str, reply: Reply) -> float | None:
    """What litellm prices the answer's tokens at (its bundled cost map); None for a model it has no price for."""
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=reply.input_tokens,
                                                    completion_tokens=reply.output_tokens)
    except Exception:  # a local or unmapped model: no price
        return None
    return float(prompt) + float(completion)
