"""Bounded scripted model servers on 127.0.0.1, speaking the providers' wire protocols.

A test (or a bench script) starts a `ScriptedServer` with a script: one step per
request, in order. A step is a `Response` (`Json`, `Stream`, `Stall`, `Cut`) or a
callable `(Request) -> Response` that answers from what the client sent. The server
records every request (method, path, headers, parsed body) for the test to check.

Bounded, so a test can never hang or leak a listener: at most `max_requests`
requests are answered (more get a 500 saying so), the server stops itself after
`lifetime_s`, every connection times out after `io_timeout_s` of silence, and
leaving the `with` block closes the socket and wakes every stalled answer.

The protocol builders turn one neutral `Turn` (text and/or tool calls, token usage)
into each provider's answer, streamed or not:

* `openai_chat`: OpenAI chat completions (`/v1/chat/completions`; also LM Studio,
  vLLM, llama.cpp's server), JSON or SSE `chat.completion.chunk`s;
* `anthropic_messages`: the Anthropic Messages API (`/v1/messages`), JSON or SSE
  events (`message_start`, `content_block_*` with `text_delta`/`input_json_delta`);
* `ollama_chat`: Ollama's `/api/chat`, JSON or NDJSON lines;
* `openai_responses`: the OpenAI Responses API (`/v1/responses`, what Codex speaks),
  JSON or SSE events (`response.created`, `response.output_item.*`,
  `response.output_text.delta`, `response.function_call_arguments.delta`,
  `response.completed`).

Error answers (`error(status, ...)`, with the provider's error shape and headers such
as `retry-after`) are plain `Json` steps. Another protocol (OpenAI Responses, say) is
one more builder returning `Json`/`Stream`; the server needs nothing new.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Cut", "Json", "Request", "Response", "ScriptedServer", "Stall", "Stream", "Turn", "anthropic_messages",
    "error", "ollama_chat", "openai_chat", "openai_responses", "sse",
]


@dataclass(frozen=True)
class Request:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    raw: bytes

    @property
    def body(self) -> Any:
        """The body parsed as JSON (None when empty or not JSON)."""
        try:
            return json.loads(self.raw) if self.raw else None
        except ValueError:
            return None


class Response:
    """How the server answers one request."""

    def send(self, handler: _Handler) -> None:
        raise NotImplementedError


@dataclass
class Json(Response):
    """A complete JSON answer with a Content-Length."""

    payload: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # close after this many bytes of the body: a cut in mid-answer

    def send(self, handler: _Handler) -> None:
        data = json.dumps(self.payload).encode()
        handler.send_response(self.status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in self.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        if self.cut_after is not None:
            handler.wfile.write(data[: self.cut_after])
            handler.wfile.flush()
            handler.cut()
            return
        handler.wfile.write(data)


@dataclass
class Stream(Response):
    """A chunked stream of pieces (SSE events, NDJSON lines), `delay_s` apart; with
    `cut_after`, the connection is closed after that many pieces, mid-stream."""

    pieces: Sequence[bytes]
    content_type: str = "text/event-stream"
    status: int = 200
    delay_s: float = 0.0
    cut_after: int | None = None

    def send(self, handler: _Handler) -> None:
        handler.send_response(self.status)
        handler.send_header("Content-Type", self.content_type)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        for i, piece in enumerate(self.pieces):
            if self.cut_after is not None and i >= self.cut_after:
                handler.wfile.flush()
                handler.cut()
                return
            if self.delay_s and handler.server_closing.wait(self.delay_s):
                handler.cut()
                return
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")


@dataclass
class Stall(Response):
    """Say nothing for `seconds` (a client's timeout should fire first), then answer
    `then` if given, or close. Woken early when the server closes."""

    seconds: float
    then: Response | None = None

    def send(self, handler: _Handler) -> None:
        handler.server_closing.wait(self.seconds)
        if self.then is None or handler.server_closing.is_set():
            handler.cut()
            return
        self.then.send(handler)


@dataclass
class Cut(Response):
    """Close the connection without a byte of answer."""

    def send(self, handler: _Handler) -> None:
        handler.cut()


Step = Response | Callable[[Request], Response]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.io_timeout_s)

    @property
    def server_closing(self) -> threading.Event:
        return self.server.closing

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `requests`
        pass

    def cut(self) -> None:
        """Drop the connection now (RST, no orderly end of the answer)."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        request = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
        response = self.server.owner.next_response(request)
        try:
            response.send(self)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: ScriptedServer
    closing: threading.Event
    io_timeout_s: float


class ScriptedServer:
    """A scripted HTTP server on 127.0.0.1 (a free port), for a `with` block.

    `repeat_last`: when the script runs out, the last step answers every further
    request (a model that loops); otherwise a 500 says the script is exhausted."""

    def __init__(self, script: Iterable[Step], *, max_requests: int = 60, lifetime_s: float = 120.0,
                 io_timeout_s: float = 30.0, repeat_last: bool = False) -> None:
        self.script = list(script)
        self.max_requests = max_requests
        self.lifetime_s = lifetime_s
        self.repeat_last = repeat_last
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._server.closing = threading.Event()
        self._server.io_timeout_s = io_timeout_s
        self.closed = threading.Event()  # set once the listener is closed
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The server's base URL, e.g. http://127.0.0.1:PORT (add /v1 for OpenAI-style clients)."""
        return f"http://127.0.0.1:{self.port}"

    def bodies(self, path_suffix: str = "") -> list[Any]:
        """The parsed bodies of the requests whose path ends with `path_suffix`."""
        return [r.body for r in self.requests if r.path.split("?", 1)[0].endswith(path_suffix)]

    def next_response(self, request: Request) -> Response:
        with self._lock:
            self.requests.append(request)
            n = len(self.requests)
            if n > self.max_requests:
                return error(500, f"scripted server: more than {self.max_requests} requests")
            if n > len(self.script) and not (self.repeat_last and self.script):
                return error(500, f"scripted server: script of {len(self.script)} step(s) exhausted")
            step = self.script[min(n, len(self.script)) - 1]
        return step(request) if callable(step) else step

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"scripted-server-{self.port}", daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.lifetime_s, self.close)
        self._timer.daemon = True
        self._timer.start()
        return self

    def close(self) -> None:
        self._server.closing.set()
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if self._thread is not None and self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()
        self.closed.set()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the neutral turn and the providers' formats -------------------------------------------


@dataclass(frozen=True)
class Turn:
    """What the scripted model says: text and/or tool calls `(name, arguments)`, where
    arguments is a dict, or a string sent verbatim (to send JSON that does not parse)."""

    text: str | None = None
    calls: Sequence[tuple[str, dict[str, Any] | str]] = ()
    input_tokens: int = 11
    output_tokens: int = 7

    def arguments(self, i: int) -> str:
        args = self.calls[i][1]
        return args if isinstance(args, str) else json.dumps(args)


def sse(events: Iterable[tuple[str | None, Any]]) -> list[bytes]:
    """Server-sent events: `(event name or None, data)`; data that is not a str is JSON."""
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "").encode() + f"data: {text}\n\n".encode())
    return out


def _chunks(text: str, n: int = 3) -> list[str]:
    """A text in about `n` pieces, as a model streams it."""
    size = max(1, -(-len(text) // n))
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def openai_chat(turn: Turn, *, model: str = "gpt-4o-mini", stream: bool = False, call_prefix: str = "call",
                cut_after: int | None = None) -> Response:
    """An OpenAI chat completion (or a stream of its chunks, ending in usage and [DONE])."""
    calls = [{"id": f"{call_prefix}_{i}", "type": "function",
              "function": {"name": name, "arguments": turn.arguments(i)}} for i, (name, _) in enumerate(turn.calls)]
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": turn.input_tokens, "completion_tokens": turn.output_tokens,
             "total_tokens": turn.input_tokens + turn.output_tokens}
    head = {"id": "chatcmpl-scripted", "created": int(time.time()), "model": model}
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if calls:
            message["tool_calls"] = calls
        return Json({**head, "object": "chat.completion", "usage": usage,
                     "choices": [{"index": 0, "message": message, "finish_reason": finish}]}, cut_after=cut_after)

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {**head, "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    events: list[Any] = [chunk({"role": "assistant", "content": ""})]
    for piece in _chunks(turn.text) if turn.text else []:
        events.append(chunk({"content": piece}))
    for i, call in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        for piece in _chunks(call["function"]["arguments"]):
            events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    events.append(chunk({}, finish))
    events.append({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
    return Stream(sse([(None, e) for e in events] + [(None, "[DONE]")]), cut_after=cut_after)


def anthropic_messages(turn: Turn, *, model: str = "claude-sonnet-4-5", stream: bool = False,
                       call_prefix: str = "toolu", cut_after: int | None = None) -> Response:
    """An Anthropic Messages answer: text and tool_use content blocks (or their SSE events)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    for i, (name, args) in enumerate(turn.calls):
        blocks.append({"type": "tool_use", "id": f"{call_prefix}_{i}", "name": name,
                       "input": args if isinstance(args, dict) else {}})
    stop = "tool_use" if turn.calls else "end_turn"
    message = {"id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
               "stop_sequence": None}
    if not stream:
        return Json({**message, "content": blocks, "stop_reason": stop,
                     "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens}},
                    cut_after=cut_after)
    events: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None, "usage": {"input_tokens": turn.input_tokens, "output_tokens": 1}}})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            deltas = [{"type": "text_delta", "text": piece} for piece in _chunks(block["text"])]
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
            arguments = turn.arguments(index - (1 if turn.text else 0))
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in _chunks(arguments)]
        events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": turn.output_tokens}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return Stream(sse(events), cut_after=cut_after)


def ollama_chat(turn: Turn, *, model: str = "llama3.1", stream: bool = False,
                cut_after: int | None = None) -> Response:
    """An Ollama /api/chat answer (tool call arguments are JSON objects there), or its NDJSON stream."""
    calls = [{"function": {"name": name, "arguments": args if isinstance(args, dict) else args}}
             for name, args in turn.calls]
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    final = {"model": model, "created_at": now, "done": True, "done_reason": "stop", "total_duration": 1_000_000,
             "prompt_eval_count": turn.input_tokens, "eval_count": turn.output_tokens}
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
    if calls:
        message["tool_calls"] = calls
    if not stream:
        return Json({**final, "message": message}, cut_after=cut_after)
    lines = [{"model": model, "created_at": now, "done": False, "message": {"role": "assistant", "content": piece}}
             for piece in (_chunks(turn.text) if turn.text else [])]
    if calls:
        lines.append({"model": model, "created_at": now, "done": False,
                      "message": {"role": "assistant", "content": "", "tool_calls": calls}})
    lines.append({**final, "message": {"role": "assistant", "content": ""}})
    return Stream([json.dumps(line).encode() + b"\n" for line in lines], content_type="application/x-ndjson",
                  cut_after=cut_after)


def openai_responses(turn: Turn, *, model: str = "gpt-5", stream: bool = True, call_prefix: str = "call",
                     cut_after: int | None = None) -> Response:
    """An OpenAI Responses answer: a message item and/or function_call items (or their SSE events)."""
    items: list[dict[str, Any]] = []
    if turn.text:
        items.append({"type": "message", "id": "msg_scripted", "status": "completed", "role": "assistant",
                      "content": [{"type": "output_text", "text": turn.text, "annotations": []}]})
    for i, (name, _args) in enumerate(turn.calls):
        item = {"type": "function_call", "id": f"fc_{i}", "call_id": f"{call_prefix}_{i}", "name": name,
                "arguments": turn.arguments(i), "status": "completed"}
        if "/" in name:  # "namespace/tool": a tool inside a namespace tool (Codex puts each MCP server's in one)
            item["namespace"], item["name"] = name.split("/", 1)
        items.append(item)
    usage = {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens,
             "total_tokens": turn.input_tokens + turn.output_tokens,
             "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}
    response = {"id": "resp_scripted", "object": "response", "created_at": int(time.time()), "model": model,
                "status": "completed", "output": items, "usage": usage}
    if not stream:
        return Json(response, cut_after=cut_after)
    events: list[tuple[str, Any]] = [("response.created", {"type": "response.created", "response": {
        **response, "status": "in_progress", "output": [], "usage": None}})]
    for index, item in enumerate(items):
        opened = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opened["content"] = []
        else:
            opened["arguments"] = ""
        events.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": index,
                                                      "item": opened}))
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(("response.content_part.added", {"type": "response.content_part.added", "item_id": item["id"],
                                                           "output_index": index, "content_index": 0,
                                                           "part": {"type": "output_text", "text": "", "annotations": []}}))
            events += [("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                       "output_index": index, "content_index": 0, "delta": piece})
                       for piece in _chunks(text)]
            events.append(("response.output_text.done", {"type": "response.output_text.done", "item_id": item["id"],
                                                          "output_index": index, "content_index": 0, "text": text}))
        else:
            events += [("response.function_call_arguments.delta", {
                "type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": index,
                "delta": piece}) for piece in _chunks(item["arguments"])]
            events.append(("response.function_call_arguments.done", {
                "type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": index,
                "arguments": item["arguments"]}))
        events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": index,
                                                     "item": item}))
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return Stream(sse(events), cut_after=cut_after)


_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 502: "api_error",
                503: "overloaded_error", 529: "overloaded_error"}


def error(status: int, message: str, *, protocol: str = "openai", headers: dict[str, str] | None = None,
          code: str | None = None) -> Json:
    """A provider's error answer: `protocol` "openai" (also LM Studio, vLLM), "anthropic" or "ollama"."""
    kind = _ERROR_TYPES.get(status, "api_error")
    if protocol == "anthropic":
        payload: Any = {"type": "error", "error": {"type": kind, "message": message}}
    elif protocol == "ollama":
        payload = {"error": message}
    else:
        payload = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return Json(payload, status=status, headers=dict(headers or {}))
