"""The writer's tools: they act only inside one staging `topics/` directory.

Every path a model gives is relative to `topics/` (a leading `topics/` is accepted
and dropped). It is resolved and confined: absolute paths, `..`, hidden names,
anything under `sources/` and any symlink on the way are refused with an error the
model reads as the tool's result — a refused call changes nothing. Only `.md` files
are written. `sources/` is evidence: the model reads records with `read_source`.

A topic may be larger than one read returns (`MAX_READ_CHARS`). Such a read is
marked as partial and says how to read on; a file the model has seen only in part
can never be replaced whole by `write_file` (the clipped text written back would
lose every block past the clip). Large topics are edited without reading them:
`list_blocks` (ids and first lines), `read_block`, `edit_block` and `append_blocks`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..memory.names import list_topic_files, printable, unsafe_problem

MAX_READ_CHARS = 200_000
MAX_WRITE_BYTES = 1_000_000
MAX_LIST = 500
MAX_LIST_BLOCKS = 500
BLOCK_SUMMARY_CHARS = 100
PARTIAL_READ = "[partial read of "  # how a read that is not the whole file begins
_DEFINITION_LINE = re.compile(r"^\[\^[^\]\s]*\]:")  # a footnote definition line (topics.py's grammar)


class ToolError(Exception):
    """A refused or failed call; the message goes back to the model."""


def _schema(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


_PATH = {"type": "string", "description": "path relative to topics/, e.g. people/ada.md"}

SCHEMAS = {
    "list_files": _schema("list_files", "List the topic files (paths relative to topics/, with sizes).",
                          {"path": {"type": "string", "description": "optional sub-folder of topics/"}}, []),
    "read_file": _schema("read_file", f"Read one topic file. A file longer than {MAX_READ_CHARS} characters (or a "
                         "read with offset/limit) comes back as a marked partial read that says how to read on; "
                         "a file you have read only in part cannot be replaced with write_file: change it with "
                         "edit_block, append_blocks or edit_file.",
                         {"path": _PATH, "offset": {"type": "integer", "description": "first character to read (0)"},
                          "limit": {"type": "integer", "description": f"characters to read (at most {MAX_READ_CHARS})"}},
                         ["path"]),
    "list_blocks": _schema("list_blocks", "List the blocks of a topic file, cheaply: each block's id, line, section "
                           "and first words. Use it on a large topic instead of reading all of it.",
                           {"path": _PATH, "start": {"type": "integer", "description": "index of the first block "
                                                     f"to list (0); at most {MAX_LIST_BLOCKS} are listed per call"}},
                           ["path"]),
    "read_block": _schema("read_block", "Read one block of a topic: its paragraph and the definition lines of the "
                          "citations it uses.", {"path": _PATH, "block_id": {"type": "string"}}, ["path", "block_id"]),
    "write_file": _schema("write_file", "Create or replace a topic file (.md) with the given content. Replacing a "
                          "file you have read only in part is refused.",
                          {"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
    "append_blocks": _schema("append_blocks", "Add new blocks (paragraphs, each with the definition lines of its "
                             "new citations) at the end of a topic, or at the end of one of its ## sections, without "
                             "reading or rewriting the rest. Creates the topic (with a title) if it does not exist.",
                             {"path": _PATH, "text": {"type": "string", "description": "the new paragraphs and their "
                                                      "[^e1]: definition lines"},
                              "section": {"type": "string", "description": "optional heading title; the section is "
                                          "created at the end if the topic has none by that title"}},
                             ["path", "text"]),
    "edit_block": _schema("edit_block", "Replace the text of one block, found by its id, keeping the id. new_text is "
                          "the new paragraph (claims with their citations, no ^id), optionally followed by a blank "
                          "line and the definition lines of new citations.",
                          {"path": _PATH, "block_id": {"type": "string"}, "new_text": {"type": "string"}},
                          ["path", "block_id", "new_text"]),
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

WRITER_TOOLS = ("list_files", "read_file", "list_blocks", "read_block", "write_file", "append_blocks", "edit_block",
                "edit_file", "delete_file", "read_source")
EDIT_TOOLS = ("write_file", "append_blocks", "edit_block", "edit_file", "delete_file")  # the calls that change topics
ORGANIZER_TOOLS = WRITER_TOOLS + ("retire_block",)


@dataclass
class TopicTools:
    """The tool box of one run over the staging `topics/` directory `root`."""

    root: Path
    lookup_source: Callable[[str], str | None]
    names: tuple[str, ...] = WRITER_TOOLS
    retirements: dict[str, str] = field(default_factory=dict)
    # what the model has seen of each file (relative path): "whole", or the (start, end)
    # character ranges its partial reads covered; write_file checks it before replacing
    seen: dict[str, str | list[tuple[int, int]]] = field(default_factory=dict)

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
        parameters = SCHEMAS[name]["function"]["parameters"]
        if missing := [key for key in parameters["required"] if key not in arguments]:
            raise ToolError(f"bad arguments for {name}: required {', '.join(missing)} missing "
                            f"(given: {', '.join(arguments) or 'nothing'})")
        if unknown := [key for key in arguments if key not in parameters["properties"]]:
            raise ToolError(f"bad arguments for {name}: no {', '.join(unknown)} "
                            f"(its arguments: {', '.join(parameters['properties'])})")
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

    def _read_file(self, path: str, offset: int = 0, limit: int | None = None) -> str:
        target = self.resolve(path)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        if not _is_count(offset) or (limit is not None and (not _is_count(limit) or limit == 0)):
            raise ToolError("offset must be an integer >= 0 and limit an integer > 0")
        text = _read_nofollow(target)
        rel = self.rel(target)
        size = min(limit or MAX_READ_CHARS, MAX_READ_CHARS)
        if offset == 0 and len(text) <= size:
            self.seen[rel] = "whole"
            return text
        if offset >= len(text):
            raise ToolError(f"offset {offset} is past the end of {rel} ({len(text)} characters)")
        end = min(offset + size, len(text))
        if end < len(text):  # end on a line break in the window's second half: no line cut in two
            cut = text.rfind("\n", offset + size // 2, end)
            end = cut + 1 if cut >= 0 else end
        self._saw(rel, offset, end, len(text))
        first, last = text.count("\n", 0, offset) + 1, text.count("\n", 0, max(end - 1, offset)) + 1
        header = (f"{PARTIAL_READ}{rel}: characters {offset}-{end} of {len(text)} (lines {first}-{last}). "
                  "This is NOT the whole file: write_file would replace all of it and is refused. "
                  + (f"Read on with read_file(path={rel!r}, offset={end}); " if end < len(text) else "")
                  + "list its blocks with list_blocks, change one with edit_block, add blocks with append_blocks.]")
        footer = f"\n[… {len(text) - end} more characters from offset {end}]" if end < len(text) else ""
        return f"{header}\n{text[offset:end]}{footer}"

    def _saw(self, rel: str, start: int, end: int, length: int) -> None:
        """Record a partial read; reads that together cover the file count as a whole one."""
        seen = self.seen.get(rel)
        if seen == "whole":
            return
        ranges = sorted([*(seen or []), (start, end)])
        merged: list[tuple[int, int]] = []
        for a, b in ranges:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        self.seen[rel] = "whole" if merged == [(0, length)] else merged

    def _changed(self, rel: str) -> None:
        """The file changed under partial reads: their offsets no longer mean the same text."""
        if isinstance(self.seen.get(rel), list):
            self.seen[rel] = []

    def _list_blocks(self, path: str, start: int = 0) -> str:
        target, doc = self._topic(path)
        if not _is_count(start):
            raise ToolError("start must be an integer >= 0")
        blocks = doc.blocks
        rel = self.rel(target)
        head = f"{rel}: {len(blocks)} block(s), {len(doc.text)} characters"
        if not blocks:
            return head
        if start >= len(blocks):
            raise ToolError(f"start {start} is past the last block of {rel} ({len(blocks)} blocks)")
        shown = blocks[start:start + MAX_LIST_BLOCKS]
        lines = [head]
        for b in shown:
            section = b.headings[-1] if b.headings else ""
            summary = " ".join(b.content.split())
            if len(summary) > BLOCK_SUMMARY_CHARS:
                summary = summary[: BLOCK_SUMMARY_CHARS - 1] + "\u2026"
            lines.append(f"^{b.block_id}  line {b.line}  [{section}]  {summary}")
        end = start + len(shown)
        if end < len(blocks):
            lines.append(f"[blocks {start}-{end - 1} of {len(blocks)}; more with list_blocks(path={rel!r}, start={end})]")
        return "\n".join(lines)

    def _read_block(self, path: str, block_id: str) -> str:
        _target, doc = self._topic(path)
        p = _find_block(doc, block_id)
        used = dict.fromkeys(c.id for c in p.citations)
        definitions = [doc.lines[doc.definitions[c].index] for c in used if c in doc.definitions]
        return p.text + ("\n\n" + "\n".join(definitions) if definitions else "")

    def _append_blocks(self, path: str, text: str, section: str | None = None) -> str:
        if not isinstance(text, str) or not text.strip():
            raise ToolError("text must hold the new paragraphs")
        if section is not None and (not isinstance(section, str) or "\n" in section):
            raise ToolError("section must be one heading title")
        added = text.strip("\n")
        if len(added.encode("utf-8")) > MAX_WRITE_BYTES:
            raise ToolError(f"text too large ({len(added.encode('utf-8'))} bytes; limit {MAX_WRITE_BYTES})")
        target = self.resolve(path, markdown=True)
        title = section.strip().lstrip("#").strip() if section else ""
        if target.exists() and not target.is_file():
            raise ToolError(f"not a file: {path}")
        if not target.exists():
            self._make_parents(target)
            heading = f"## {title}\n\n" if title else ""
            new = f"# {_title(target.name)}\n\n{heading}{added}\n"
            _write_nofollow(target, new.encode("utf-8"))
            self.seen[self.rel(target)] = "whole"
            return f"created {self.rel(target)} with the new text ({len(new)} characters)"
        from ..memory.topics import parse_topic

        old = _read_nofollow(target)
        where = "the end"
        if title:
            doc = parse_topic(self.rel(target), old)
            match = next((h for h in doc.headings if h.level > 1 and h.title.strip().casefold() == title.casefold()), None)
            if match is None:
                new = f"{old.rstrip()}\n\n## {title}\n\n{added}\n"
                where = f"a new section '{title}'"
            else:
                end = next((h.index for h in doc.headings if h.index > match.index and h.level <= match.level),
                           len(doc.lines))
                before = "\n".join(doc.lines[:end]).rstrip()
                after = "\n".join(doc.lines[end:]).strip("\n")
                new = f"{before}\n\n{added}\n" + (f"\n{after}\n" if after else "")
                where = f"the end of section '{match.title}'"
        else:
            new = f"{old.rstrip()}\n\n{added}\n"
        _write_nofollow(target, new.encode("utf-8"))
        self._changed(self.rel(target))
        return f"appended to {where} of {self.rel(target)} (now {len(new)} characters)"

    def _edit_block(self, path: str, block_id: str, new_text: str) -> str:
        if not isinstance(new_text, str) or not new_text.strip():
            raise ToolError("new_text must be the block's new paragraph; a block that leaves memory is retired, "
                            "not emptied")
        from ..memory.normalize import is_local_label
        from ..memory.topics import DEFINITION, SUFFIX, parse_topic

        target, doc = self._topic(path, markdown=True)
        p = _find_block(doc, block_id)
        if p.suffix_start is None:
            raise ToolError(f"block ^{p.block_id} is a legacy block without an id suffix; change it with edit_file")
        lines = new_text.strip("\n").split("\n")
        split = next((i for i, line in enumerate(lines) if _DEFINITION_LINE.match(line)), len(lines))
        paragraph = "\n".join(lines[:split]).strip()
        definitions = [line for line in lines[split:] if line.strip()]
        if not paragraph or any(not line.strip() for line in paragraph.split("\n")):
            raise ToolError("new_text must be one paragraph (no blank line inside), optionally followed by the "
                            "definition lines of its new citations; add other blocks with append_blocks")
        if bad := next((line for line in definitions if not _DEFINITION_LINE.match(line)), None):
            raise ToolError(f"after the paragraph only definition lines may follow, not: {bad[:80]}")
        if any(line.lstrip().startswith(("#", "```")) for line in paragraph.split("\n")):
            raise ToolError("new_text must be a paragraph, not a heading or a code fence")
        suffix = p.text[p.suffix_start:]
        if (written := SUFFIX.search(paragraph)) is not None:
            ids = set(re.findall(r"\^([A-Za-z0-9-]+)", written.group(0)))
            if not ids <= set(p.ids):
                raise ToolError(f"new_text ends with ^{' ^'.join(sorted(ids - set(p.ids)))}: block ids belong to "
                                f"the runtime; write the text without an id and ^{p.block_id} is kept")
            paragraph = paragraph[: written.start()].rstrip()
        fresh = []
        for line in definitions:
            m = DEFINITION.match(line)
            fid = m.group("id") if m else ""
            if fid and fid in doc.definitions and not is_local_label(fid):
                continue  # already defined here: the existing definition stays
            fresh.append(line)
        out = doc.lines[: p.start] + (paragraph + suffix).split("\n")
        rest = doc.lines[p.end:]
        if fresh:
            gap = 1 if rest and not rest[0].strip() else 0
            run = gap
            while run < len(rest) and _DEFINITION_LINE.match(rest[run]):
                run += 1
            if run > gap:  # the block's definitions follow it: the new ones join them
                out += rest[:run] + fresh
                rest = rest[run:]
            else:
                out += ["", *fresh]
            if rest and rest[0].strip():
                out.append("")
        new = "\n".join(out + rest)
        if len(new.encode("utf-8")) - len(doc.text.encode("utf-8")) > MAX_WRITE_BYTES:
            raise ToolError(f"new_text too large (limit {MAX_WRITE_BYTES} bytes)")
        _write_nofollow(target, new.encode("utf-8"))
        self._changed(self.rel(target))
        check = parse_topic(self.rel(target), new)
        problems = [i.message for i in check.issues if i.block_id == p.block_id and i.rule != "unused-definition"]
        note = f"; note: {'; '.join(problems[:3])}" if problems else ""
        return f"edited ^{p.block_id} in {self.rel(target)}{note}"

    def _topic(self, path: str, *, markdown: bool = False) -> tuple[Path, Any]:
        """The file and its parse (uncached: a large topic changes with every edit)."""
        from ..memory.topics import parse_topic

        target = self.resolve(path, markdown=markdown)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        return target, parse_topic(self.rel(target), _read_nofollow(target))

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
        rel = self.rel(target)
        if target.is_file() and self.seen.get(rel) != "whole":
            size = target.stat().st_size
            if self.seen.get(rel) is not None or size > MAX_READ_CHARS:
                seen = "read only part of" if self.seen.get(rel) is not None else "not read all of"
                raise ToolError(
                    f"refused: you have {seen} {rel} ({size} bytes), so write_file would replace text you "
                    "have not seen and lose its blocks. Add blocks with append_blocks, change one block with "
                    "edit_block (list_blocks shows the ids), or make a small change with edit_file")
        _write_nofollow(target, data)
        self.seen[rel] = "whole"
        return f"wrote {rel} ({len(data)} bytes)"

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
        grown = len(data) - len(text.encode("utf-8"))
        if len(data) > MAX_WRITE_BYTES and grown > 0:  # replace_all can grow a file as much as a write can
            raise ToolError(f"the edited file would be too large ({len(data)} bytes; limit {MAX_WRITE_BYTES})")
        _write_nofollow(target, data)
        self._changed(self.rel(target))
        return f"edited {self.rel(target)} ({count} replacement{'s' if count > 1 else ''})"

    def _delete_file(self, path: str) -> str:
        target = self.resolve(path, markdown=True)
        if not target.is_file():
            raise ToolError(f"no such file: {path}")
        target.unlink()
        self.seen.pop(self.rel(target), None)
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


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _title(name: str) -> str:
    stem = PurePosixPath(name).stem.replace("-", " ").strip() or "Notes"
    return stem[:1].upper() + stem[1:]


def _find_block(doc: Any, block_id: Any) -> Any:
    if not isinstance(block_id, str) or not block_id.strip("^ "):
        raise ToolError("a block_id is required")
    bid = block_id.strip().lstrip("^")
    found = next((p for p in doc.paragraphs if bid in p.ids), None)
    if found is None:
        raise ToolError(f"no block ^{bid} in {doc.path}; list_blocks shows the ids of its blocks")
    return found


def _read_nofollow(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace")


def _write_nofollow(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
