"""The agent loop: a chat model edits the staging topics through tools, for a bounded
number of rounds, and every call it makes is audited (formats §4.8).

The loop knows nothing about memory rules: it hands the model a task, runs the tool
calls the model asks for (a refused call is returned to the model as an error, never
raised), and stops when the model answers without tool calls or the rounds run out.
Model and network errors propagate to the caller, which classifies them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..redact import Redactor
from .model import completion
from .progress import Monitor
from .tools import ToolError, TopicTools

MAX_ROUNDS = 20
AUDIT_CHARS = 2000


@dataclass
class AgentRun:
    stage: str
    model: str
    system_prompt: str
    prompt: str
    turns: int
    reply: str = ""
    rounds: int = 0
    stop_reason: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    audit: list[dict[str, Any]] = field(default_factory=list)

    def history_entry(self) -> dict[str, Any]:
        """One line of `agent-history.jsonl` (formats §2.1)."""
        return {"stage": self.stage, "system_prompt": self.system_prompt, "prompt": self.prompt, "turns": self.turns,
                "reply": self.reply, "rounds": self.rounds, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "stop_reason": self.stop_reason}


def run_agent(*, model: str, system: str, prompt: str, tools: TopicTools, stage: str, turns: int,
              timeout: float, max_rounds: int = MAX_ROUNDS, monitor: Monitor | None = None,
              redactor: Redactor | None = None) -> AgentRun:
    """With a `redactor` (the state's), no model — the offline one included — and no
    history line ever sees a secret: the prompt, tool results and every message sent."""
    if redactor is not None:
        prompt = redactor.text(prompt)
    run = AgentRun(stage, model, system, prompt, turns)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    run.stop_reason = "max_rounds"
    for round_no in range(1, max_rounds + 1):
        if monitor is not None:
            monitor.round()
        sent = redactor.messages(messages) if redactor is not None else messages
        reply = completion(model, sent, tools.schemas, timeout)
        run.rounds = round_no
        run.input_tokens += reply.input_tokens
        run.output_tokens += reply.output_tokens
        calls: list[dict[str, Any]] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                 for c in reply.tool_calls]
        entry: dict[str, Any] = {"role": "assistant", "content": reply.content or ""}
        if calls:
            entry["tool_calls"] = calls
        messages.append(entry)
        if not calls:
            run.reply = reply.content or ""
            run.stop_reason = "stop"
            break
        for call in calls:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            try:
                output, status = tools.call(name, arguments), "ok"
            except ToolError as exc:
                output, status = f"error: {exc}", "error"
            if redactor is not None:
                output = redactor.text(output)
            run.audit.append({"round": round_no, "tool": name, "arguments": _audit_arguments(arguments),
                              "status": status, "output": _clip(output)})
            messages.append({"role": "tool", "tool_call_id": call["id"], "name": name, "content": output})
            if monitor is not None:
                monitor.called(name)
    run.audit.append({"tool": "agent", "status": "ok", "reason": run.stop_reason, "reply": _clip(run.reply),
                      "rounds": run.rounds,
                      "turns": turns, "input_tokens": run.input_tokens, "output_tokens": run.output_tokens})
    return run


def _clip(text: str) -> str:
    return text if len(text) <= AUDIT_CHARS else text[:AUDIT_CHARS] + "\u2026"


def _audit_arguments(arguments: str) -> Any:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return _clip(arguments)
    if isinstance(parsed, dict):
        return {k: _clip(v) if isinstance(v, str) else v for k, v in parsed.items()}
    return parsed
