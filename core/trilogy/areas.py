"""Areas: coarse labels on SESSIONS entries, and how the injected entries are shared out.

The set is closed and coarse — at most four named areas plus `通用` — because a long
tail of one-entry areas is worse than one rough label. The model names the area when it
writes (it knows the context best); this module only coarsens: reuse an existing name
case-insensitively, fold anything beyond the fourth into `通用`.

Slots go out in two levels of fairness: every area gets one entry (a quiet area would
otherwise vanish), the rest follow attention weight Σ 0.5^(age_days/14), and no area
takes more than twice its fair share (a hot area would otherwise eat the log).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from .log import Entry
from .templates import GENERAL_AREA

MAX_NAMED_AREAS = 4
HALF_LIFE_DAYS = 14
# An undated entry carries no recency: it counts as this old.
UNDATED_AGE_DAYS = 10_000


def is_general(name: str) -> bool:
    return not name.strip() or name.strip().casefold() == GENERAL_AREA.casefold()


def named_areas(entries: list[Entry] | tuple[Entry, ...]) -> list[str]:
    """The closed set as the log defines it: the (≤4) named areas with the most entries.

    Ties go to the area seen first (the file is newest first, so: the most recent).
    Spelling is the first one seen; matching is case-insensitive.
    """
    counts: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for entry in entries:
        if is_general(entry.label):
            continue
        key = entry.label.casefold()
        spelling.setdefault(key, entry.label)
        counts[key] += 1
    order = sorted(counts, key=lambda key: (-counts[key], list(spelling).index(key)))
    return [spelling[key] for key in order[:MAX_NAMED_AREAS]]


def coarsen(requested: str, areas: list[str]) -> str:
    """The area a new entry is filed under: an existing one, a new one if room, or 通用."""
    if is_general(requested):
        return GENERAL_AREA
    for name in areas:
        if name.casefold() == requested.strip().casefold():
            return name
    return requested.strip() if len(areas) < MAX_NAMED_AREAS else GENERAL_AREA


def area_of(entry: Entry, areas: list[str]) -> str:
    """The area an existing entry counts under (folded to 通用 when outside the set)."""
    for name in areas:
        if name.casefold() == entry.label.strip().casefold():
            return name
    return GENERAL_AREA


def weight(entries: list[Entry], today: date) -> float:
    total = 0.0
    for entry in entries:
        age = UNDATED_AGE_DAYS if entry.date is None else max(0, (today - entry.date).days)
        total += 0.5 ** (age / HALF_LIFE_DAYS)
    return total


@dataclass(frozen=True)
class AreaShare:
    name: str
    entries: int  # entries in the log
    weight: float
    cap: int  # 2 × fair share (never more than the area holds)
    slots: int  # entries it gets in the injection


def allocate(groups: dict[str, list[Entry]], slots: int, today: date) -> list[AreaShare]:
    """Share `slots` among areas: floor of one each, then by weight, each ≤ 2× fair share."""
    names = [name for name, entries in groups.items() if entries]
    if not names or slots <= 0:
        return [AreaShare(n, len(groups[n]), weight(groups[n], today), 0, 0) for n in names]
    weights = {name: weight(groups[name], today) for name in names}
    fair = slots / len(names)
    caps = {name: max(1, min(len(groups[name]), int(2 * fair))) for name in names}
    by_weight = sorted(names, key=lambda n: -weights[n])  # stable: ties keep first-seen order
    given = {name: 0 for name in names}
    for name in by_weight[:slots]:
        given[name] = 1
    total_weight = sum(weights.values())
    ideal = {n: slots * (weights[n] / total_weight if total_weight else 1 / len(names)) for n in names}
    remaining = slots - sum(given.values())
    while remaining > 0:
        open_areas = [n for n in by_weight if given[n] < caps[n]]
        if not open_areas:
            break
        best = max(open_areas, key=lambda n: ideal[n] - given[n])
        given[best] += 1
        remaining -= 1
    return [AreaShare(n, len(groups[n]), weights[n], caps[n], given[n]) for n in names]
