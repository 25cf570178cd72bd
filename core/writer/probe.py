"""One tiny request through the configured model, for `doctor`: what answered, how fast,
and whether it calls tools (the writer does nothing without them).

The request is the seam's own (`completion`, with the state's `[model]` endpoint), so it
meets the same api_base, key, streaming and error classification as a write. It sends no
memory and no conversation: a fixed system line, "ping", and one `ping` tool.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .classify import classify
from .model import completion, context_window, model_endpoint, model_timeout, resolve_model, warm

PROBE_TIMEOUT_S = 30.0
PING_TOOL = {"type": "function", "function": {
    "name": "ping", "description": "Answer the health check.",
    "parameters": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                   "additionalProperties": False}}}
MESSAGES = [{"role": "system", "content": "This is a health check. Call the ping tool with ok set to true."},
            {"role": "user", "content": "ping"}]


@dataclass(frozen=True)
class Probe:
    model: str
    ok: bool  # it answered and called the tool
    detail: str
    facts: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "ok": self.ok, "detail": self.detail, **self.facts}


def probe_model(state_dir: Path, model: str | None = None) -> Probe:
    model = model or resolve_model(state_dir)
    endpoint = model_endpoint(state_dir)
    where = f" at {endpoint.api_base}" if endpoint.api_base else ""
    timeout = min(model_timeout(state_dir), PROBE_TIMEOUT_S)
    try:
        warm(model)
    except ModuleNotFoundError as exc:
        return Probe(model, False, str(exc), {})
    started = time.monotonic()
    try:
        reply = completion(model, [dict(m) for m in MESSAGES], [PING_TOOL], timeout, endpoint)
    except Exception as exc:
        failure = classify(exc)
        wait = f" (retry after {failure.retry_after_s:g} s)" if failure.retry_after_s is not None else ""
        return Probe(model, False, f"{model}{where} did not answer: {failure.code}: {failure.message}{wait}",
                     {"code": failure.code, "retryable": failure.retryable,
                      "latency_s": round(time.monotonic() - started, 3)})
    latency = time.monotonic() - started
    calls = [c for c in reply.tool_calls if c.name == "ping"]
    tools_work = bool(calls) and _parses(calls[0].arguments)
    window = context_window(model, endpoint)
    source = "config" if endpoint.context_tokens else "litellm"
    facts = {"answered_by": reply.answered_by, "latency_s": round(latency, 3), "tool_calls": tools_work,
             "context_tokens": window, "input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
             "cost_usd": reply.cost_usd}
    parts = [f"{model}{where}: answered by {reply.answered_by or 'an unnamed model'} in {latency:.2f} s",
             "tool calls work" if tools_work else
             "it answered without calling the tool it was asked to call: the writer needs tool calls "
             "(choose a model or server that supports them)",
             f"context window {window:,} tokens ({source})" if window else
             "context window unknown: set [model] context_tokens"]
    if reply.cost_usd:  # None: litellm has no price; 0: a local model litellm lists as free
        parts.append(f"this check cost ${reply.cost_usd:.6f}")
    return Probe(model, tools_work, "; ".join(parts), facts)


def _parses(arguments: str) -> bool:
    try:
        return isinstance(json.loads(arguments or "{}"), dict)
    except ValueError:
        return False
