"""The writer's tools: they act only inside one staging `topics/` directory.

Every path a model gives is relative to `topics/` (a leading `topics/` is accepted
and dropped). It is resolved and confined: absolute paths, `..`, hidden names,
anything under `sources/` and any symlink on the way are refused with an error the
model reads as the tool's result — a refused call changes nothing. Only `.md` files
are written. `sources/` is evidence: the model reads records with `read_source`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..memory.names import list_topic_files, printable, unsafe_problem

MAX_READ_CHARS = 200_000
MAX_WRITE_BYTES = 1_000_000
MAX_LIST = 500


class ToolError(Exception):
    """A refused or failed call; the message goes back to the model."""


def _schema(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


_PATH = {"type": "string", "description": "path relative to topics/, e.g. people/ada.md"}

SCHEMAS = {
    "list_files": _schema("list_files", "List the topic files (paths relative to topics/, with sizes).",
                          {"path": {"type": "string", "description": "optional sub-folder of topics/"}}, []),
    "read_file": _schema("read_file", "Read one topic file.", {"path": _PATH}, ["path"]),
    "write_file": _schema("write_file", "Create or replace a topic file (.md) with the given content.",
                          {"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
    "edit_file": _schema("edit_file", "Replace old_string by new_string in a topic file; old_string must occur "
                         "exactly once unless replace_all is true.",
                         {"path": _PATH, "old_string": {"type": "string"}, "new_string": {"type": "string"},
                          "replace_all": {"type": "boolean"}}, ["path", "old_string", "new_string"]),
    "delete_file": _schema("delete_file", "Delete a topic file.", {"path": _PATH}, ["path"]),
    "read_source": _schema("read_source", "Read one evidence record by its ref (e.g. openprogram/<session>/<node>).",
                           {"ref": {"type": "string"}}, ["ref"]),
    "retire_block": _schema("retire_block", "Declare that a block id leaves memory on purpose (merged into another "
                            "block, or obsolete). Every removed block id must be retired with a reason.",
                            {"block_id": {"type": "string"}, "reason": {"type": "string"}}, ["block_id", "reason"]),
}

WRITER_TOOLS = ("list_files", "read_file", "write_file", "edit_file", "delete_file", "read_source")
ORGANIZER_TOOLS = WRITER_TOOLS + ("retire_block",)


@dataclass
class TopicTools:
    """The tool box of one run over the staging `topics/` directory `root`."""

    root: Path
    lookup_source: Callable[[str], str | None]
    names: tuple[str, ...] = WRITER_TOOLS
    retirements: dict[str, str] = field(default_factory=dict)

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [SCHEMAS[n] for n in self.names]

    def call(self, name: str, arguments: str | dict[str, Any]) -> str:
        """Run one tool call; raises ToolError with a message meant for the model."""
        if name not in self.names:
            raise ToolError(f"unknown tool {name!r}; available: {', '.join(self.names)}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError as exc:
                raise ToolError(f"arguments are not valid JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise ToolError("arguments must be a JSON object")
        handler = getattr(self, "_" + name)
        try:
            return handler(**arguments)
        except TypeError as exc:
            raise ToolError(f"bad arguments for {name}: {exc}") from None
        except OSError as exc:
            raise ToolError(f"{name} failed: {exc.strerror or exc}") from None

    # -- path confinement ----------------------------------------------------------------

    def resolve(self, path: Any, *, markdown: bool = False) -> Path:
        if not isinstance(path, str) or not path.strip():
            raise ToolError("a path is required")
        if problem := unsafe_problem(path):  # names.py: what no topic name may hold
            raise ToolError(f"refused: {printable(path)}: {problem}")
        if "\\" in path:
            raise ToolError(f"invalid path: {path!r}")
        pure = PurePosixPath(path)
        if pure.is_absolute() or path.startswith("~"):
            raise ToolError(f"refused: {path} is absolute; paths are relative to topics/")
        parts = [p for p in pure.parts if p != "."]
        if ".." in parts:
            raise ToolError(f"refused: {path} leaves topics/ ('..' is not allowed)")
        if parts and parts[0] == "topics":
            parts = parts[1:]
        if parts and parts[0] == "sources":
            raise ToolError("refused: sources/ is the append-only evidence archive; read records with read_source")
        if not parts:
            raise ToolError(f"refused: {path} is not a file under topics/")
        if any(p.startswith(".") for p in parts):
            raise ToolError(f"refused: {path} names a hidden file or folder")
        if markdown and not parts[-1].endswith(".md"):
            raise ToolError(f"refused: {path} is not a .md file; topics are Markdown files")
        if self.root.is_symlink() or not self.root.is_dir():
            raise ToolError("the staging topics/ directory is unavailable")
        current = self.root
        for part in parts:
            current = current / part
            if current.is_symlink():
                raise ToolError(f"refused: {path} goes through a symlink")
        real_root = os.path.realpath(self.root)
        if os.path.commonpath([real_root, os.path.realpath(current)]) != real_root:
            raise ToolError(f"refused: {path} resolves outside topics/")
        return current

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    # -- tools ---------------------------------------------------------------------------

    def _list_files(self, path: str = "") -> str:
        base = self.resolve(path) if path else self.root
        if not base.is_dir():
            raise ToolError(f"not a folder: {path}")
        found = []
        for rel in list_topic_files(base).paths:  # names.py: the names a topic may have, nothing else
            full = base / rel
            found.append(f"{self.rel(full)}  ({full.stat().st_size} bytes)")
        if not found:
            return "(no topic files yet)"
        more = f"\n… {len(found) - MAX_LIST} more" if len(found) > MAX_LIST else ""
        return "\n".join(found[:MAX_LIST]) + more

    def _read_file(self, path: str) -> str:
        target = self.resolve(path)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        text = _read_nofollow(target)
        if len(text) > MAX_READ_CHARS:
            return text[:MAX_READ_CHARS] + f"\n… truncated at {MAX_READ_CHARS} characters"
        return text

    def _write_file(self, path: str, content: str) -> str:
        if not isinstance(content, str):
            raise ToolError("content must be a string")
        data = content.encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolError(f"content too large ({len(data)} bytes; limit {MAX_WRITE_BYTES})")
        target = self.resolve(path, markdown=True)
        self._make_parents(target)
        if target.exists() and not target.is_file():
            raise ToolError(f"not a file: {path}")
        _write_nofollow(target, data)
        return f"wrote {self.rel(target)} ({len(data)} bytes)"

    def _edit_file(self, path: str, old_string: str, new_string: str, replace_all: bool = False) -> str:
        if not isinstance(old_string, str) or not isinstance(new_string, str) or not old_string:
            raise ToolError("old_string must be a non-empty string and new_string a string")
        target = self.resolve(path, markdown=True)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        text = _read_nofollow(target)
        count = text.count(old_string)
        if count == 0:
            raise ToolError(f"old_string not found in {path}")
        if count > 1 and not replace_all:
            raise ToolError(f"old_string occurs {count} times in {path}; give more context or set replace_all")
        if old_string == new_string:
            raise ToolError("old_string and new_string are identical; nothing would change")
        data = text.replace(old_string, new_string).encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:  # replace_all can grow a file as much as a write can
            raise ToolError(f"the edited file would be too large ({len(data)} bytes; limit {MAX_WRITE_BYTES})")
        _write_nofollow(target, data)
        return f"edited {self.rel(target)} ({count} replacement{'s' if count > 1 else ''})"

    def _delete_file(self, path: str) -> str:
        target = self.resolve(path, markdown=True)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        target.unlink()
        return f"deleted {self.rel(target)}"

    def _read_source(self, ref: str) -> str:
        if not isinstance(ref, str) or not ref:
            raise ToolError("a ref is required")
        text = self.lookup_source(ref)
        if text is None:
            raise ToolError(f"unknown source ref: {ref}")
        return text

    def _retire_block(self, block_id: str, reason: str) -> str:
        if not isinstance(block_id, str) or not block_id.strip("^ "):
            raise ToolError("a block_id is required")
        if not isinstance(reason, str) or not reason.strip():
            raise ToolError("a reason is required to retire a block")
        bid = block_id.strip().lstrip("^")
        self.retirements[bid] = " ".join(reason.split())
        return f"block ^{bid} will be retired: {self.retirements[bid]}"

    def _make_parents(self, target: Path) -> None:
        current = self.root
        for part in target.relative_to(self.root).parts[:-1]:
            current = current / part
            if current.is_symlink():
                raise ToolError("refused: the path goes through a symlink")
            if current.exists() and not current.is_dir():
                raise ToolError(f"not a folder: {self.rel(current)}")
            current.mkdir(mode=0o700, exist_ok=True)


def _read_nofollow(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace")


def _write_nofollow(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
