"""The block inspector: the block under the cursor — its citations (click to open the
cited record), the blocks linking to it, and the commits that changed it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scriptorium.core.sanitize import sanitize_line
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from ..common.formatting import stamp
from .model import BlockInspection

HISTORY_SHOWN = 20


def _section(title: str, count: int | None = None) -> Content:
    return Content.assemble((title, "bold $text-primary"),
                            (f"  {count}" if count is not None else "", "$muted-text"))


def inspection_content(view: BlockInspection) -> Content:
    lines: list[Content] = []
    if view.ids:
        lines.append(Content.assemble(*[(f" ^{i} ", "reverse $text-primary") for i in view.ids],
                                      (f"  {sanitize_line(view.path)} · line {view.line}", "$muted-text")))
    else:
        lines.append(Content.assemble((" new paragraph ", "reverse $text-success"),
                                      (f"  {sanitize_line(view.path)} · line {view.line}", "$muted-text")))
        lines.append(Content.styled("Its block id is given when the topic is saved.", "italic $muted-text"))
    if view.headings:
        lines.append(Content.styled(" › ".join(sanitize_line(h) for h in view.headings), "$muted-text"))

    lines += [Content(""), _section("Citations", len(view.citations))]
    if not view.citations:
        lines.append(Content.styled("none — saving cites this paragraph to a manual note", "italic $text-warning"))
    shared = Counter(cited.number for cited in view.citations)
    seen: Counter = Counter()
    for index, cited in enumerate(view.citations):
        seen[cited.number] += 1  # one footnote citing three records reads [1.1] [1.2] [1.3], not [1] thrice
        suffix = f".{seen[cited.number]}" if shared[cited.number] > 1 else ""
        number = f"[{cited.number}{suffix}]" if cited.number else "[?]"
        where = (sanitize_line(cited.source_id), f"$text-accent underline @click=open_source({index})") \
            if cited.source_id else ("missing from the archive", "$text-error")
        lines.append(Content.assemble((number, "bold $text-accent"), f" {cited.when or 'undated'}  ",
                                      (sanitize_line(cited.label), "bold"), "  ", where))
        if cited.record:
            lines.append(Content.styled("    " + sanitize_line(cited.record)[:160], "$muted-text"))

    lines += [Content(""), _section("Backlinks", len(view.backlinks))]
    if not view.backlinks:
        lines.append(Content.styled("no block links here", "italic $muted-text"))
    for index, link in enumerate(view.backlinks):
        lines.append(Content.assemble(
            (f"{sanitize_line(link.path)}:{link.line}", f"$text-accent underline @click=jump({index})"),
            (f"  ^{link.block_id}" if link.block_id else "", "$text-primary"),
            ("  " + sanitize_line(link.words), "$muted-text")))

    lines += [Content(""), _section("History", len(view.history))]
    if not view.history and view.ids:
        lines.append(Content.styled("no commit changed it (yet)", "italic $muted-text"))
    for change in view.history[:HISTORY_SHOWN]:
        lines.append(Content.assemble((change.commit[:7], "$text-warning"), f"  {stamp(change.at)}  ",
                                      (change.change, "bold")))
        lines.append(Content.styled("  " + sanitize_line(change.summary), "$muted-text"))
    return Content("\n").join(lines)


class BlockInspector(Static):
    @dataclass
    class OpenSource(Message):
        index: int

    @dataclass
    class Jump(Message):
        path: str
        line: int

    DEFAULT_CSS = """
    BlockInspector { padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)
        self.view: BlockInspection | None = None

    def show(self, view: BlockInspection | None, note: str = "") -> None:
        self.view = view
        self.update(inspection_content(view) if view is not None else Content.styled(note, "italic $muted-text"))

    def action_open_source(self, index: int) -> None:
        self.post_message(self.OpenSource(index))

    def action_jump(self, index: int) -> None:
        if self.view is not None and index < len(self.view.backlinks):
            link = self.view.backlinks[index]
            self.post_message(self.Jump(link.path, link.line))
