"""A unified diff (git's or difflib's), one header per file with its line counts, and
added / removed / hunk lines coloured. The text is untrusted: topics quote conversations."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from textual.content import Content

from scriptorium.core.sanitize import sanitize

from .text_panel import ContentPanel

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_STYLE = {"@": "$text-accent", "+": "$text-success", "-": "$text-error", "\\": "italic $muted-text", " ": ""}


@dataclass
class FileDiff:
    path: str
    status: str = ""  # "new file", "deleted" or ""
    lines: list[str] = field(default_factory=list)  # hunk headers and hunk lines, as in the diff

    def count(self, sign: str) -> int:
        return sum(1 for line in self.lines if line.startswith(sign) and not line.startswith("@@"))


def parse_diff(diff: str) -> list[FileDiff]:
    """Files and their hunks. Inside a hunk every line is content, whatever it starts
    with (a removed `-- x` line reads `--- x`): the hunk header's counts say where it ends."""
    files: list[FileDiff] = []
    status = ""
    old = new = 0  # lines of the current hunk still to come
    lines = diff.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if (old > 0 or new > 0) and files and line[:1] in ("+", "-", " ", ""):
            files[-1].lines.append(line)
            old -= line[:1] in ("-", " ", "")
            new -= line[:1] in ("+", " ", "")
        elif line.startswith("\\") and files:
            files[-1].lines.append(line)
        elif (hunk := _HUNK.match(line)) and files:
            files[-1].lines.append(line)
            old, new = int(hunk.group(1) or 1), int(hunk.group(2) or 1)
        elif line.startswith("diff --git "):
            status = ""
        elif line.startswith(("new file mode", "deleted file mode")):
            status = "new file" if line.startswith("new") else "deleted"
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            before, after = line[4:], lines[i + 1][4:]
            path = before if after == "/dev/null" else after
            files.append(FileDiff(path[2:] if path.startswith(("a/", "b/")) else path, status))
            status = ""
            i += 1
        i += 1
    return files


def diff_content(diff: str) -> Content:
    """The diff as styled lines under one header per file (path, status, +added −removed)."""
    out: list[Content] = []
    for n, f in enumerate(parse_diff(diff)):
        if n:
            out.append(Content(""))
        out.append(Content.assemble(("▌ ", "$text-primary"), (sanitize(f.path), "bold"),
                                    (f"  {f.status}" if f.status else "", "$muted-text"),
                                    (f"  +{f.count('+')}", "$text-success"), (f" −{f.count('-')}", "$text-error")))
        out += [Content.styled(sanitize(line), _STYLE.get(line[:1], "")) for line in f.lines]
    return Content("\n").join(out)


class DiffView(ContentPanel):
    def show(self, diff: str, empty: str = "") -> None:
        """`diff` coloured; when it is empty, the `empty` note (ours, trusted) instead."""
        self.show_body(diff_content(diff) if diff.strip() else None, empty)
