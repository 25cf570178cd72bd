"""Codex's hook trust: which of our hooks Codex will run, and the entries that say so.

Codex runs a non-managed hook only once it is trusted: `config.toml` of the *user* layer
(`$CODEX_HOME/config.toml`; a project's own config.toml cannot trust anything) holds
`[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]` with `trusted_hash`, the
hash of the hook as configured (openai/codex `hooks/src/engine/discovery.rs`,
`command_hook_hash`; `config/src/fingerprint.rs`, `version_for_toml`): SHA-256 of the
compact, key-sorted JSON of `{"event_name": <snake_case event>, "hooks": [<the handler,
normalized>]}` — the handler with its `type`, `command`, `async` (false) and `timeout`
(default 600 s; SessionEnd's clamped to 1–3 s), unset fields left out, and the group's
`matcher` only when one is set. `/hooks` in Codex's TUI writes the same entry. A hook
whose entry is missing or whose hash differs (the hook changed, or a Codex that hashes
otherwise) is skipped without a word, which is why `doctor` checks them.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable

SHORT_TIMEOUT_EVENTS = {"SessionEnd": (1, 3)}  # Codex's default and ceiling for these, in seconds


@dataclass(frozen=True)
class Hook:
    """One handler of ours as Codex keys and hashes it."""

    key: str
    trusted_hash: str


def event_label(event: str) -> str:
    """SessionStart -> session_start (Codex's `hook_event_key_label`)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hook_hash(event: str, handler: dict[str, Any], matcher: str | None = None) -> str:
    default, ceiling = SHORT_TIMEOUT_EVENTS.get(event, (600, None))
    timeout = handler.get("timeout")
    timeout = max(1, int(timeout) if isinstance(timeout, int) else default)
    if ceiling is not None:
        timeout = min(timeout, ceiling)
    normalized: dict[str, Any] = {"type": "command", "command": handler.get("command", ""), "timeout": timeout,
                                  "async": bool(handler.get("async", False))}
    if isinstance(handler.get("statusMessage"), str):
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": event_label(event), "hooks": [normalized]}
    if matcher is not None and event not in ("UserPromptSubmit", "Stop"):
        identity["matcher"] = matcher
    data = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def our_hooks(hooks_json: Path, doc: dict[str, Any], is_ours: Callable[[str], bool]) -> list[Hook]:
    """Every handler of ours in `doc` (the parsed hooks.json at `hooks_json`), keyed and hashed."""
    found: list[Hook] = []
    source = str(Path(hooks_json).absolute())
    hooks = doc.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for gi, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            matcher = group.get("matcher") if isinstance(group, dict) and isinstance(group.get("matcher"), str) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if isinstance(handler, dict) and is_ours(str(handler.get("command", ""))):
                    found.append(Hook(f"{source}:{event_label(event)}:{gi}:{hi}", hook_hash(event, handler, matcher)))
    return found


def untrusted(hooks: list[Hook], config: Any) -> list[Hook]:
    """The hooks whose trust entry in the parsed user config.toml is missing or stale."""
    table = config.get("hooks") if isinstance(config, dict) else None
    states = table.get("state") if isinstance(table, dict) else None
    states = states if isinstance(states, dict) else {}
    out = []
    for hook in hooks:
        state = states.get(hook.key)
        state = state if isinstance(state, dict) else {}
        if state.get("trusted_hash") != hook.trusted_hash or state.get("enabled") is False:
            out.append(hook)
    return out


TRUST_HOWTO = ("open `codex`, type /hooks, and trust the scriptorium hooks (Codex skips hooks it has not "
               "trusted, without a word)")
