"""A rejection's diagnostics beside the editor: rule, line, block id, message, fix hint.
Click one to put the cursor on its line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scriptorium.core.sanitize import sanitize, sanitize_line
from textual import events
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

if TYPE_CHECKING:
    from scriptorium.core.memory import Diagnostic


def diagnostic_content(diagnostic: Diagnostic, topic_file: str | None) -> Content:
    """One diagnostic; its file is named only when it is not the topic being edited."""
    where = [("line " + str(diagnostic.line) if diagnostic.line else "file", "bold $text-error")]
    if diagnostic.file and diagnostic.file != topic_file:
        where.append((f" · {sanitize_line(diagnostic.file)}", "$text-warning"))
    head = Content.assemble(*where, "  ", (diagnostic.rule, "bold"),
                            *([("  ^" + diagnostic.block_id, "$text-primary")] if diagnostic.block_id else []))
    return Content("\n").join([
        head,
        Content(sanitize(diagnostic.message)),
        Content.assemble(("fix: ", "bold $text-success"), sanitize(diagnostic.hint)),
    ])


class DiagnosticItem(Static):
    DEFAULT_CSS = """
    DiagnosticItem { padding: 0 1; margin: 0 0 1 0; }
    DiagnosticItem:hover { background: $boost; }
    """

    def __init__(self, diagnostic: Diagnostic, topic_file: str | None) -> None:
        super().__init__(diagnostic_content(diagnostic, topic_file), markup=False)
        self.diagnostic = diagnostic

    def on_click(self, event: events.Click) -> None:
        self.post_message(DiagnosticsPanel.Chosen(self.diagnostic))


class DiagnosticsPanel(VerticalScroll):
    """Hidden until a change is rejected; `show([])` hides it again."""

    DEFAULT_CSS = """
    DiagnosticsPanel { background: $surface; height: auto; max-height: 60%; display: none; }
    DiagnosticsPanel.-shown { display: block; }
    DiagnosticsPanel > .summary { padding: 0 1; margin: 0 0 1 0; color: $text-error; text-style: bold; }
    """

    @dataclass
    class Chosen(Message):
        diagnostic: Diagnostic

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diagnostics: list[Diagnostic] = []

    async def show(self, diagnostics: list[Diagnostic], topic_file: str | None, summary: str = "") -> None:
        self.diagnostics = list(diagnostics)
        await self.remove_children()
        self.set_class(bool(diagnostics), "-shown")
        if not diagnostics:
            return
        await self.mount_all([Static(Content(summary), classes="summary", markup=False),
                              *(DiagnosticItem(d, topic_file) for d in diagnostics)])
        self.scroll_home(animate=False)
