"""Scripted models for tests: a litellm custom provider whose responses are a script.

Registered exactly like the offline model (`register_provider`), so the writer reaches
it through litellm. Each step is a final answer (str), a list of tool calls
`(name, arguments)`, an exception to raise, or a callable `(messages) -> step`; the
last step repeats when the script runs out. Organizer runs (offered `retire_block`)
follow their own script, by default a polite "nothing to do".
"""

from __future__ import annotations

import copy
from typing import Any

from scriptorium.core.writer.model import load_litellm, register_provider
from scriptorium.core.writer.offline import respond

CustomLLM = load_litellm().CustomLLM
from litellm.llms.custom_llm import CustomLLMError  # noqa: E402  (re-exported for tests)

__all__ = ["CustomLLMError", "ScriptedModel", "scripted"]


class ScriptedModel(CustomLLM):
    def __init__(self, steps: list[Any], organizer: list[Any]) -> None:
        super().__init__()
        self.scripts = {"write": list(steps), "organize": list(organizer)}
        self.served = {"write": 0, "organize": 0}
        self.requests: list[list[dict[str, Any]]] = []

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                   api_key, logging_obj, optional_params, *args, **kwargs):
        self.requests.append(copy.deepcopy(messages))
        tools = {t["function"]["name"] for t in optional_params.get("tools") or []}
        which = "organize" if "retire_block" in tools else "write"
        script = self.scripts[which]
        step = script[min(self.served[which], len(script) - 1)]
        self.served[which] += 1
        if callable(step):
            step = step(messages)
        if isinstance(step, BaseException):
            raise step
        return respond(model_response, model, step, len(self.requests) * 100)

    @property
    def prompts(self) -> list[str]:
        """The task of every agent run that reached this model (a run starts with system + task)."""
        return [messages[1]["content"] for messages in self.requests if len(messages) == 2]


def scripted(steps: list[Any], organizer: list[Any] | None = None, provider: str = "scripted") -> tuple[ScriptedModel, str]:
    """Register a scripted provider; returns it and the model name to pass as `model`."""
    model = ScriptedModel(steps, organizer or ["Nothing to reorganize."])
    register_provider(provider, model)
    return model, f"{provider}/test"
