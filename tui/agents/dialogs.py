"""The Agents screen's confirmation: the configuration diff an install / uninstall would write."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..common.diff_view import DiffView


class ConfirmChange(ModalScreen[bool]):
    """"Install claude-code (user)?" over the diff of the agent's files; escape cancels. Into the
    demo state it says so and what that wires, and confirms with "Install anyway"."""

    DEFAULT_CSS = """
    ConfirmChange { align: center middle; background: $background 60%; }
    ConfirmChange > Vertical { width: 110; max-width: 95%; height: 85%; padding: 1 2;
        border: round $border; background: $panel; }
    ConfirmChange .title { text-style: bold; color: $text-primary; }
    ConfirmChange .note { color: $muted-text; margin: 0 0 1 0; }
    ConfirmChange .note.-warn { color: $text-warning; }
    ConfirmChange DiffView { height: 1fr; border: round $border-blurred; }
    ConfirmChange .buttons { height: auto; margin: 1 0 0 0; align-horizontal: right; }
    ConfirmChange Button { margin: 0 0 0 1; min-width: 10; }
    """
    BINDINGS = [Binding("escape", "dismiss(False)", "Cancel")]

    def __init__(self, title: str, note: str, diff: str, confirm: str, *, warn: bool = False) -> None:
        """`warn`: the note warns (an install into the demo state), not only informs."""
        super().__init__()
        self.warn = warn
        self.title_text = title
        self.note = note
        self.diff = diff
        self.confirm = confirm

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.title_text), classes="title", markup=False)
            yield Static(Content(self.note), classes="note -warn" if self.warn else "note", markup=False)
            yield DiffView()
            with Horizontal(classes="buttons"):
                yield Button(Content(self.confirm), id="confirm", variant="primary")
                yield Button(Content("Cancel"), id="cancel")

    def on_mount(self) -> None:
        self.query_one(DiffView).show(self.diff, "No change.")
        self.query_one("#confirm", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")
