"""Calling a chat model through litellm: which model, and the one place litellm is imported.

litellm costs seconds to import, so it is imported here, inside the call, never at
module level. Before the import its cost map is pinned to the bundled copy and
tiktoken is pointed at litellm's bundled encodings (core/tokens.py): no network.
Custom providers (the offline model, tests' scripted models) are registered the
litellm way, in `litellm.custom_provider_map`, and are called exactly like a real
provider.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..config import load_config

MODEL_ENV = "SCRIPTORIUM_MODEL"
OFFLINE_MODEL = "scriptorium/offline"
DEFAULT_TIMEOUT_S = 120.0

# provider name -> handler (a litellm CustomLLM); installed into litellm on every call
_custom: dict[str, Any] = {}


def resolve_model(state_dir: Path, explicit: str | None = None) -> str:
    """`--model`, then `$SCRIPTORIUM_MODEL`, then config `writer.model`, then the offline model."""
    if explicit:
        return explicit
    env = os.environ.get(MODEL_ENV, "").strip()
    if env:
        return env
    configured = load_config(state_dir).get("writer.model")
    if isinstance(configured, str) and configured.strip():
        return configured.strip()
    return OFFLINE_MODEL


def model_timeout(state_dir: Path) -> float:
    value = load_config(state_dir).get("writer.timeout_s", DEFAULT_TIMEOUT_S)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else DEFAULT_TIMEOUT_S


def register_provider(name: str, handler: Any) -> None:
    """Serve models `<name>/...` with `handler` (a `litellm.CustomLLM`)."""
    _custom[name] = handler


def load_litellm():
    """Import litellm offline-safe: its bundled cost map, tiktoken's bundled encodings."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from ..tokens import encoding

    encoding()  # sets TIKTOKEN_CACHE_DIR to litellm's bundled folder before litellm loads
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _install(litellm: Any) -> None:
    if "scriptorium" not in _custom:
        from .offline import make_offline_model

        _custom["scriptorium"] = make_offline_model()
    others = [item for item in litellm.custom_provider_map if item.get("provider") not in _custom]
    litellm.custom_provider_map = others + [{"provider": p, "custom_handler": h} for p, h in _custom.items()]
    from litellm.utils import custom_llm_setup

    custom_llm_setup()


def completion(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], timeout: float) -> Any:
    """One chat completion (with tools when given); litellm's exceptions propagate (see classify.py)."""
    litellm = load_litellm()
    _install(litellm)
    extra = {"tools": tools} if tools else {}  # some providers reject an empty tools list
    return litellm.completion(model=model, messages=messages, timeout=timeout, num_retries=0, **extra)
