"""`memory_checkpoint` and `memory_read`: routed writes into the three files.

Routing is built in, not guessed: an item says what kind of content it is, and the
kind decides the file and the way of writing.

| kind       | file          | how                                                       |
|------------|---------------|-----------------------------------------------------------|
| `project`  | PROJECT.md    | in place, in one of the five sections                     |
| `session`  | SESSIONS.md   | new entry on top (`## date · area` + Done / Open / Next)  |
| `decision` | DECISIONS.md  | new entry on top (`## date — choice` + Chose / Over / Because) |

The deletion guard: the only removal allowed is a paired replacement — the line being
written directly supersedes one existing line (`replaces`). Anything else that looks
stale, duplicated or wrong is never deleted here; the item is refused and the refusal
is reported, for a human to decide.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from . import templates
from .archive import archive_overflow, archived_entries
from .areas import coarsen, named_areas
from .layout import TrilogyPaths, memory_lock, write_project_file
from .log import decision_entry, parse_log, prepend, session_entry
from .project import canonical_section
from .sections import HEADING_RE, Section, split_sections

KINDS = ("project", "session", "decision")


class CheckpointError(ValueError):
    """The request as a whole is malformed (not one refused item)."""


@dataclass(frozen=True)
class Applied:
    index: int
    kind: str
    file: str
    detail: str


@dataclass(frozen=True)
class Refused:
    index: int
    kind: str
    reason: str


@dataclass
class CheckpointResult:
    applied: list[Applied] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    archived: int = 0
    changed_files: list[str] = field(default_factory=list)

    @property
    def wrote(self) -> bool:
        return bool(self.changed_files)


class _Refusal(Exception):
    pass


def checkpoint(paths: TrilogyPaths, items: list[dict[str, Any]], *, max_entries: int, today: date | None = None) -> CheckpointResult:
    """Apply each item to its file; refused items are reported and change nothing."""
    if not isinstance(items, list):
        raise CheckpointError("items must be a list")
    today = today or date.today()
    result = CheckpointResult()
    with memory_lock(paths):
        texts = {name: _read(paths.file(name)) for name in templates.FILES}
        before = dict(texts)
        for index, item in enumerate(items):
            kind = item.get("kind") if isinstance(item, dict) else None
            if kind not in KINDS:
                result.refused.append(Refused(index, str(kind), f"kind must be one of {', '.join(KINDS)}"))
                continue
            if kind != "project" and ("delete" in item or "replaces" in item):
                result.refused.append(Refused(index, kind, "deletion guard: SESSIONS.md and DECISIONS.md are "
                                                           "append-only; add a new entry instead"))
                continue
            try:
                name, detail = _APPLY[kind](texts, item, today)
            except _Refusal as exc:
                result.refused.append(Refused(index, kind, str(exc)))
                continue
            result.applied.append(Applied(index, kind, name, detail))
        paths.memory.mkdir(parents=True, exist_ok=True)
        for name in templates.FILES:
            if texts[name] != before[name]:
                write_project_file(paths.file(name), texts[name])
                result.changed_files.append(name)
        if templates.SESSIONS in result.changed_files:
            result.archived = archive_overflow(paths, max_entries)
    return result


def _apply_project(texts: dict[str, str], item: dict[str, Any], today: date) -> tuple[str, str]:
    section_name = _field(item, "section")
    canonical = canonical_section(section_name)
    if canonical is None:
        raise _Refusal(f"unknown PROJECT.md section {section_name!r}; one of: {', '.join(templates.PROJECT_SECTIONS)}")
    if "delete" in item:
        raise _Refusal(
            "deletion guard: a line may only be removed by the line that replaces it "
            "(give `text` and `replaces`); report stale content to the user instead"
        )
    text = _field(item, "text", required=False)
    replaces = item.get("replaces")
    if not text:
        if replaces:
            raise _Refusal("deletion guard: `replaces` without a replacement `text` would only delete")
        raise _Refusal("`text` is required")
    if any(HEADING_RE.match(line) for line in text.splitlines()):
        raise _Refusal("`text` may not contain a `## ` heading (the five sections are fixed)")
    split = split_sections(texts[templates.PROJECT] or templates.project_template())
    sections = list(split.sections)
    position = next((i for i, s in enumerate(sections) if canonical_section(s.heading) == canonical), None)
    if position is None:
        raise _Refusal(f"PROJECT.md has no section {canonical!r} (run scaffold)")
    section = sections[position]
    lines = [line if line.endswith("\n") else line + "\n" for line in section.lines]
    new_lines = [line + "\n" for line in text.rstrip("\n").split("\n")]
    if replaces is not None:
        if not isinstance(replaces, str) or "\n" in replaces.strip() or not replaces.strip():
            raise _Refusal("`replaces` must be the one existing line the new text supersedes")
        matches = [i for i, line in enumerate(lines[1:], 1) if line.strip() == replaces.strip()]
        if len(matches) != 1:
            found = "not found" if not matches else f"found {len(matches)} times"
            raise _Refusal(f"deletion guard: the line to replace was {found} in section {canonical!r}; nothing removed")
        at = matches[0]
        lines[at : at + 1] = new_lines
        detail = f"{canonical}: replaced one line"
    else:
        body = [i for i, line in enumerate(lines[1:], 1) if line.strip() and not line.lstrip().startswith("<!--")]
        placeholder = [i for i in body if lines[i].strip() == templates.EMPTY]
        if placeholder and len(body) == 1:
            lines[placeholder[0] : placeholder[0] + 1] = new_lines
        else:
            last = body[-1] if body else 0
            if last == 0:
                new_lines = ["\n", *new_lines]
            lines[last + 1 : last + 1] = new_lines
        detail = f"{canonical}: added {len(new_lines)} line(s)"
    if position + 1 < len(sections) and not "".join(lines).endswith("\n\n"):
        lines.append("\n")
    sections[position] = Section(section.heading, tuple(lines))
    texts[templates.PROJECT] = split.preamble + "".join(s.text for s in sections)
    return templates.PROJECT, detail


def _apply_session(texts: dict[str, str], item: dict[str, Any], today: date) -> tuple[str, str]:
    done = _field(item, "done")
    day = _date(item, today)
    log = parse_log(texts[templates.SESSIONS])
    areas = named_areas(log.entries)
    requested = _field(item, "area", required=False)
    area = coarsen(requested, areas)
    entry = session_entry(
        day,
        "" if area == templates.GENERAL_AREA and not requested.strip() else area,
        done,
        _field(item, "open", required=False) or templates.EMPTY,
        _field(item, "next", required=False) or templates.EMPTY,
    )
    texts[templates.SESSIONS] = prepend(texts[templates.SESSIONS] or templates.SESSIONS_TEMPLATE, entry)
    detail = f"new entry {day.isoformat()} · {area}"
    if requested.strip() and area != requested.strip() and area == templates.GENERAL_AREA:
        detail += f" (area {requested.strip()!r} folded into {templates.GENERAL_AREA}: the set is full: {', '.join(areas)})"
    return templates.SESSIONS, detail


def _apply_decision(texts: dict[str, str], item: dict[str, Any], today: date) -> tuple[str, str]:
    choice = _field(item, "choice")
    chose, over, because = _field(item, "chose"), _field(item, "over"), _field(item, "because")
    day = _date(item, today)
    entry = decision_entry(day, choice, chose, over, because)
    texts[templates.DECISIONS] = prepend(texts[templates.DECISIONS] or templates.DECISIONS_TEMPLATE, entry)
    return templates.DECISIONS, f"new entry {day.isoformat()} — {' '.join(choice.split())}"


_APPLY = {"project": _apply_project, "session": _apply_session, "decision": _apply_decision}


def memory_read(paths: TrilogyPaths, file: str, section: str | None = None) -> str:
    """One memory file, one PROJECT.md section, or the log entries whose heading contains `section`."""
    name = _file_name(file)
    if name == "archive":
        entries = archived_entries(paths)
        if section:
            entries = tuple(e for e in entries if section.casefold() in e.heading.casefold())
        return "\n".join(e.clean for e in entries)
    text = _read(paths.file(name))
    if not section:
        return text
    if name == templates.PROJECT:
        canonical = canonical_section(section)
        for s in split_sections(text).sections:
            if canonical is not None and canonical_section(s.heading) == canonical:
                return s.text.rstrip("\n") + "\n"
        raise ValueError(f"PROJECT.md has no section {section!r}")
    matching = [e for e in parse_log(text).entries if section.casefold() in e.heading.casefold()]
    if not matching:
        raise ValueError(f"no {name} entry heading contains {section!r}")
    return "\n".join(e.clean for e in matching)


def _file_name(file: str) -> str:
    key = file.strip().casefold().removesuffix(".md")
    for name in templates.FILES:
        if name.casefold().removesuffix(".md") == key:
            return name
    if key == "archive":
        return "archive"
    raise ValueError(f"unknown memory file {file!r}; one of: PROJECT, DECISIONS, SESSIONS, archive")


def _field(item: dict[str, Any], key: str, *, required: bool = True) -> str:
    value = item.get(key, "")
    if not isinstance(value, str):
        raise _Refusal(f"`{key}` must be a string")
    if required and not value.strip():
        raise _Refusal(f"`{key}` is required")
    return value


def _date(item: dict[str, Any], today: date) -> date:
    raw = item.get("date")
    if raw in (None, ""):
        return today
    try:
        return date.fromisoformat(str(raw))
    except ValueError:
        raise _Refusal(f"`date` must be YYYY-MM-DD, got {raw!r}") from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
