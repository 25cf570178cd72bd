"""The agent loop: a chat model edits the staging topics through tools, for a bounded
number of rounds, and every call it makes is audited (formats §4.8).

The loop knows nothing about memory rules: it hands the model a task, runs the tool
calls the model asks for (a refused call is returned to the model as an error, never
raised), and stops when the model answers without tool calls. A run that does not end
that way — the rounds run out, the model repeats the same calls, or its answers grow
the conversation past its context window — raises `ModelMisbehaved`, saying what the
model did: nothing of such a run is installed. Model and network errors propagate to
the caller, which classifies them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..redact import Redactor
from ..tokens import count_tokens
from .model import Endpoint, Reply, completion
from .progress import Monitor
from .tools import ToolError, TopicTools

MAX_ROUNDS = 20
LOOP_ROUNDS = 3  # the same calls this many rounds in a row: the model is looping
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
    cost_usd: float | None = None  # litellm's price of the run's answers; None when it has none
    answered_by: str | None = None  # the model id the provider says answered
    audit: list[dict[str, Any]] = field(default_factory=list)

    def history_entry(self) -> dict[str, Any]:
        """One line of `agent-history.jsonl` (formats §2.1)."""
        return {"stage": self.stage, "system_prompt": self.system_prompt, "prompt": self.prompt, "turns": self.turns,
                "reply": self.reply, "rounds": self.rounds, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "cost_usd": self.cost_usd, "stop_reason": self.stop_reason}

    def add(self, reply: Reply) -> None:
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens
        if reply.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + reply.cost_usd
        self.answered_by = reply.answered_by or self.answered_by


class ModelMisbehaved(Exception):
    """The model ended its run without finishing it: what it did, as a permanent failure
    (the same model on the same batch does the same); the run's edits are not installed."""

    retryable = False

    def __init__(self, code: str, message: str, run: AgentRun) -> None:
        super().__init__(message)
        self.code = code
        self.run = run


def run_agent(*, model: str, system: str, prompt: str, tools: TopicTools, stage: str, turns: int,
              timeout: float, max_rounds: int = MAX_ROUNDS, monitor: Monitor | None = None,
              redactor: Redactor | None = None, endpoint: Endpoint | None = None,
              window: int | None = None) -> AgentRun:
    """With a `redactor` (the state's), no model — the offline one included — and no
    history line ever sees a secret: the prompt, tool results and every message sent.
    `window`: the model's context window in tokens; no request larger is sent."""
    if redactor is not None:
        prompt = redactor.text(prompt)
    run = AgentRun(stage, model, system, prompt, turns)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    size = _Size(tools.schemas, messages) if window else None
    run.stop_reason = "max_rounds"
    previous: list[tuple[str, str]] = []
    repeats = 0
    for round_no in range(1, max_rounds + 1):
        if size is not None and window is not None and size.tokens > window:
            run.stop_reason = "context"
            _finish(run, turns)
            raise ModelMisbehaved("MODEL_CONTEXT_LENGTH", _over_window(run, size.tokens, window, messages), run)
        if monitor is not None:
            monitor.round()
        sent = redactor.messages(messages) if redactor is not None else messages
        reply = completion(model, sent, tools.schemas, timeout, endpoint)
        run.rounds = round_no
        run.add(reply)
        calls: list[dict[str, Any]] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                 for c in reply.tool_calls]
        entry: dict[str, Any] = {"role": "assistant", "content": reply.content or ""}
        if calls:
            entry["tool_calls"] = calls
        messages.append(entry)
        if size is not None:
            size.add(entry)
        if not calls:
            run.reply = reply.content or ""
            run.stop_reason = "stop"
            break
        these = [(c["function"]["name"], c["function"]["arguments"]) for c in calls]
        repeats = repeats + 1 if these == previous else 1
        previous = these
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
            if size is not None:
                size.add(messages[-1])
            if monitor is not None:
                monitor.called(name)
        if repeats >= LOOP_ROUNDS:
            run.stop_reason = "loop"
            break
    _finish(run, turns)
    if run.stop_reason == "loop":
        name, arguments = previous[0]
        raise ModelMisbehaved("WRITER_NO_PROGRESS", f"the model {model} made the same call {repeats} rounds in a row "
                              f"({name} {_clip(arguments, 120)}) without finishing ({describe_calls(run.audit)}); "
                              "nothing of this run is installed", run)
    if run.stop_reason == "max_rounds":
        raise ModelMisbehaved("WRITER_NO_PROGRESS", f"the model {model} never finished: {run.rounds} rounds of tool "
                              f"calls without a final answer ({describe_calls(run.audit)}); nothing of this run is "
                              "installed", run)
    return run


def _finish(run: AgentRun, turns: int) -> None:
    run.audit.append({"tool": "agent", "status": "ok", "reason": run.stop_reason, "reply": _clip(run.reply),
                      "rounds": run.rounds, "turns": turns, "input_tokens": run.input_tokens,
                      "output_tokens": run.output_tokens, "cost_usd": run.cost_usd})


def describe_calls(audit: list[dict[str, Any]]) -> str:
    """What a model's tool calls came to, for a person: each tool with how its calls ended,
    and the last refusal's words."""
    calls = [e for e in audit if e.get("round")]
    if not calls:
        return "no tool calls"
    counts = Counter((e["tool"], e["status"]) for e in calls)
    text = ", ".join(f"{tool} {'refused' if status == 'error' else 'ok'} x{n}" for (tool, status), n in counts.items())
    refused = [e for e in calls if e["status"] == "error"]
    if refused:
        text += f"; last refusal: {_clip(str(refused[-1]['output']).removeprefix('error: '), 200)}"
    return text


class _Size:
    """The tokens a request of these messages and tools holds, kept up to date as messages are added."""

    def __init__(self, schemas: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
        self.tokens = count_tokens(json.dumps(schemas))
        for message in messages:
            self.add(message)

    def add(self, message: dict[str, Any]) -> None:
        self.tokens += 4 + count_tokens(str(message.get("content") or ""))
        for call in message.get("tool_calls", ()):
            self.tokens += 4 + count_tokens(call["function"]["name"] + call["function"]["arguments"])


def _over_window(run: AgentRun, tokens: int, window: int, messages: list[dict[str, Any]]) -> str:
    last = messages[-1]
    if last.get("role") == "user":
        return (f"the task for the model {run.model} holds about {tokens} tokens, over its context window of "
                f"{window}; nothing was sent")
    answer = next((m for m in reversed(messages) if m.get("role") == "assistant"), last)
    chars = len(str(answer.get("content") or "")) + sum(len(c["function"]["arguments"])
                                                         for c in answer.get("tool_calls", ()))
    return (f"the model {run.model}'s answers grew the conversation to about {tokens} tokens, past its context "
            f"window of {window} (its last answer: {chars} characters, after {run.rounds} round(s)); "
            "nothing of this run is installed")


def _clip(text: str, limit: int = AUDIT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "\u2026"


def _audit_arguments(arguments: str) -> Any:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return _clip(arguments)
    if isinstance(parsed, dict):
        return {k: _clip(v) if isinstance(v, str) else v for k, v in parsed.items()}
    return parsed
