"""The rendered view of a topic: headings, and each block with its id as a badge and its
citations as numbered links (click one to open the cited record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scriptorium.core.sanitize import sanitize
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from .model import footnote_numbers

if TYPE_CHECKING:  # the memory package is imported by workers, not with the screen
    from scriptorium.core.memory import TopicDoc
    from scriptorium.core.memory.topics import Paragraph


def _plain(text: str) -> str:
    """Paragraph source lines read as prose: soft line breaks become spaces."""
    return sanitize(" ".join(text.split("\n")))


def block_content(paragraph: Paragraph, numbers: dict[str, int]) -> Content:
    """The paragraph's text with citations as `[n]` links and block links as links, then the
    id badge. Only our own values (footnote ids from the parser's grammar, list indexes)
    go into actions; the text itself is plain."""
    body = paragraph.body
    tokens = sorted([(c.start, c.end, "cite", c.id) for c in paragraph.citations]
                    + [(link.start, link.end, "link", index)
                       for index, (link, _path, _bid) in enumerate(paragraph.block_refs())])
    parts: list[Content | tuple[str, str] | str] = []
    pos = 0
    refs = paragraph.block_refs()
    for start, end, kind, key in tokens:
        if start < pos:
            continue
        parts.append(_plain(body[pos:start]))
        if kind == "cite":
            number = numbers.get(str(key))
            label = f"[{number}]" if number else f"[^{key}?]"
            style = "$text-accent underline" if number else "$text-error"
            parts.append((label, f"{style} @click=cite('{key}')"))
        else:
            link = refs[int(key)][0]
            parts.append((_plain(link.label), f"$text-accent underline @click=follow({key})"))
        pos = end
    parts.append(_plain(body[pos:]).rstrip())
    if paragraph.ids:
        for block_id in paragraph.ids:
            parts += [" ", (f" ^{block_id} ", "reverse $text-primary")]
    elif paragraph.citations:
        parts += [" ", (" new ", "reverse $text-success"), ("  its id is given on save", "italic $muted-text")]
    else:
        parts += [" ", (" new · uncited ", "reverse $text-warning"),
                  ("  on save it is cited to a manual note (your words become its evidence)", "italic $muted-text")]
    return Content.assemble(*parts)


class BlockCard(Static):
    """One paragraph of the topic; clicking it selects it."""

    DEFAULT_CSS = """
    BlockCard { padding: 0 1 0 1; margin: 0 0 1 0; border-left: blank; }
    BlockCard.-selected { background: $boost; border-left: outer $accent; }
    """

    @dataclass
    class Clicked(Message):
        card: BlockCard

    @dataclass
    class Cite(Message):
        paragraph: Paragraph
        footnote: str

    @dataclass
    class Follow(Message):
        path: str
        block_id: str

    def __init__(self, paragraph: Paragraph, numbers: dict[str, int]) -> None:
        super().__init__(block_content(paragraph, numbers), markup=False)
        self.paragraph = paragraph

    def on_click(self, event: events.Click) -> None:
        self.post_message(self.Clicked(self))

    def action_cite(self, footnote: str) -> None:
        self.post_message(self.Cite(self.paragraph, footnote))

    def action_follow(self, index: int) -> None:
        _link, path, block_id = self.paragraph.block_refs()[index]
        self.post_message(self.Follow(path, block_id))


class TopicView(VerticalScroll, can_focus=True):
    """Headings and blocks; ↑/↓ move between blocks, enter edits at the selected one."""

    DEFAULT_CSS = """
    TopicView { background: $surface; padding: 0 1; }
    TopicView > .heading { text-style: bold; color: $text-primary; margin: 0 0 1 0; }
    TopicView > .heading-1 { text-style: bold underline; }
    TopicView > .note { color: $muted-text; text-style: italic; }
    """

    BINDINGS = [
        Binding("up", "move(-1)", "Previous block", show=False),
        Binding("down", "move(1)", "Next block", show=False),
        Binding("home", "move_to(0)", show=False),
        Binding("end", "move_to(-1)", show=False),
        Binding("enter", "edit", "Edit here", show=False),
    ]

    @dataclass
    class Selected(Message):
        """A block was selected (by key or click)."""

        paragraph: Paragraph

    @dataclass
    class EditAt(Message):
        line: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: list[BlockCard] = []
        self.selected: int | None = None

    async def show(self, doc: TopicDoc | None, select_line: int | None = None, note: str = "") -> None:
        """Render `doc` (None: nothing open, `note` says why) and select the block at `select_line`."""
        await self.remove_children()
        self.cards, self.selected = [], None
        if doc is None:
            await self.mount(Static(Content(note), classes="note"))
            return
        numbers = footnote_numbers(doc)
        widgets: list[Static] = []
        headings = {h.index: h for h in doc.headings}
        items = sorted([(h.index, h) for h in doc.headings] + [(p.start, p) for p in doc.paragraphs],
                       key=lambda item: item[0])
        for index, item in items:
            if index in headings and item is headings[index]:
                prefix = "#" * item.level + " "
                widgets.append(Static(Content.assemble((prefix, "$muted-text"), sanitize(item.title)),
                                      classes=f"heading heading-{item.level}", markup=False))
            else:
                card = BlockCard(item, numbers)
                self.cards.append(card)
                widgets.append(card)
        if not widgets:
            widgets.append(Static(Content("This topic has no blocks yet."), classes="note"))
        await self.mount_all(widgets)
        if self.cards:
            self.select(self._index_at(select_line) if select_line is not None else 0, announce=False)

    def _index_at(self, line: int) -> int:
        """The card whose paragraph holds (or is nearest above) 1-based `line`."""
        best = 0
        for index, card in enumerate(self.cards):
            if card.paragraph.start < line:
                best = index
        return best

    def select(self, index: int, *, announce: bool = True) -> None:
        if not self.cards:
            return
        index = max(0, min(index, len(self.cards) - 1))
        if self.selected is not None and self.selected < len(self.cards):
            self.cards[self.selected].remove_class("-selected")
        self.selected = index
        card = self.cards[index]
        card.add_class("-selected")
        self.call_after_refresh(self.scroll_to_widget, card, animate=False)
        if announce:
            self.post_message(self.Selected(card.paragraph))

    @property
    def paragraph(self) -> Paragraph | None:
        return self.cards[self.selected].paragraph if self.selected is not None and self.cards else None

    def action_move(self, step: int) -> None:
        if self.cards:
            self.select((self.selected or 0) + step if self.selected is not None else 0)

    def action_move_to(self, index: int) -> None:
        if self.cards:
            self.select(index % len(self.cards))

    def action_edit(self) -> None:
        if self.paragraph is not None:
            self.post_message(self.EditAt(self.paragraph.line))

    def on_block_card_clicked(self, message: BlockCard.Clicked) -> None:
        message.stop()
        self.focus()
        if message.card in self.cards:
            self.select(self.cards.index(message.card))
