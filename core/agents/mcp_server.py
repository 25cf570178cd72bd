"""`scriptorium mcp`: memory as MCP tools and resources over stdio (DESIGN §15).

A small JSON-RPC 2.0 server of our own for MCP's stdio transport (one JSON message per
line), not the SDK: `import mcp` alone costs 1.1–1.8 s of CPU, and an agent that builds
its tool list at turn start (Codex) misses the tools of a server that is still starting.
This one answers `initialize` and `tools/list` from the standard library; the engine is
imported by the first tool call that needs it (`MemoryTools` imports lazily too).

Tools: `memory_search`, `memory_get`, `memory_core` (read-only: `readOnlyHint`, so an
agent's approval policy lets them run) and `memory_remember` (writes one fact). Resources:
`scriptorium://core` (the effective injection) and `scriptorium://topics/<path>` for
every topic, listed fresh on each request.

Protocol errors are JSON-RPC's: a line that is not JSON → -32700; not a request object
(or a batch, which MCP no longer has) → -32600; an unknown method → -32601; missing or
mistyped parameters, an unknown tool or resource → -32602; a line over `MAX_MESSAGE`
bytes is skipped whole and answered -32600. A tool that fails answers `isError: true`
with the reason; the server keeps serving. Nothing but protocol goes to stdout; nothing
at all goes to stderr unless the server itself breaks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import __version__
from ..values import TYPE_CHECKING
from .memory_tools import DEFAULT_TOPIC

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

    from .memory_tools import MemoryTools

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
MAX_MESSAGE = 4 * 1024 * 1024  # bytes in one line; a bigger one is refused, not read into memory
CORE_URI = "scriptorium://core"
TOPIC_PREFIX = "scriptorium://topics/"
INSTRUCTIONS = (
    "Long-term memory of this user's past sessions. Search it (memory_search) before asking the "
    "user something they may already have said; memory_get shows a block with its evidence. "
    "memory_remember keeps one durable fact (one paragraph) for future sessions."
)

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603

_READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
TOOLS: list[dict[str, Any]] = [
    {"name": "memory_search", "title": "Search memory",
     "description": "BM25 search over memory blocks: the best `top_k` hits (block id, path, line, score, text).",
     "inputSchema": {"type": "object", "properties": {
         "query": {"type": "string", "description": "what to look for"},
         "top_k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}},
         "required": ["query"], "additionalProperties": False},
     "annotations": {"title": "Search memory", **_READ_ONLY}},
    {"name": "memory_get", "title": "Get a memory block",
     "description": "One memory block by id, with its citations and the evidence records they cite.",
     "inputSchema": {"type": "object", "properties": {"block_id": {"type": "string"}},
                     "required": ["block_id"], "additionalProperties": False},
     "annotations": {"title": "Get a memory block", **_READ_ONLY}},
    {"name": "memory_core", "title": "The memory core",
     "description": "The always-on core as it is injected at session start, with its token figures.",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
     "annotations": {"title": "The memory core", **_READ_ONLY}},
    {"name": "memory_remember", "title": "Remember a fact",
     "description": ("Keep one durable fact (a single paragraph) in memory, in `topic` (a path under topics/, "
                     f"default {DEFAULT_TOPIC}). It is validated like a human edit: the answer is the new block "
                     "id, or the rejection's diagnostics."),
     "inputSchema": {"type": "object", "properties": {
         "text": {"type": "string", "description": "the fact, one paragraph"},
         "topic": {"type": "string", "description": f"a topic path such as people/ada.md (default {DEFAULT_TOPIC})"}},
         "required": ["text"], "additionalProperties": False},
     "annotations": {"title": "Remember a fact", "readOnlyHint": False, "destructiveHint": False,
                     "idempotentHint": False, "openWorldHint": False}},
]
READ_TOOLS = tuple(t["name"] for t in TOOLS if t["annotations"]["readOnlyHint"])
WRITE_TOOLS = tuple(t["name"] for t in TOOLS if not t["annotations"]["readOnlyHint"])
_SCHEMAS = {t["name"]: t["inputSchema"] for t in TOOLS}
_TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "integer": int, "object": dict}


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class ToolFailed(Exception):
    """A tool call that ran and failed: answered as a result with `isError`, not a protocol error."""


class MemoryServer:
    """The MCP methods over one state directory; `handle` takes one decoded message."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self._tools: MemoryTools | None = None
        self._methods: dict[str, Callable[[dict[str, Any]], Any]] = {
            "initialize": self.initialize, "ping": lambda _p: {},
            "tools/list": lambda _p: {"tools": TOOLS}, "tools/call": self.call_tool,
            "resources/list": self.list_resources, "resources/read": self.read_resource,
            "resources/templates/list": lambda _p: {"resourceTemplates": [
                {"uriTemplate": TOPIC_PREFIX + "{+path}", "name": "topic", "mimeType": "text/markdown",
                 "description": "a memory topic"}]},
            "prompts/list": lambda _p: {"prompts": []},
            "logging/setLevel": lambda _p: {},
        }

    @property
    def tools(self) -> MemoryTools:
        if self._tools is None:
            from .memory_tools import MemoryTools

            self._tools = MemoryTools(self.state_dir)
        return self._tools

    # -- JSON-RPC ---------------------------------------------------------------------------

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The response to one message (None for a notification or a response)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 request object (batches are not supported)")
        if "method" not in message:
            return None  # a response to a request we never send, or junk without an id: nothing to answer
        request_id = message.get("id")
        is_notification = "id" not in message
        if not is_notification and (not isinstance(request_id, (str, int)) or isinstance(request_id, bool)):
            return _error(None, INVALID_REQUEST, "the request id must be a string or an integer")
        method, params = message.get("method"), message.get("params", {})
        try:
            if not isinstance(method, str):
                raise RpcError(INVALID_REQUEST, "method must be a string")
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            handler = self._methods.get(method)
            if handler is None:
                if is_notification:
                    return None  # notifications/initialized, notifications/cancelled, …
                raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
            result = handler(params)
        except RpcError as exc:
            return None if is_notification else _error(request_id, exc.code, str(exc))
        except Exception as exc:  # noqa: BLE001 - one bad request never ends the server
            return None if is_notification else _error(request_id, INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return None if is_notification else {"jsonrpc": "2.0", "id": request_id, "result": result}

    # -- methods ----------------------------------------------------------------------------

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {"protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}, "resources": {"listChanged": False}},
                "serverInfo": {"name": "scriptorium", "title": "Scriptorium memory", "version": __version__},
                "instructions": INSTRUCTIONS}

    def call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or name not in _SCHEMAS:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name!r}")
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "arguments must be an object")
        _check_arguments(name, arguments)
        try:
            doc = self._run_tool(name, arguments)
        except ToolFailed as exc:
            return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        return {"content": [{"type": "text", "text": json.dumps(doc, ensure_ascii=False)}],
                "structuredContent": doc, "isError": False}

    def _run_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "memory_search":
            return self.tools.search(args["query"], args.get("top_k", 5))
        if name == "memory_get":
            view = self.tools.get(args["block_id"])
            if view is None:
                raise ToolFailed(f"no block with id {args['block_id']!r}")
            return view
        if name == "memory_core":
            return self.tools.core()
        return self.tools.remember(args["text"], args.get("topic") or DEFAULT_TOPIC)

    def list_resources(self, params: dict[str, Any]) -> dict[str, Any]:
        listed = [{"uri": CORE_URI, "name": "core", "mimeType": "text/markdown",
                   "description": "the effective core injection (empty when injection is off)"}]
        listed += [{"uri": TOPIC_PREFIX + topic, "name": f"topics/{topic}", "mimeType": "text/markdown",
                    "description": "a memory topic (Markdown)"} for topic in self.tools.topics()]
        return {"resources": listed}

    def read_resource(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RpcError(INVALID_PARAMS, "uri must be a string")
        if uri == CORE_URI:
            text: str | None = self.tools.core()["injection"]
        elif uri.startswith(TOPIC_PREFIX):
            from ..memory.errors import WorkspaceError

            try:
                text = self.tools.topic_text(uri[len(TOPIC_PREFIX):])
            except WorkspaceError:  # not a topic path
                text = None
        else:
            text = None
        if text is None:
            raise RpcError(INVALID_PARAMS, f"resource not found: {uri}")
        return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}


def _check_arguments(name: str, arguments: dict[str, Any]) -> None:
    """The tool's input schema, as far as ours go: required keys, known keys, JSON types."""
    schema = _SCHEMAS[name]
    missing = [key for key in schema.get("required", []) if key not in arguments]
    if missing:
        raise RpcError(INVALID_PARAMS, f"{name}: missing argument {', '.join(missing)}")
    for key, value in arguments.items():
        spec = schema["properties"].get(key)
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"{name}: unknown argument {key!r}")
        if value is None and key not in schema.get("required", []):
            continue
        wanted = _TYPES[spec["type"]]
        if not isinstance(value, wanted) or isinstance(value, bool):
            raise RpcError(INVALID_PARAMS, f"{name}: {key} must be a {spec['type']}")


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def serve(state_dir: Path, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """Read requests line by line until the client closes stdin; answer each in turn."""
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    server = MemoryServer(state_dir)
    while True:
        line = reader.readline(MAX_MESSAGE + 1)
        if not line:
            return
        if len(line) > MAX_MESSAGE and not line.endswith(b"\n"):
            while (rest := reader.readline(MAX_MESSAGE)) and not rest.endswith(b"\n"):
                pass  # the rest of the oversized line, dropped unread
            response: dict[str, Any] | None = _error(None, INVALID_REQUEST, f"message too large (over {MAX_MESSAGE} bytes)")
        elif not line.strip():
            continue
        else:
            try:
                message = json.loads(line)
            except ValueError as exc:
                response = _error(None, PARSE_ERROR, f"parse error: {exc}")
            else:
                response = server.handle(message)
        if response is not None:
            writer.write(json.dumps(response, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
            writer.flush()
