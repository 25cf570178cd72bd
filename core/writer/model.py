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
    """One assistant turn: text, tool calls (none: the run is over), token usage."""

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0

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


def completion(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], timeout: float) -> Reply:
    """One chat completion (with tools when given). Errors propagate (see classify.py)."""
    handler = _providers.get(model.split("/", 1)[0])
    if isinstance(handler, ChatModel):
        return handler.complete(model, messages, tools, timeout)
    return _litellm_completion(model, messages, tools, timeout)


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
                        timeout: float) -> Reply:
    litellm = load_litellm()
    custom = {name: h for name, h in _providers.items() if not isinstance(h, ChatModel)}
    if custom:
        others = [item for item in litellm.custom_provider_map if item.get("provider") not in custom]
        litellm.custom_provider_map = others + [{"provider": p, "custom_handler": h} for p, h in custom.items()]
        from litellm.utils import custom_llm_setup

        custom_llm_setup()
    extra = {"tools": tools} if tools else {}  # some providers reject an empty tools list
    response = litellm.completion(model=model, messages=messages, timeout=timeout, num_retries=0, **extra)
    message = response.choices[0].message
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        arguments = call.function.arguments
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(ToolCall(call.id, call.function.name, arguments))
    usage = getattr(response, "usage", None)
    return Reply(message.content, calls, int(getattr(usage, "prompt_tokens", 0) or 0),
                 int(getattr(usage, "completion_tokens", 0) or 0))
