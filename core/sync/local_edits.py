"""A person's edits in progress in the memory work tree, before a sync touches it.

A topic file changed in an editor and not yet saved through Scriptorium is not in any
commit, so a merge reading commits alone would write over it. Sync asks git first:
a topic changed or added in the work tree (staged or not) is merged as this machine's side:
the merge reads it from disk, and only when the remote changed that topic too is it
written, validated and committed with the merge; otherwise it stays as it is, uncommitted.
What cannot be merged safely is refused with nothing changed (`UNSAVED_EDITS`): a topic
deleted by hand, any change under `sources/` (evidence is written by the runtime only),
and a topic that is not UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..memory.names import name_problem, printable
from . import remote as git_remote


@dataclass
class LocalEdits:
    topics: dict[str, bytes] = field(default_factory=dict)  # path under topics/ -> bytes on disk
    refusal: str | None = None


def local_edits(root: Path) -> LocalEdits:
    out = LocalEdits()
    listing = git_remote.git(root, "-c", "core.quotepath=off", "status", "--porcelain=v1", "-z",
                             "--untracked-files=all", "--no-renames", "--", "topics", "sources").stdout
    problems: list[str] = []
    for item in listing.split(b"\0"):
        if len(item) < 4:
            continue
        code, path = item[:2].decode(), item[3:].decode("utf-8", "surrogateescape")
        where = printable(path)
        if path.startswith("sources/"):
            problems.append(f"{where} was changed by hand: evidence is written by Scriptorium only "
                            "(git checkout -- sources to restore it)")
        elif "D" in code:
            problems.append(f"{where} was deleted by hand: restore it (git checkout -- '{where}') "
                            "or retire its blocks through scriptorium")
        elif path.endswith(".md") and name_problem(path[len("topics/"):]) is None:
            data = (root / path).read_bytes()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                problems.append(f"{where} is not valid UTF-8: save it as UTF-8")
                continue
            out.topics[path[len("topics/"):]] = data
    if problems:
        out.refusal = ("edits in progress in memory would be overwritten; nothing was synced: "
                       + "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""))
    return out
