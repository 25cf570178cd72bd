"""`scriptorium mcp` as an agent sees it: a subprocess spoken to with the SDK's own stdio client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from scriptorium.core.memory import Workspace, save_topic

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    ws = Workspace.open(tmp_path)
    result = save_topic(ws, "tools/editor.md",
                        "# Editor\n\nAda edits Rust in Helix with the default keymap.\n\n"
                        "The team formats Python with ruff, never black.\n")
    assert result.outcome == "installed"
    return tmp_path


def _server(state: Path) -> StdioServerParameters:
    exe = Path(sys.executable).with_name("scriptorium")
    return StdioServerParameters(command=str(exe), args=["--state", str(state), "mcp"])


def _doc(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def test_an_agent_searches_gets_and_remembers_through_the_stdio_server(state: Path):
    async with stdio_client(_server(state)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert {"memory_search", "memory_get", "memory_core", "memory_remember"} <= names

        hits = _doc(await session.call_tool("memory_search", {"query": "which editor for Rust", "top_k": 3}))["hits"]
        assert hits and hits[0]["path"] == "topics/tools/editor.md" and "Helix" in hits[0]["text"]

        block = _doc(await session.call_tool("memory_get", {"block_id": hits[0]["block_id"]}))
        assert block["block_id"] == hits[0]["block_id"]
        [citation] = block["citations"]
        assert "Helix" in citation["sources"][0]["record"]  # the manual record the edit archived

        added = _doc(await session.call_tool("memory_remember", {"text": "The staging VPN needs the IT-issued profile."}))
        assert added["outcome"] == "installed" and added["source_id"].startswith("agent/")
        found = _doc(await session.call_tool("memory_search", {"query": "staging VPN profile"}))["hits"]
        assert found[0]["block_id"] == added["block_id"]
        got = _doc(await session.call_tool("memory_get", {"block_id": added["block_id"]}))
        assert got["citations"][0]["sources"][0]["source_id"] == added["source_id"]

        bad = _doc(await session.call_tool("memory_remember", {"text": "One fact.\n\nAnd an uncited second paragraph."}))
        assert bad["outcome"] == "rejected"
        assert [d["rule"] for d in bad["diagnostics"]] == ["citation-required"]
        still = _doc(await session.call_tool("memory_search", {"query": "uncited second paragraph"}))["hits"]
        assert all("uncited" not in h["text"] for h in still)  # a rejection changes nothing


async def test_core_and_topics_are_resources_and_changes_on_disk_show_without_restart(state: Path):
    async with stdio_client(_server(state)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        assert {"scriptorium://core", "scriptorium://topics/tools/editor.md"} <= uris
        text = (await session.read_resource("scriptorium://topics/tools/editor.md")).contents[0].text
        assert "Helix" in text

        core = _doc(await session.call_tool("memory_core", {}))
        assert core["injection"] == "" and core["effective_tokens"] == 0  # no core yet

        # Another process (a human in the TUI, a writer) changes memory while the server runs.
        ws = Workspace.open(state)
        assert save_topic(ws, "core.md", "# Core\n\nAda is the project's maintainer.\n").outcome == "installed"
        assert save_topic(ws, "people/ada.md", "Ada prefers tea over coffee.\n").outcome == "installed"

        core = _doc(await session.call_tool("memory_core", {}))
        assert "Ada is the project's maintainer." in core["injection"] and core["effective_tokens"] > 0
        hits = _doc(await session.call_tool("memory_search", {"query": "tea or coffee"}))["hits"]
        assert hits[0]["path"] == "topics/people/ada.md"
        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        assert "scriptorium://topics/people/ada.md" in uris
        core_text = (await session.read_resource("scriptorium://core")).contents[0].text
        assert "maintainer" in core_text


async def test_unknown_block_and_bad_topic_are_errors_not_crashes(state: Path):
    async with stdio_client(_server(state)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        missing = await session.call_tool("memory_get", {"block_id": "deadbeef"})
        assert missing.is_error and "deadbeef" in missing.content[0].text
        bad = _doc(await session.call_tool("memory_remember", {"text": "x", "topic": "../outside.md"}))
        assert bad["outcome"] == "rejected" and bad["diagnostics"][0]["rule"] == "parse"
        assert _doc(await session.call_tool("memory_search", {"query": "Helix"}))["hits"]  # still serving
