"""What the trilogy puts in front of the model at session start, and its accounting.

Budget: `min(injectBudgetBytes, window × 16%)`. A fixed byte count is wrong at both
ends (too small for a mature project, too large for a small window); the window is in
tokens and every token is at least one byte, so 16% of the window in bytes never takes
more than 16% of the window. Shares are caps, not quotas: PROJECT.md ≤ 35% (each of its
five sections ≤ a fifth of that), DECISIONS.md ≤ 20%, and SESSIONS.md gets everything
the others left. The accounting line and the area map are always present, so a project
that has outgrown its budget is visible every session, not only when something drops.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import date

from ..fence import fence_memory
from . import templates
from .areas import AreaShare, allocate, area_of, named_areas
from .log import Entry, parse_log
from .project import SectionCut, cut_sections, is_empty
from .settings import TrilogySettings
from .snapshot import Snapshot

PROJECT_SHARE = 0.35
DECISIONS_SHARE = 0.20
WINDOW_SHARE = 0.16


@dataclass(frozen=True)
class FileAccount:
    name: str
    actual_bytes: int
    injected_bytes: int
    entries: int | None = None  # logs only
    entries_injected: int | None = None


@dataclass(frozen=True)
class Injection:
    """The block and its accounting. The budget covers everything inside the fence."""

    text: str  # the fenced block
    budget: int
    files: tuple[FileAccount, ...]
    sections: tuple[SectionCut, ...]
    areas: tuple[AreaShare, ...]
    area_counts: tuple[tuple[str, int], ...]  # entries per area in SESSIONS.md (the area map)
    area_injected: tuple[tuple[str, int], ...]  # entries per area actually injected
    accounting_line: str
    area_line: str
    injected_entries: frozenset[str]  # entry_key() of every injected log entry
    stale_days: int | None
    bootstrap: bool

    @property
    def digest(self) -> str:
        return hashlib.sha1(self.text.encode("utf-8")).hexdigest()

    @property
    def injected_bytes(self) -> int:
        return sum(f.injected_bytes for f in self.files)

    @property
    def actual_bytes(self) -> int:
        return sum(f.actual_bytes for f in self.files)


def effective_budget(settings: TrilogySettings, window: int | None) -> int:
    if window is None or window <= 0:
        return settings.injectBudgetBytes
    return min(settings.injectBudgetBytes, int(window * WINDOW_SHARE))


def entry_key(file: str, entry: Entry) -> str:
    return f"{file}:{hashlib.sha1(entry.text.encode('utf-8')).hexdigest()}"


def build_injection(
    snapshot: Snapshot, settings: TrilogySettings, *, window: int | None = None, today: date | None = None
) -> Injection:
    today = today or date.today()
    budget = effective_budget(settings, window)
    sessions_log = parse_log(snapshot.sessions)
    decisions_log = parse_log(snapshot.decisions)

    project_text, cuts = cut_sections(snapshot.project, int(budget * PROJECT_SHARE))
    decisions_text, decisions_used = _take_decisions(decisions_log.entries, int(budget * DECISIONS_SHARE))

    areas = named_areas(sessions_log.entries)
    groups: dict[str, list[Entry]] = {}
    for entry in sessions_log.entries:
        groups.setdefault(area_of(entry, areas), []).append(entry)
    area_counts = _area_counts(groups)
    area_line = templates.area_map_line(area_counts)
    notes = []
    bootstrap = settings.bootstrapWhenEmpty and is_empty(snapshot.project)
    if bootstrap:
        notes.append(templates.BOOTSTRAP_NOTE)
    stale = snapshot.project_lag_days()
    stale_days = stale if settings.projectStaleDays and stale is not None and stale >= settings.projectStaleDays else None
    if stale_days is not None:
        notes.append(templates.stale_note(stale_days))

    sizes = snapshot.sizes()
    worst_accounting = _accounting(budget, sizes, sizes, len(sessions_log.entries), len(sessions_log.entries))
    # Everything but the files' text: header lines, titles, separators, empty-file marks.
    frame = "".join("\n" + _title(n) + f"{templates.EMPTY}\n" for n in templates.FILES)
    overhead = _size("\n".join([worst_accounting, area_line, *notes]) + "\n" + frame)
    sessions_room = budget - overhead - _size(project_text) - _size(decisions_text)
    shares = allocate(groups, settings.sessionEntriesInjected, today)
    chosen = _fit_sessions(groups, shares, sessions_room)
    sessions_entries = [e for e in sessions_log.entries if id(e) in chosen]
    sessions_text = "\n".join(e.clean for e in sessions_entries)

    injected = {
        templates.PROJECT: _size(project_text),
        templates.DECISIONS: _size(decisions_text),
        templates.SESSIONS: _size(sessions_text),
    }
    accounting = _accounting(budget, injected, sizes, len(sessions_entries), len(sessions_log.entries))
    body = "\n".join([accounting, area_line, *notes]) + "\n"
    for name, text in (
        (templates.PROJECT, project_text),
        (templates.DECISIONS, decisions_text),
        (templates.SESSIONS, sessions_text),
    ):
        body += "\n" + _title(name) + (text.strip("\n") + "\n" if text.strip() else f"{templates.EMPTY}\n")
    keys = {entry_key(templates.SESSIONS, e) for e in sessions_entries}
    keys |= {entry_key(templates.DECISIONS, e) for e in decisions_log.entries[:decisions_used]}
    files = (
        FileAccount(templates.PROJECT, sizes[templates.PROJECT], injected[templates.PROJECT]),
        FileAccount(templates.DECISIONS, sizes[templates.DECISIONS], injected[templates.DECISIONS], len(decisions_log.entries), decisions_used),
        FileAccount(templates.SESSIONS, sizes[templates.SESSIONS], injected[templates.SESSIONS], len(sessions_log.entries), len(sessions_entries)),
    )
    return Injection(
        text=fence_memory(body),
        budget=budget,
        files=files,
        sections=tuple(cuts),
        areas=tuple(shares),
        area_counts=tuple(area_counts),
        area_injected=tuple(Counter(area_of(e, areas) for e in sessions_entries).items()),
        accounting_line=accounting,
        area_line=area_line,
        injected_entries=frozenset(keys),
        stale_days=stale_days,
        bootstrap=bootstrap,
    )


def _take_decisions(entries: tuple[Entry, ...], cap: int) -> tuple[str, int]:
    """Whole entries, newest first, while they fit (with room for the omission note)."""
    taken: list[str] = []
    for entry in entries:
        left_after = len(entries) - len(taken) - 1
        reserve = _size(templates.omitted_decisions_note(left_after)) + 1 if left_after else 0
        if _size("\n".join([*taken, entry.clean])) + reserve > cap:
            break
        taken.append(entry.clean)
    omitted = len(entries) - len(taken)
    text = "\n".join([*taken, templates.omitted_decisions_note(omitted)] if omitted else taken)
    if _size(text) > cap:  # not even the note fits a tiny budget
        text = "\n".join(taken)
    return text, len(taken)


def _fit_sessions(groups: dict[str, list[Entry]], shares: list[AreaShare], room: int) -> set[int]:
    """Ids of the entries injected: each area's newest `slots`, trimmed to `room` bytes.

    Over budget, the extra entries go first (oldest first), the one-per-area floors last.
    """
    floors: list[Entry] = []
    extras: list[Entry] = []
    for share in shares:
        picked = groups[share.name][: share.slots]
        floors.extend(picked[:1])
        extras.extend(picked[1:])
    drop_order = sorted(extras, key=lambda e: e.date or date.min) + sorted(floors, key=lambda e: e.date or date.min)
    chosen = [*floors, *extras]
    used = sum(_size(e.clean) + 1 for e in chosen)
    for entry in drop_order:
        if used <= room:
            break
        chosen.remove(entry)
        used -= _size(entry.clean) + 1
    return {id(e) for e in chosen}


def _area_counts(groups: dict[str, list[Entry]]) -> list[tuple[str, int]]:
    counts = Counter({name: len(entries) for name, entries in groups.items()})
    named = sorted((n for n in counts if n != templates.GENERAL_AREA), key=lambda n: -counts[n])
    tail = [templates.GENERAL_AREA] if counts.get(templates.GENERAL_AREA) else []
    return [(name, counts[name]) for name in [*named, *tail]]


def _accounting(budget: int, injected: dict[str, int], actual: dict[str, int], shown: int, total: int) -> str:
    kb = templates.kb
    parts = [
        f"[trilogy] 本次注入 {kb(sum(injected.values()))} / 文件实际 {kb(sum(actual.values()))}（预算 {kb(budget)}）"
    ]
    for name in templates.FILES:
        piece = f"{name} {injected[name] / 1000:.1f}/{kb(actual[name])}"
        if name == templates.SESSIONS:
            piece += f"（{shown}/{total} 条）"
        parts.append(piece)
    return " · ".join(parts)


def _title(name: str) -> str:
    return f"--- {name} ---\n"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))
