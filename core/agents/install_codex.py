"""Codex's files: hooks in `hooks.json`, the MCP server in `config.toml`.

Per openai/codex (`codex-rs/hooks/src/engine/discovery.rs`, `codex-rs/config/src/hook_config.rs`):
each config layer's folder may hold a `hooks.json` of the Claude Code shape, with events
`SessionStart`, `UserPromptSubmit`, `PreCompact`, `Stop`; the user layer is `$CODEX_HOME`
(default `~/.codex`), a project layer is `<project>/.codex` (loaded once the project is
trusted). MCP servers are `[mcp_servers.<name>]` tables (`command`, `args`) in that folder's
`config.toml`, edited with tomlkit so the user's comments and layout survive.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from . import config_json
from .config_json import ConfigError
from .target import Edit, FileRecord, Target, is_scriptorium_argv, read_text

AGENT = "codex"
SERVER = "scriptorium"
EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreCompact": "pre-compact",
    "Stop": "stop",
}
TIMEOUT = 30


def config_dir(target: Target) -> Path:
    if target.scope == "project":
        return target.project / ".codex"
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else target.home / ".codex"


def _ours(command: str) -> bool:
    return is_scriptorium_argv(command, "hook", AGENT)


def _hooks_edit(target: Target, action: str) -> Edit:
    where = str(config_dir(target) / "hooks.json")

    def edit(before: str | None, record: FileRecord) -> str | None:
        config_json.load(before, where)
        text = config_json.start(before)
        if action == "install":
            commands = {name: target.line("hook", AGENT, event) for name, event in EVENTS.items()}
            return config_json.add_hooks(text, commands, _ours, TIMEOUT, record.keys)
        after = config_json.remove_hooks(text, _ours, record.added())
        if after == text:
            return before
        return None if record.created and config_json.is_empty(after) else after

    return edit


def _parse(text: str | None, where: str):
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text or "")
    except TOMLKitError as exc:
        raise ConfigError(f"{where} is not valid TOML ({exc}); fix it first") from None


def _is_our_server(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    args = entry.get("args", [])
    return isinstance(args, list) and is_scriptorium_argv([str(entry.get("command", ""))] + [str(a) for a in args], "mcp")


BLOCK_MARK = "# scriptorium memory (written by `scriptorium install codex`; `scriptorium uninstall codex` removes it)"
_BLOCK_RE = re.compile(r"(?:\r?\n)?" + re.escape(BLOCK_MARK) + r"\r?\n\[mcp_servers\.scriptorium\]\r?\n"
                       r"(?:[A-Za-z_]+ = [^\r\n]*\r?\n)*")


def _block(argv: list[str], nl: str) -> str:
    """Our table, with the file's own line ending."""
    import tomlkit

    return nl.join([BLOCK_MARK, f"[mcp_servers.{SERVER}]", f"command = {tomlkit.item(argv[0]).as_string()}",
                    f"args = {tomlkit.item(argv[1:]).as_string()}", ""])


def _config_edit(target: Target, action: str) -> Edit:
    """Install appends one marked table at the end (valid TOML wherever the user's other
    `[mcp_servers.*]` tables are), so uninstall can cut exactly those bytes out again.
    A table the user moved or edited is updated or removed in place through tomlkit."""
    where = str(config_dir(target) / "config.toml")

    def edit(before: str | None, record: FileRecord) -> str | None:
        doc = _parse(before, where)
        servers = doc.get("mcp_servers")
        if servers is not None and not isinstance(servers, dict):
            raise ConfigError(f"mcp_servers in {where} is not a table")
        current = servers.get(SERVER) if servers is not None else None
        if current is not None and not _is_our_server(current):
            raise ConfigError(f'{where} already has another MCP server named "{SERVER}"')
        argv = target.argv("mcp")
        text = before or ""
        if action == "install":
            if current is not None:
                if current.get("command") == argv[0] and list(current.get("args", [])) == argv[1:]:
                    return before
                current["command"], current["args"] = argv[0], argv[1:]
                return _checked(doc.as_string(), where)
            nl = "\r\n" if "\r\n" in text else "\n"
            sep = nl if text else ""  # one line ending before ours: what uninstall's pattern cuts again
            return _checked(text + sep + _block(argv, nl), where)
        if current is None:
            return before
        match = _BLOCK_RE.search(text)
        if match and match.end() == len(text):
            after = text[: match.start()]
        else:
            assert servers is not None  # current came from it
            del servers[SERVER]
            if not servers:
                del doc["mcp_servers"]
            after = doc.as_string()
        return None if record.created and not after.strip() else after

    return edit


def _checked(text: str, where: str) -> str:
    doc = _parse(text, where)
    if not _is_our_server((doc.get("mcp_servers") or {}).get(SERVER)):
        raise ConfigError(f"could not add [mcp_servers.{SERVER}] to {where} (an inline mcp_servers table?)")
    return text


def edits(target: Target, action: str) -> list[tuple[Path, Edit]]:
    folder = config_dir(target)
    return [(folder / "hooks.json", _hooks_edit(target, action)), (folder / "config.toml", _config_edit(target, action))]


def notes(target: Target, action: str, records: dict[Path, FileRecord]) -> list[str]:
    if action == "install" and target.scope == "project":
        return ["Codex loads a project's .codex/ only when the project is trusted."]
    return []


def present(target: Target) -> dict[Path, bool]:
    folder = config_dir(target)
    hooks = config_json.load(read_text(folder / "hooks.json"), str(folder / "hooks.json"))
    config = _parse(read_text(folder / "config.toml"), str(folder / "config.toml"))
    servers = config.get("mcp_servers") or {}
    return {folder / "hooks.json": set(config_json.hook_events(hooks, _ours)) >= set(EVENTS),
            folder / "config.toml": isinstance(servers, dict) and _is_our_server(servers.get(SERVER))}
