"""Scripted models for tests: a litellm custom provider whose responses are a script.

Registered exactly like the offline model (`register_provider`), so the writer reaches
it through litellm. Each step is a final answer (str), a list of tool calls
`(name, arguments)`, an exception to raise, or a callable `(messages) -> step`.
The last step repeats when the script runs out.
"""

from __future__ import annotations

import copy
from typing import Any

from litellm import CustomLLM

from scriptorium.core.writer.model import register_provider
from scriptorium.core.writer.offline import respond


class ScriptedModel(CustomLLM):
    def __init__(self, steps: list[Any]) -> None:
        super().__init__()
        self.steps = list(steps)
        self.requests: list[list[dict[str, Any]]] = []
        self.tool_names: list[set[str]] = []

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                   api_key, logging_obj, optional_params, *args, **kwargs):
        self.requests.append(copy.deepcopy(messages))
        self.tool_names.append({t["function"]["name"] for t in optional_params.get("tools") or []})
        step = self.steps[min(len(self.requests) - 1, len(self.steps) - 1)]
        if callable(step):
            step = step(messages)
        if isinstance(step, BaseException):
            raise step
        return respond(model_response, model, step, len(self.requests) * 100)

    @property
    def prompts(self) -> list[str]:
        """The task of every agent run that reached this model (a run starts with system + task)."""
        return [messages[1]["content"] for messages in self.requests if len(messages) == 2]


def scripted(steps: list[Any], provider: str = "scripted") -> tuple[ScriptedModel, str]:
    """Register a scripted provider; returns it and the model name to pass as `model`."""
    model = ScriptedModel(steps)
    register_provider(provider, model)
    return model, f"{provider}/test"
