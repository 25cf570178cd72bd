"""PROJECT.md: five fixed sections, edited in place.

Everything here is a pure text-to-text function so that scaffold, injection and
checkpoint agree on what a section is.
"""

from __future__ import annotations

from dataclasses import dataclass

from .sections import Section, split_sections
from .templates import EMPTY, LEGACY_HEADINGS, PROJECT_SECTIONS, cut_note


def canonical_section(name: str) -> str | None:
    """The fixed section a heading (or a caller's section name) denotes, if any."""
    folded = name.strip().casefold()
    for canonical in PROJECT_SECTIONS:
        if canonical.casefold() == folded:
            return canonical
    return LEGACY_HEADINGS.get(folded)


def rename_legacy_headings(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Rename legacy (English) headings of the fixed sections; only heading lines change."""
    split = split_sections(text)
    renamed: list[tuple[str, str]] = []
    sections = []
    for section in split.sections:
        canonical = canonical_section(section.heading)
        if canonical is not None and canonical != section.heading:
            renamed.append((section.heading, canonical))
            ending = section.lines[0][len(section.lines[0].rstrip("\r\n")):]
            section = Section(canonical, (f"## {canonical}{ending}", *section.lines[1:]))
        sections.append(section)
    return split.preamble + "".join(s.text for s in sections), renamed


def ensure_sections(text: str) -> tuple[str, list[str]]:
    """Add any missing fixed section (as `暂无`) at its place in the fixed order."""
    split = split_sections(text)
    present = {canonical_section(s.heading) for s in split.sections}
    missing = [name for name in PROJECT_SECTIONS if name not in present]
    if not missing:
        return text, []
    pieces = [split.preamble] + [s.text for s in split.sections]
    ranks = [-1] + [_rank(s.heading) for s in split.sections]
    for name in missing:
        rank = PROJECT_SECTIONS.index(name)
        position = next((i for i, r in enumerate(ranks) if r > rank), len(pieces))
        before = "".join(pieces[:position])
        lead = "" if not before or before.endswith("\n\n") else ("\n" if before.endswith("\n") else "\n\n")
        trail = "\n" if position < len(pieces) else ""
        pieces.insert(position, f"{lead}## {name}\n\n{EMPTY}\n{trail}")
        ranks.insert(position, rank)
    return "".join(pieces), missing


def _rank(heading: str) -> int:
    """Position of a heading among the fixed sections; extra sections never move others."""
    canonical = canonical_section(heading)
    return PROJECT_SECTIONS.index(canonical) if canonical else -1


def is_empty(text: str) -> bool:
    """True when every fixed section is empty or `暂无` (a fresh scaffold)."""
    for section in split_sections(text).sections:
        if canonical_section(section.heading) is None:
            continue
        body = _strip_comments(section.body).strip()
        if body and body != EMPTY:
            return False
    return True


@dataclass(frozen=True)
class SectionCut:
    name: str
    actual_bytes: int
    injected_bytes: int
    cap_bytes: int

    @property
    def cut(self) -> bool:
        return self.injected_bytes < self.actual_bytes


def cut_sections(text: str, share: int) -> tuple[str, list[SectionCut]]:
    """PROJECT.md as injected: each section capped at share/5, with a note where cut.

    Capping per section keeps the short sections whole and cuts only the overgrown one,
    which is what holds PROJECT.md to its one-screen contract. The whole result is also
    held to `share` (it can only exceed it through a large preamble or extra sections).
    """
    split = split_sections(text)
    cap = share // len(PROJECT_SECTIONS)
    pieces = [split.preamble]
    report: list[SectionCut] = []
    for section in split.sections:
        raw = section.text
        size = len(raw.encode("utf-8"))
        if size <= cap:
            piece = raw
        else:
            note = cut_note(size, cap)
            budget = cap - len(note.encode("utf-8"))
            piece = clip_lines(raw, budget).rstrip("\n") + "\n\n" + note + "\n"
        pieces.append(piece)
        report.append(SectionCut(section.heading, size, len(piece.encode("utf-8")), cap))
    out = "".join(pieces)
    if len(out.encode("utf-8")) > share:
        note = cut_note(len(out.encode("utf-8")), share)
        out = clip_lines(out, share - len(note.encode("utf-8"))).rstrip("\n") + "\n\n" + note
    return out, report


def clip_lines(text: str, budget: int) -> str:
    """The longest prefix of whole lines within `budget` bytes (a partial first line if needed)."""
    if budget <= 0:
        return ""
    kept: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        size = len(line.encode("utf-8"))
        if used + size > budget:
            if not kept:
                kept.append(line.encode("utf-8")[:budget].decode("utf-8", "ignore"))
            break
        kept.append(line)
        used += size
    return "".join(kept)


def _strip_comments(text: str) -> str:
    out = []
    rest = text
    while "<!--" in rest:
        before, _, after = rest.partition("<!--")
        out.append(before)
        _, found, rest = after.partition("-->")
        if not found:
            rest = ""
    out.append(rest)
    return "".join(out)
