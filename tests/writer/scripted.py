"""Scripted models for tests: a model behind the writer's seam whose replies are a script.

Registered exactly like the offline model (`register_provider`), so the writer reaches
it through the same agent loop, tools and transaction. Each step is a final answer
(str), a list of tool calls `(name, arguments)`, an exception to raise, or a callable
`(messages) -> step`; the last step repeats when the script runs out. Organizer runs
(offered `retire_block`) follow their own script, by default a polite "nothing to do".
`CustomLLMError` is litellm's provider error, the kind a real provider raises.
"""

from __future__ import annotations

import copy
from typing import Any

from litellm.llms.custom_llm import CustomLLMError

from scriptorium.core.writer.model import Reply, register_provider

__all__ = ["CustomLLMError", "ScriptedModel", "scripted"]


class ScriptedModel:
    def __init__(self, steps: list[Any], organizer: list[Any]) -> None:
        self.scripts = {"write": list(steps), "organize": list(organizer)}
        self.served = {"write": 0, "organize": 0}
        self.requests: list[list[dict[str, Any]]] = []

    def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 timeout: float) -> Reply:
        self.requests.append(copy.deepcopy(messages))
        which = "organize" if "retire_block" in {t["function"]["name"] for t in tools} else "write"
        script = self.scripts[which]
        step = script[min(self.served[which], len(script) - 1)]
        self.served[which] += 1
        if callable(step):
            step = step(messages)
        if isinstance(step, BaseException):
            raise step
        return Reply.of(step, len(self.requests) * 100)

    @property
    def prompts(self) -> list[str]:
        """The task of every agent run that reached this model (a run starts with system + task)."""
        return [messages[1]["content"] for messages in self.requests if len(messages) == 2]


def scripted(steps: list[Any], organizer: list[Any] | None = None, provider: str = "scripted") -> tuple[ScriptedModel, str]:
    """Register a scripted provider; returns it and the model name to pass as `model`."""
    model = ScriptedModel(steps, organizer or ["Nothing to reorganize."])
    register_provider(provider, model)
    return model, f"{provider}/test"
