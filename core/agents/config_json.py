"""Editing an agent's JSON settings without disturbing the rest of the file.

The file's text is edited in place (json_text): every byte outside our entries stays as
it was (compact lines, CRLF, indentation, escapes), ours are written in the style of the
container they go into, and taking them out restores the file byte for byte.

Claude Code and Codex share one hooks shape, so its edits live here too:
`{"hooks": {"Event": [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}}`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from . import json_text
from .json_text import Key


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


def start(text: str | None) -> str:
    """The text to edit: the file's own, or an empty object laid out one member per line."""
    return text if text is not None and text.strip() else "{\n}\n"


def is_empty(text: str) -> bool:
    """Nothing left but an empty object (what an install that created the file started from)."""
    try:
        return json.loads(text) == {}
    except ValueError:
        return False


KeyPath = list[Key]


def made_by_us(created: list[KeyPath] | None, path: KeyPath) -> bool:
    """Whether the install record says our install added `path` (or a container around it);
    without a record (an older install) every container we emptied counts as ours."""
    return created is None or any(path[: len(c)] == c for c in created)


def forget(created: list[KeyPath] | None, path: KeyPath) -> None:
    """`path` was taken out: it and what was under it are no longer ours to remember."""
    if created is not None:
        created[:] = [c for c in created if c[: len(path)] != path]


def add_hooks(text: str, commands: dict[str, str], is_ours: Callable[[str], bool], timeout: int | None,
              created: list[KeyPath], timeouts: dict[str, int] | None = None) -> str:
    """Register `commands` (event name -> command line), one matcher group per event,
    replacing any earlier registration of ours (so a second install changes nothing).
    `timeouts` overrides `timeout` per event. (No `"async": true` for Stop: with an async
    Stop pending, `claude -p` and `codex exec` exit without running Stop or SessionEnd.)
    The containers added are noted in `created`, for uninstall to take out again."""
    text = remove_hooks(text, is_ours, created)
    hooks = load(text, "settings").get("hooks")

    def group(event: str) -> dict[str, Any]:
        handler: dict[str, Any] = {"type": "command", "command": commands[event]}
        seconds = (timeouts or {}).get(event, timeout)
        if seconds is not None:
            handler["timeout"] = seconds
        return {"hooks": [handler]}

    if hooks is None:
        created.append(["hooks"])
        return json_text.add_member(text, [], "hooks", {event: [group(event)] for event in commands})
    if not isinstance(hooks, dict):
        raise ConfigError('"hooks" is not an object')
    for event in commands:
        groups = hooks.get(event)
        if groups is None:
            created.append(["hooks", event])
            text = json_text.add_member(text, ["hooks"], event, [group(event)])
        elif not isinstance(groups, list):
            raise ConfigError(f'"hooks.{event}" is not a list')
        else:
            text = json_text.append(text, ["hooks", event], group(event))
    return text


def _our_handler(doc: dict[str, Any], is_ours: Callable[[str], bool]) -> tuple[str, int, int, int] | None:
    """(event, group index, handler index, handlers in that group) of the first handler of ours."""
    hooks = doc.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for gi, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            for hi, h in enumerate(handlers):
                if isinstance(h, dict) and is_ours(str(h.get("command", ""))):
                    return event, gi, hi, len(handlers)
    return None


def remove_hooks(text: str, is_ours: Callable[[str], bool], created: list[KeyPath] | None) -> str:
    """Take out every hook handler of ours, with the byte-exact inverse of add_hooks; a
    group left empty goes, and so does an emptied container our install added."""
    while True:
        doc = load(text, "settings")
        found = _our_handler(doc, is_ours)
        if found is None:
            return text
        event, gi, hi, count = found
        if count > 1:
            text = json_text.remove(text, ["hooks", event, gi, "hooks", hi])
            continue
        text = json_text.remove(text, ["hooks", event, gi])
        if not load(text, "settings")["hooks"][event] and made_by_us(created, ["hooks", event]):
            text = json_text.remove(text, ["hooks", event])
            forget(created, ["hooks", event])
            if not load(text, "settings")["hooks"] and made_by_us(created, ["hooks"]):
                text = json_text.remove(text, ["hooks"])
                forget(created, ["hooks"])
def add_strings(text: str, path: KeyPath, values: list[str], created: list[KeyPath]) -> str:
    """Each of `values` appended to the string list at `path` (objects and the list made as
    needed, noted in `created`); values already there are left alone."""
    doc = load(text, "settings")
    node: Any = doc
    for depth, key in enumerate(path):
        child = node.get(key) if isinstance(node, dict) else None
        if child is None:
            rest: Any = [v for v in values]
            for inner in reversed(path[depth + 1:]):
                rest = {inner: rest}
            created.append(path[: depth + 1])
            return json_text.add_member(text, path[:depth], str(key), rest)
        if not isinstance(child, dict if depth < len(path) - 1 else list):
            raise ConfigError(f'"{".".join(map(str, path[: depth + 1]))}" is not the {"object" if depth < len(path) - 1 else "list"} expected')
        node = child
    for value in values:
        if value not in node:
            text = json_text.append(text, path, value)
            node.append(value)
            created.append([*path, value])  # ours to take out again (one the user had stays theirs)
    return text


def remove_strings(text: str, path: KeyPath, values: list[str], created: list[KeyPath] | None) -> str:
    """`values` taken out of the string list at `path`; containers that held only them and
    that our install made go too."""
    while True:
        node: Any = load(text, "settings")
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, list):
            return text
        found = next((i for i, v in enumerate(node) if v in values and made_by_us(created, [*path, v])), None)
        if found is None:
            break
        forget(created, [*path, node[found]])
        text = json_text.remove(text, [*path, found])
    for depth in range(len(path), 0, -1):
        node = load(text, "settings")
        for key in path[:depth]:
            node = node.get(key) if isinstance(node, dict) else None
        if node or node is None or not made_by_us(created, path[:depth]):
            break
        text = json_text.remove(text, path[:depth])
        forget(created, path[:depth])
    return text


def hook_commands(doc: dict[str, Any], is_ours: Callable[[str], bool]) -> list[str]:
    """The command lines of our handlers."""
    hooks = doc.get("hooks")
    found = []
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            found += [str(h["command"]) for h in handlers if isinstance(handlers, list) and isinstance(h, dict)
                      and is_ours(str(h.get("command", "")))] if isinstance(handlers, list) else []
    return found


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
