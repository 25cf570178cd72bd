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
        assert [d["rule"] for d in bad["diagnostics"]] == ["limit"]
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


async def test_read_tools_declare_read_only_and_remember_does_not(state: Path):
    """Before: no annotations, so Codex (approval policy never) refused every call."""
    async with stdio_client(_server(state)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        for name in ("memory_search", "memory_get", "memory_core"):
            assert tools[name].annotations is not None and tools[name].annotations.read_only_hint is True
        assert tools["memory_remember"].annotations.read_only_hint is False


def _raw(state: Path, lines: list[bytes]) -> tuple[list[dict], bytes]:
    """Send raw lines to a fresh server; its answers (one JSON object each) and its stderr."""
    import subprocess

    exe = Path(sys.executable).with_name("scriptorium")
    done = subprocess.run([str(exe), "--state", str(state), "mcp"], input=b"".join(lines), capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()], done.stderr


def _rpc(id_: object, method: str, params: object = None) -> bytes:
    doc: dict = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        doc["params"] = params
    return json.dumps(doc).encode() + b"\n"


def test_protocol_errors_are_json_rpc_errors_and_the_server_keeps_serving(state: Path):
    """Before (the SDK's server): a non-JSON line got no answer at all."""
    from scriptorium.core.agents.mcp_server import MAX_MESSAGE

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answers, stderr = _raw(state, [
        _rpc(1, "initialize", init),
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n',
        b"this is not json\n",
        _rpc(2, "no/such/method"),
        _rpc(3, "tools/call", {"name": "memory_search", "arguments": {"top_k": 3}}),
        _rpc(4, "tools/call", {"name": "memory_search", "arguments": {"query": 7}}),
        _rpc(5, "tools/call", {"name": "no_such_tool", "arguments": {}}),
        b'[{"jsonrpc": "2.0", "id": 6, "method": "ping"}]\n',
        b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": "x"}\n',
        b'{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"x": "' + b"a" * (MAX_MESSAGE + 10) + b'"}}\n',
        _rpc(9, "resources/read", {"uri": "scriptorium://topics/../../etc/passwd"}),
        _rpc(10, "tools/call", {"name": "memory_search", "arguments": {"query": "Helix editor"}}),
    ])
    assert stderr == b""
    by_id = {a.get("id"): a for a in answers if a.get("id") is not None}
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18"
    nulls = [a["error"] for a in answers if a.get("id") is None]
    assert [e["code"] for e in nulls] == [-32700, -32600, -32600]  # not JSON, a batch, too large
    assert "too large" in nulls[2]["message"]
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[3]["error"]["code"] == -32602 and "query" in by_id[3]["error"]["message"]
    assert by_id[4]["error"]["code"] == -32602
    assert by_id[5]["error"]["code"] == -32602 and "no_such_tool" in by_id[5]["error"]["message"]
    assert by_id[7]["error"]["code"] == -32602
    assert by_id[9]["error"]["code"] == -32602
    assert "Helix" in by_id[10]["result"]["structuredContent"]["hits"][0]["text"]  # still serving
    assert 8 not in by_id  # the oversized line was dropped whole, not parsed


def test_tools_are_listed_without_loading_the_engine(state: Path):
    """initialize, tools/list and resources/list (what Claude Code asks at every start) answer
    from the standard library: no SDK, no search, no git, no workspace, dataclasses or typing."""
    import subprocess

    code = ("import io, json, sys\n"
            "from scriptorium.core.agents.mcp_server import serve\n"
            "lines = [json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {}}),\n"
            "         json.dumps({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'}),\n"
            "         json.dumps({'jsonrpc': '2.0', 'id': 3, 'method': 'resources/list'})]\n"
            "out = io.BytesIO()\n"
            "serve(sys.argv[1], io.BytesIO(('\\n'.join(lines) + '\\n').encode()), out)\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'git', 'pydantic', 'anyio')\n"
            "               or m in ('dataclasses', 'typing', 'scriptorium.core.memory.sources')\n"
            "               or m.startswith('scriptorium.core.search') or m.startswith('scriptorium.core.memory.workspace'))\n"
            "answers = [json.loads(line) for line in out.getvalue().splitlines()]\n"
            "print(json.dumps({'answers': len(answers), 'heavy': heavy,\n"
            "                  'resources': [r['name'] for r in answers[-1]['result']['resources']]}))\n")
    done = subprocess.run([sys.executable, "-c", code, str(state)], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    assert report["answers"] == 3 and report["heavy"] == [] and "topics/tools/editor.md" in report["resources"]


async def test_what_an_agent_writes_and_reads_in_one_call_is_bounded(state: Path):
    """A "fact" of a whole document is refused with a clear limit (a 10 MB one was installed as
    one block, and every later hit on it returned 10.8 MB); a huge block already there (a hand
    edit) comes back cut, with its whole size said."""
    huge = "The build cache lives in the bucket scriptorium-cache-eu. " * 1_000  # 58 kB, one paragraph
    save_topic(Workspace.open(state), "infra/huge.md", "# Huge\n\nZebrafish " + huge + "\n")
    async with stdio_client(_server(state)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        refused = _doc(await session.call_tool("memory_remember", {"text": huge}))
        assert refused["outcome"] == "rejected"
        [diag] = refused["diagnostics"]
        assert diag["rule"] == "limit" and "57,999 characters" in diag["message"] and "4,000" in diag["message"]
        hits = _doc(await session.call_tool("memory_search", {"query": "zebrafish"}))["hits"]
        assert hits and len(json.dumps(hits)) < 10_000
        assert hits[0]["truncated"] and hits[0]["text_chars"] > 50_000 and "characters in all" in hits[0]["text"]
        block = _doc(await session.call_tool("memory_get", {"block_id": hits[0]["block_id"]}))
        assert block["truncated"] and len(block["text"]) < 21_000 and block["text_chars"] > 50_000
        assert all(len(s["record"] or "") < 21_000 for c in block["citations"] for s in c["sources"])


def test_the_console_command_serves_without_the_clis_parser(state: Path, tmp_path: Path):
    """`scriptorium --state DIR mcp`, as install writes it, starts without argparse or the CLI
    (a third of the server's start); a state that is a file is still the CLI's usage error."""
    import subprocess

    probe = ("import json, sys\n"
             "from scriptorium.tui.entry import main\n"
             "code = main(sys.argv[1:])\n"
             "sys.stderr.write(json.dumps({'code': code, 'cli': sorted(m for m in sys.modules\n"
             "                 if m == 'argparse' or m.startswith('scriptorium.core.cli'))}) + '\\n')\n")
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = subprocess.run([sys.executable, "-c", probe, "--state", str(state), "mcp"], input=stdin,
                          capture_output=True, text=True, timeout=60, check=True)
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [1, 2]
    assert json.loads(done.stderr.strip().splitlines()[-1]) == {"code": 0, "cli": []}
    a_file = tmp_path / "not-a-dir"
    a_file.write_text("x")
    done = subprocess.run([sys.executable, "-c", probe, "--state", str(a_file), "mcp"], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)
    assert json.loads(done.stderr.strip().splitlines()[-1])["code"] == 2 and "is not a directory" in done.stderr
