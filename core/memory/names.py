"""Topic file names: which ones memory accepts, and the one way to list topic files.

A name on disk is data from outside (an editor, Obsidian's `.trash/`, a `git pull`, a
file system that is not UTF-8), so it can be anything the file system allows. Memory
accepts a topic name only when it can be shown, stored in JSON and committed as it is:

- UTF-8 (`os.fsdecode` turns other bytes into lone surrogates, which crash any encoder);
- no control characters (C0, DEL, C1) and no bidi overrides: a name is printed in
  terminals, toasts and git messages, where an escape sequence would be executed;
- no backslash (on Windows and in `topic_rel` it is a folder separator: `a\\b.md` would
  be read as `a/b.md`, another file);
- no hidden part (`.trash/old.md`, `.draft.md`): hidden files belong to other tools;
- a `.md` file.

Listing (`list_topic_files`) skips every other `.md` file and reports it as `Skipped`
(printable path, reason) instead of failing; the doors that create a topic (`topic
save`, the writer's tools, `memory_remember`, the TUI's dialogs) refuse such a name
through `name_problem` with the same words. Stdlib only: the search path imports it.
"""

from __future__ import annotations

import os
import re

from ..values import Frozen, Value

# C0, DEL, C1; U+202A..U+202E (LRE RLE PDF LRO RLO) and U+2066..U+2069 (LRI RLI FSI PDI),
# which sanitize.py drops from what it shows.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")
TOPIC_SUFFIX = ".md"


def unsafe_problem(name: str) -> str | None:
    """Why `name` cannot even be shown or stored as it is (not UTF-8, a control or bidi
    character), or None. What every door refuses before anything else."""
    if not name.isascii() and _SURROGATE.search(name):
        return "the name is not valid UTF-8"
    if _UNSAFE.search(name):
        return "the name holds a control character"
    return None


def name_problem(rel: str) -> str | None:
    """Why `rel` (a path under `topics/`, `/`-separated, as `os.fsdecode` gives it) cannot
    be a topic's name, or None when it can. The reasons are short and hold no part of the
    name, so a caller can print them as they are."""
    if problem := unsafe_problem(rel):
        return problem
    if "\\" in rel:
        return "the name holds a backslash"
    parts = rel.split("/")
    if any(p.startswith(".") for p in parts):
        return "a hidden file or folder"
    if not rel.endswith(TOPIC_SUFFIX):
        return "not a .md file"
    return None


def printable(rel: str) -> str:
    """`rel` safe to print, log or put in JSON: bytes that are not UTF-8 as `\\xNN`,
    control and bidi characters as `\\xNN` / `\\uNNNN`; every other character as it is."""
    out = []
    for c in rel:
        code = ord(c)
        if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        elif _UNSAFE.match(c):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(c)
    return "".join(out)


class Skipped(Frozen):
    """A `.md` file memory leaves out, and why: `path` is printable (see `printable`),
    relative to the memory root (`topics/…`)."""

    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


class TopicFiles(Value):
    """The topic files (relative to `topics/`, sorted) and the skipped ones."""

    __slots__ = ("paths", "skipped")

    def __init__(self, paths: list[str] | None = None, skipped: list[Skipped] | None = None) -> None:
        self.paths: list[str] = [] if paths is None else paths
        self.skipped: list[Skipped] = [] if skipped is None else skipped


def list_topic_files(topics: str | os.PathLike[str]) -> TopicFiles:
    """Every acceptable `.md` file under `topics` (symbolic links are not followed and not
    reported, as before); the `.md` files with an unacceptable name, hidden folders
    included, are reported in `skipped`. Never raises for a name."""
    found = TopicFiles()
    _walk(os.fspath(topics), "", found, hidden=False)
    found.paths.sort()
    found.skipped.sort(key=lambda s: s.path)
    return found


def _walk(directory: str, prefix: str, found: TopicFiles, *, hidden: bool) -> None:
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        rel = prefix + entry.name
        if entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, rel + "/", found, hidden=hidden or entry.name.startswith("."))
        elif entry.name.endswith(TOPIC_SUFFIX) and entry.is_file(follow_symlinks=False):
            problem = "a hidden file or folder" if hidden else name_problem(rel)
            if problem is None:
                found.paths.append(rel)
            else:
                found.skipped.append(Skipped(f"topics/{printable(rel)}", problem))
