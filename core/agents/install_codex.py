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
from .codex_trust import TRUST_HOWTO, Hook, our_hooks, untrusted
from .config_json import ConfigError
from .target import Edit, FileRecord, Target, is_scriptorium_argv, read_text, state_arg

AGENT = "codex"
SERVER = "scriptorium"
EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreCompact": "pre-compact",
    "Stop": "stop",
    "SessionEnd": "session-end",
    "SubagentStart": "subagent-start",
}
TIMEOUT = 30  # seconds; the hooks return at once, this only bounds a wedged machine
TIMEOUTS = {"SessionEnd": 3}  # Codex clamps SessionEnd's to 3 s (and warns at every start when it must)


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
            return config_json.add_hooks(text, commands, _ours, TIMEOUT, record.keys, TIMEOUTS)
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
                       r"(?:(?:\[[^\r\n]*\]|[A-Za-z_]+ = [^\r\n]*)\r?\n)*")


def approvals(target: Target) -> dict[str, str]:
    """Codex's approval mode per tool: the read tools always run; remember asks or runs as
    chosen at install (`--remember`)."""
    from .mcp_server import READ_TOOLS, WRITE_TOOLS

    write = "approve" if target.remember == "allow" else "prompt"
    return {**{name: "approve" for name in READ_TOOLS}, **{name: write for name in WRITE_TOOLS}}


def _block(target: Target, trust: list[Hook], nl: str) -> str:
    """Our tables, with the file's own line ending: the server, its tools' approval modes,
    and (user scope) the trust entries of our hooks."""
    import tomlkit

    argv = target.argv("mcp")
    lines = [BLOCK_MARK, f"[mcp_servers.{SERVER}]", f"command = {tomlkit.item(argv[0]).as_string()}",
             f"args = {tomlkit.item(argv[1:]).as_string()}"]
    for tool, mode in approvals(target).items():
        lines += [f"[mcp_servers.{SERVER}.tools.{tool}]", f'approval_mode = "{mode}"']
    for hook in trust:
        lines += [f"[hooks.state.{tomlkit.item(hook.key).as_string()}]",
                  f"trusted_hash = {tomlkit.item(hook.trusted_hash).as_string()}"]
    return nl.join(lines + [""])


def _trust(target: Target, hooks_text: str | None) -> list[Hook]:
    """Our hooks in `hooks_text` (hooks.json's text), as the user layer trusts them; none for
    a project, whose config.toml cannot trust hooks (only the user's can)."""
    if target.scope != "user" or hooks_text is None:
        return []
    path = config_dir(target) / "hooks.json"
    return our_hooks(path, config_json.load(hooks_text, str(path)), _ours)


def _installed_hooks_text(target: Target) -> str | None:
    """hooks.json as this install leaves it (the edits are computed file by file)."""
    path = config_dir(target) / "hooks.json"
    return _hooks_edit(target, "install")(read_text(path), FileRecord())


def _complete(doc: Any, target: Target, trust: list[Hook]) -> bool:
    """Whether `doc` already holds everything install would write (wherever the user moved it)."""
    servers = doc.get("mcp_servers")
    server = servers.get(SERVER) if isinstance(servers, dict) else None
    argv = target.argv("mcp")
    if not isinstance(server, dict) or not _is_our_server(server) or server.get("command") != argv[0] \
            or list(server.get("args", [])) != argv[1:]:
        return False
    tools = server.get("tools")
    tools = tools if isinstance(tools, dict) else {}
    for tool, mode in approvals(target).items():
        entry = tools.get(tool)
        if not isinstance(entry, dict) or entry.get("approval_mode") != mode:
            return False
    return not untrusted(trust, doc)


def _without_ours(text: str, where: str, trust_keys: set[str]) -> str:
    """`text` with our server and trust entries taken out: our marked block cut off the end
    byte for byte, or (moved or edited by the user) each table removed through tomlkit."""
    match = _BLOCK_RE.search(text)
    if match and match.end() == len(text):
        text = text[: match.start()]
    doc = _parse(text, where)
    changed = False
    servers = doc.get("mcp_servers")
    if isinstance(servers, dict) and _is_our_server(servers.get(SERVER)):
        del servers[SERVER]
        if not servers:
            del doc["mcp_servers"]
        changed = True
    hooks = doc.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    if isinstance(states, dict):
        for key in [k for k in states if k in trust_keys]:
            del states[key]
            changed = True
        if not states:
            del hooks["state"]
        if not hooks:
            del doc["hooks"]
    return doc.as_string() if changed else text


def _config_edit(target: Target, action: str) -> Edit:
    """Install appends one marked block at the end (valid TOML wherever the user's other
    tables are), so uninstall can cut exactly those bytes out again. Tables the user moved
    or edited are found and taken out through tomlkit, and install writes them afresh."""
    where = str(config_dir(target) / "config.toml")

    def edit(before: str | None, record: FileRecord) -> str | None:
        doc = _parse(before, where)
        servers = doc.get("mcp_servers")
        if servers is not None and not isinstance(servers, dict):
            raise ConfigError(f"mcp_servers in {where} is not a table")
        current = servers.get(SERVER) if servers is not None else None
        if current is not None and not _is_our_server(current):
            raise ConfigError(f'{where} already has another MCP server named "{SERVER}"')
        text = before or ""
        on_disk = {h.key for h in _trust(target, read_text(config_dir(target) / "hooks.json"))}
        if action == "install":
            trust = _trust(target, _installed_hooks_text(target))
            if _complete(doc, target, trust):
                return before
            text = _without_ours(text, where, on_disk | {h.key for h in trust})
            nl = "\r\n" if "\r\n" in text else "\n"
            sep = nl if text else ""  # one line ending before ours: what uninstall's pattern cuts again
            return _checked(text + sep + _block(target, trust, nl), where)
        after = _without_ours(text, where, on_disk)
        if after == text:
            return before
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
    if action != "install":
        return []
    if target.scope == "project":
        return ["Codex loads a project's .codex/ only when the project is trusted, and runs its hooks only once "
                f"you trust them: {TRUST_HOWTO}."]
    remember = "runs without asking" if target.remember == "allow" else "asks each time"
    return [f"Codex trusts these hooks: install wrote their trust entries ([hooks.state]) in {config_dir(target) / 'config.toml'}; "
            f"if Codex still does not run them, {TRUST_HOWTO}.",
            f"The read tools run without approval; memory_remember {remember} (--remember ask|allow)."]


def present(target: Target) -> dict[Path, bool]:
    folder = config_dir(target)
    hooks = config_json.load(read_text(folder / "hooks.json"), str(folder / "hooks.json"))
    config = _parse(read_text(folder / "config.toml"), str(folder / "config.toml"))
    servers = config.get("mcp_servers") or {}
    return {folder / "hooks.json": set(config_json.hook_events(hooks, _ours)) >= set(EVENTS),
            folder / "config.toml": isinstance(servers, dict) and _is_our_server(servers.get(SERVER))}


def untrusted_hooks(target: Target) -> list[Hook]:
    """Our hooks in this scope's hooks.json that the user's config.toml does not trust (as
    Codex computes trust): Codex skips them silently."""
    user_config = (Path(os.environ["CODEX_HOME"]).expanduser() if os.environ.get("CODEX_HOME")
                   else target.home / ".codex") / "config.toml"
    path = config_dir(target) / "hooks.json"
    text = read_text(path)
    if text is None:
        return []
    mine = our_hooks(path, config_json.load(text, str(path)), _ours)
    return untrusted(mine, _parse(read_text(user_config), str(user_config)))


def states(target: Target) -> dict[Path, set[str | None]]:
    """The state directories our entries point at, per file."""
    folder = config_dir(target)
    hooks = config_json.load(read_text(folder / "hooks.json"), str(folder / "hooks.json"))
    servers = _parse(read_text(folder / "config.toml"), str(folder / "config.toml")).get("mcp_servers") or {}
    server = servers.get(SERVER) if isinstance(servers, dict) else None
    args = server.get("args", []) if isinstance(server, dict) and _is_our_server(server) else None
    return {folder / "hooks.json": {state_arg(c) for c in config_json.hook_commands(hooks, _ours)},
            folder / "config.toml": {state_arg(list(args))} if isinstance(args, list) else set()}
