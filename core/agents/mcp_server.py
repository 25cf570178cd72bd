"""`scriptorium mcp`: memory as MCP tools and resources over stdio (DESIGN §15).

Built on the official MCP Python SDK (`mcp`, imported only here, only by this command).
Tools: `memory_search`, `memory_get`, `memory_core`, `memory_remember`. Resources:
`scriptorium://core` (the effective injection) and `scriptorium://topics/{path}` for
every topic, listed fresh on each request. The work is done by `MemoryTools`; this
module only speaks the protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import Resource as MCPResource

from ..memory.errors import WorkspaceError
from .memory_tools import DEFAULT_TOPIC, MemoryTools

CORE_URI = "scriptorium://core"
TOPIC_URI = "scriptorium://topics/{+path}"
INSTRUCTIONS = (
    "Long-term memory of this user's past sessions. Search it (memory_search) before asking the "
    "user something they may already have said; memory_get shows a block with its evidence. "
    "memory_remember keeps one durable fact (one paragraph) for future sessions."
)


class _MemoryServer(MCPServer):
    """An MCPServer whose resource list is the workspace's topics as they are now."""

    def __init__(self, tools: MemoryTools) -> None:
        super().__init__("scriptorium", instructions=INSTRUCTIONS, log_level="WARNING")  # stderr is the agent's log
        self.memory_tools = tools

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        for topic in self.memory_tools.topics():
            listed.append(MCPResource(uri=f"scriptorium://topics/{topic}", name=f"topics/{topic}",
                                      description="a memory topic (Markdown)", mime_type="text/markdown"))
        return listed


def build_server(state_dir: Path) -> MCPServer:
    tools = MemoryTools(state_dir)
    server = _MemoryServer(tools)

    @server.tool()
    async def memory_search(query: str, top_k: int = 5) -> dict[str, Any]:
        """BM25 search over memory blocks: the best `top_k` hits (block id, path, line, score, text)."""
        # async on purpose: a warm search is a couple of ms of CPU, less than the SDK's hop to a
        # worker thread for a plain function costs on a busy machine
        return tools.search(query, top_k)

    @server.tool()
    def memory_get(block_id: str) -> dict[str, Any]:
        """One memory block by id, with its citations and the evidence records they cite."""
        view = tools.get(block_id)
        if view is None:
            raise ToolError(f"no block with id {block_id!r}")
        return view

    @server.tool()
    def memory_core() -> dict[str, Any]:
        """The always-on core as it is injected at session start, with its token figures."""
        return tools.core()

    @server.tool()
    def memory_remember(text: str, topic: str | None = None) -> dict[str, Any]:
        """Keep one durable fact (a single paragraph) in memory, in `topic` (a path under topics/,
        default agent-notes.md). It is validated like a human edit: the answer is the new block id,
        or the rejection's diagnostics."""
        return tools.remember(text, topic or DEFAULT_TOPIC)

    @server.resource(CORE_URI, name="core", mime_type="text/markdown",
                     description="the effective core injection (empty when injection is off)")
    def core_resource() -> str:
        return tools.core()["injection"]

    @server.resource(TOPIC_URI, name="topic", mime_type="text/markdown", description="a memory topic")
    def topic_resource(path: str) -> str:
        try:
            text = tools.topic_text(path)
        except WorkspaceError:  # not a topic path
            text = None
        if text is None:
            raise ResourceNotFoundError(f"no topic {path!r}")
        return text

    return server


def serve(state_dir: Path) -> None:
    build_server(state_dir).run("stdio")
