"""Split a memory file into its `## ` sections, byte for byte.

The three files are edited in place by people and models, so the splitter must give
back exactly what it was given: every line keeps its ending, and joining the pieces
reproduces the file. A `## ` line inside a fenced code block or an HTML comment is
text, not a heading (a pasted shell transcript must not start a new section).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING_RE = re.compile(r"^## (?!#)(.*?)\s*$")
ANY_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)[\s#]*$")
FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Section:
    """One `## ` section: its heading text and its lines (the heading line first)."""

    heading: str
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def body(self) -> str:
        return "".join(self.lines[1:])


@dataclass(frozen=True)
class SplitFile:
    preamble: str
    sections: tuple[Section, ...]

    @property
    def text(self) -> str:
        return self.preamble + "".join(s.text for s in self.sections)


def heading_lines(text: str, pattern: re.Pattern[str] = HEADING_RE) -> list[tuple[int, str]]:
    """(line index, heading text) of every real heading matching `pattern` (default `## `)."""
    found: list[tuple[int, str]] = []
    fence: str | None = None
    in_comment = False
    for index, line in enumerate(text.splitlines()):
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        fence_match = FENCE_RE.match(line)
        if fence_match:
            fence = fence_match.group(1)[:3]
            continue
        if "<!--" in line and "-->" not in line.split("<!--", 1)[1]:
            in_comment = True
            continue
        match = pattern.match(line)
        if match:
            found.append((index, match.group(1)))
    return found


def split_sections(text: str) -> SplitFile:
    lines = text.splitlines(keepends=True)
    heads = heading_lines(text)
    if not heads:
        return SplitFile(text, ())
    preamble = "".join(lines[: heads[0][0]])
    sections = []
    for number, (start, heading) in enumerate(heads):
        end = heads[number + 1][0] if number + 1 < len(heads) else len(lines)
        sections.append(Section(heading, tuple(lines[start:end])))
    return SplitFile(preamble, tuple(sections))
