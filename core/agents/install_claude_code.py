"""Claude Code's files: hooks in `settings.json`, the MCP server in `.claude.json` / `.mcp.json`.

Per Claude Code's settings and MCP references: user hooks live in `~/.claude/settings.json`
(`$CLAUDE_CONFIG_DIR/settings.json` when that is set), project hooks in
`<project>/.claude/settings.json`; a user-scope MCP server is `mcpServers.<name>` at the top
of `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`), a project-scope one is in
`<project>/.mcp.json`. Hooks: `SessionStart`, `UserPromptSubmit`, `PreCompact`, `Stop`,
`SessionEnd`, each `scriptorium hook claude-code <event>`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import config_json, json_text
from .target import Edit, FileRecord, Target, is_scriptorium_argv, read_text, state_arg

AGENT = "claude-code"
SERVER = "scriptorium"
EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreCompact": "pre-compact",
    "Stop": "stop",
    "SessionEnd": "session-end",
}
TIMEOUT = 30  # seconds; the hooks return at once, this only bounds a wedged machine


def config_dir(target: Target) -> Path:
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else target.home / ".claude"


def settings_path(target: Target) -> Path:
    return target.project / ".claude" / "settings.json" if target.scope == "project" else config_dir(target) / "settings.json"


def mcp_path(target: Target) -> Path:
    if target.scope == "project":
        return target.project / ".mcp.json"
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(env).expanduser() if env else target.home) / ".claude.json"


def _ours(command: str) -> bool:
    return is_scriptorium_argv(command, "hook", AGENT)


def _server_entry(target: Target) -> dict[str, Any]:
    argv = target.argv("mcp")
    return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": {}}


def _is_our_server(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("args", []), list) and is_scriptorium_argv(
        [str(entry.get("command", ""))] + entry.get("args", []), "mcp")


def _settings_edit(target: Target, action: str) -> Edit:
    where = str(settings_path(target))

    def edit(before: str | None, record: FileRecord) -> str | None:
        config_json.load(before, where)
        text = config_json.start(before)
        if action == "install":
            commands = {name: target.line("hook", AGENT, event) for name, event in EVENTS.items()}
            after = config_json.add_hooks(text, commands, _ours, TIMEOUT, record.keys)
            after = config_json.remove_strings(after, PERMISSIONS, tool_permissions(ask=False), record.keys)
            after = config_json.add_strings(after, PERMISSIONS, tool_permissions(ask=target.remember == "ask"),
                                            record.keys)
            if after == text:
                return before
        else:
            after = config_json.remove_hooks(text, _ours, record.added())
            after = config_json.remove_strings(after, PERMISSIONS, tool_permissions(ask=False), record.added())
            if after == text:
                return before
        return _result(after, before, record)

    return edit


PERMISSIONS: config_json.KeyPath = ["permissions", "allow"]


def tool_permissions(*, ask: bool) -> list[str]:
    """The permission rules that let our tools run without a prompt (`claude -p` denies any
    tool without one): the read tools always, memory_remember unless the user wants to be asked."""
    from .mcp_server import READ_TOOLS, WRITE_TOOLS

    return [f"mcp__{SERVER}__{name}" for name in READ_TOOLS + (() if ask else WRITE_TOOLS)]


def _mcp_edit(target: Target, action: str) -> Edit:
    where = str(mcp_path(target))

    def edit(before: str | None, record: FileRecord) -> str | None:
        doc = config_json.load(before, where)
        text = config_json.start(before)
        servers = doc.get("mcpServers")
        if servers is not None and not isinstance(servers, dict):
            raise config_json.ConfigError(f'"mcpServers" in {where} is not an object')
        if action == "install":
            if servers is not None and SERVER in servers and not _is_our_server(servers[SERVER]):
                raise config_json.ConfigError(f'{where} already has another MCP server named "{SERVER}"')
            entry = _server_entry(target)
            if servers is None:
                record.keys.append(["mcpServers"])
                return json_text.add_member(text, [], "mcpServers", {SERVER: entry})
            if servers.get(SERVER) == entry:
                return before
            if SERVER in servers:
                return json_text.replace(text, ["mcpServers", SERVER], entry)
            record.keys.append(["mcpServers", SERVER])
            return json_text.add_member(text, ["mcpServers"], SERVER, entry)
        if not servers or not _is_our_server(servers.get(SERVER)):
            return before
        after = json_text.remove(text, ["mcpServers", SERVER])
        config_json.forget(record.added(), ["mcpServers", SERVER])
        if len(servers) == 1 and config_json.made_by_us(record.added(), ["mcpServers"]):
            after = json_text.remove(after, ["mcpServers"])
            config_json.forget(record.added(), ["mcpServers"])
        return _result(after, before, record)

    return edit


def _result(after: str, before: str | None, record: FileRecord) -> str | None:
    if record.created and config_json.is_empty(after):
        return None  # the install made this file: it goes as it came
    return after


def edits(target: Target, action: str) -> list[tuple[Path, Edit]]:
    return [(settings_path(target), _settings_edit(target, action)), (mcp_path(target), _mcp_edit(target, action))]


def notes(target: Target, action: str, records: dict[Path, FileRecord]) -> list[str]:
    if action == "install" and target.scope == "project":
        return ["Claude Code asks once before it starts a project's .mcp.json server: approve 'scriptorium'."]
    return []


def present(target: Target) -> dict[Path, bool]:
    settings = config_json.load(read_text(settings_path(target)), str(settings_path(target)))
    servers = config_json.load(read_text(mcp_path(target)), str(mcp_path(target))).get("mcpServers") or {}
    hooked = set(config_json.hook_events(settings, _ours))
    return {settings_path(target): hooked >= set(EVENTS),
            mcp_path(target): isinstance(servers, dict) and _is_our_server(servers.get(SERVER))}


def states(target: Target) -> dict[Path, set[str | None]]:
    """The state directories our entries point at, per file."""
    settings = config_json.load(read_text(settings_path(target)), str(settings_path(target)))
    servers = config_json.load(read_text(mcp_path(target)), str(mcp_path(target))).get("mcpServers") or {}
    server = servers.get(SERVER) if isinstance(servers, dict) else None
    args = server.get("args", []) if isinstance(server, dict) and _is_our_server(server) else None
    return {settings_path(target): {state_arg(c) for c in config_json.hook_commands(settings, _ours)},
            mcp_path(target): {state_arg([str(a) for a in args])} if isinstance(args, list) else set()}
