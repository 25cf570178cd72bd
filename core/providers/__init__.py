"""Memory providers and the registry that picks one by name (config `memory.provider`)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ..config import load_config
from .base import MemoryProvider, Message

DEFAULT_PROVIDER = "scriptorium"
CONFIG_KEY = "memory.provider"

# name -> "module:class", imported only when chosen (the scriptorium provider pulls in
# the write pipeline, which a trilogy user never needs).
_REGISTRY: dict[str, str] = {
    "scriptorium": "scriptorium.core.providers.scriptorium:ScriptoriumProvider",
    "trilogy": "scriptorium.core.providers.trilogy:TrilogyProvider",
}


def provider_names() -> list[str]:
    return sorted(_REGISTRY)


def register_provider(name: str, target: str) -> None:
    """Add a provider (`"package.module:Class"`); its constructor takes `(state_dir, **options)`."""
    _REGISTRY[name] = target


def create_provider(state_dir: Path, name: str | None = None, **options: Any) -> MemoryProvider:
    """The provider called `name`, else the one `memory.provider` names, else the default."""
    chosen = name or load_config(state_dir).get(CONFIG_KEY) or DEFAULT_PROVIDER
    if not isinstance(chosen, str) or chosen not in _REGISTRY:
        raise ValueError(f"unknown memory provider {chosen!r}; known: {', '.join(provider_names())}")
    module_name, _, class_name = _REGISTRY[chosen].partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(Path(state_dir), **options)


__all__ = ["DEFAULT_PROVIDER", "MemoryProvider", "Message", "create_provider", "provider_names", "register_provider"]
