"""Editing an agent's JSON settings without disturbing the rest of the file.

Key order is kept (dicts keep insertion order), the indentation is the file's own
(detected from its first indented line), non-ASCII stays as written and the final
newline is kept or left out as it was. A file in the usual `JSON.stringify(x, null, 2)`
shape therefore comes back byte for byte once our entries are taken out again.

Claude Code and Codex share one hooks shape, so its edits live here too:
`{"hooks": {"Event": [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

DEFAULT_INDENT = 2


class ConfigError(Exception):
    """A configuration file we must not touch (unparseable, or not the shape we expect)."""


def load(text: str | None, where: str) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{where} is not valid JSON ({exc}); fix it or move it aside first") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{where} does not hold a JSON object")
    return doc


def dump(doc: dict[str, Any], original: str | None) -> str:
    indent: int | str = DEFAULT_INDENT
    newline = True
    if original and original.strip():
        match = re.search(r"\n([ \t]+)\S", original)
        if match:
            lead = match.group(1)
            indent = lead if "\t" in lead else len(lead)
        newline = original.endswith("\n")
    return json.dumps(doc, indent=indent, ensure_ascii=False) + ("\n" if newline else "")


def add_hooks(doc: dict[str, Any], commands: dict[str, str], is_ours: Callable[[str], bool],
              timeout: int | None = None) -> None:
    """Register `commands` (event name -> command line), one matcher group per event,
    replacing any earlier registration of ours (so a second install changes nothing)."""
    remove_hooks(doc, is_ours)
    hooks = doc.get("hooks")
    if hooks is None:
        hooks = doc["hooks"] = {}
    if not isinstance(hooks, dict):
        raise ConfigError('"hooks" is not an object')
    for event, command in commands.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f'"hooks.{event}" is not a list')
        handler: dict[str, Any] = {"type": "command", "command": command}
        if timeout is not None:
            handler["timeout"] = timeout
        groups.append({"hooks": [handler]})


def remove_hooks(doc: dict[str, Any], is_ours: Callable[[str], bool]) -> bool:
    """Take out every hook handler of ours; containers that only held ours go too.
    Returns whether anything was removed."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return False
    removed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not (isinstance(h, dict) and is_ours(str(h.get("command", ""))))]
            if len(kept) == len(handlers):
                kept_groups.append(group)
                continue
            removed = True
            if kept:
                group["hooks"] = kept
                kept_groups.append(group)
        if len(kept_groups) != len(groups):
            if kept_groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
    if removed and not hooks:
        del doc["hooks"]
    return removed


def hook_events(doc: dict[str, Any], is_ours: Callable[[str], bool]) -> list[str]:
    """The events that carry a handler of ours."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if any(isinstance(h, dict) and is_ours(str(h.get("command", ""))) for h in handlers or []):
                found.append(event)
                break
    return found
