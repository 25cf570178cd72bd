"""The Sync screen's dialogs: add a remote (name and URL, refused inline), settle a conflict
with your own text."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from scriptorium.core.sanitize import sanitize_line

from ..topics.dialogs import DIALOG_CSS

if TYPE_CHECKING:
    from .model import SyncConflict


class AddRemoteDialog(ModalScreen[str | None]):
    """Name and URL of a remote; `add(name, url)` answers None when added, else why not
    (shown here, the dialog stays open). Dismissed with the name added, or None."""

    CSS = DIALOG_CSS.format(name="AddRemoteDialog") + """
    AddRemoteDialog Input { margin: 0 0 1 0; }
    AddRemoteDialog #add-error { color: $text-error; height: auto; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, add: Callable[[str, str], str | None]) -> None:
        super().__init__()
        self.add = add

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content("Add a remote"), classes="title", markup=False)
            yield Static(Content.styled("Any git URL, or the path of a bare repository (git init --bare) on a "
                                        "shared drive; memory syncs with it on s.", "$muted-text"), markup=False)
            yield Label("Name")
            yield Input(value="origin", id="remote-name")
            yield Label("URL or path")
            yield Input(placeholder="git@host:team/memory.git  or  ~/Dropbox/memory.git", id="remote-url")
            yield Static(id="add-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Add", id="add", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#remote-url", Input).focus()

    def _submit(self) -> None:
        name = self.query_one("#remote-name", Input).value.strip()
        url = self.query_one("#remote-url", Input).value.strip()
        problem = "Give the remote a name and a URL." if not (name and url) else self.add(name, url)
        if problem is None:
            self.dismiss(name)
        else:
            self.query_one("#add-error", Static).update(Content(sanitize_line(problem)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._submit() if event.button.id == "add" else self.dismiss(None)


class EditDialog(ModalScreen[str | None]):
    """Replace both texts of a conflict with one the user writes (prefilled with the local text)."""

    CSS = DIALOG_CSS.format(name="EditDialog")
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, conflict: SyncConflict) -> None:
        super().__init__()
        self.conflict = conflict

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Settle ^{self.conflict.block_id} with your text"), classes="title", markup=False)
            yield Static(Content.assemble(("incoming: ", "bold"), sanitize_line(self.conflict.incoming)), markup=False)
            yield Input(value=self.conflict.local, id="text")
            with Horizontal(classes="buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _submit(self) -> None:
        text = self.query_one(Input).value.strip()
        if not text:
            self.notify("The text is empty.", severity="warning")
            return
        self.dismiss(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._submit() if event.button.id == "save" else self.dismiss(None)
