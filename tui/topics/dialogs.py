"""The Topics screen's questions: unsaved changes, a conflict with the disk, a retirement's
reason, and the cited records of a block."""

from __future__ import annotations

from scriptorium.core.sanitize import sanitize, sanitize_line
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from .model import CitedSource

DIALOG_CSS = """
{name} {{ align: center middle; background: $background 60%; }}  /* over app.tcss's opaque Screen */
{name} > Vertical {{ width: 72; max-width: 90%; height: auto; max-height: 80%; padding: 1 2;
    border: round $border; background: $panel; }}
{name} .title {{ text-style: bold; color: $text-primary; margin: 0 0 1 0; }}
{name} .buttons {{ height: auto; margin: 1 0 0 0; align-horizontal: right; }}
{name} Button {{ margin: 0 0 0 1; min-width: 10; }}
"""


class Choice(ModalScreen[str]):
    """A question with a few answers (buttons); escape answers "cancel"."""

    CSS = DIALOG_CSS.format(name="Choice")
    BINDINGS = [Binding("escape", "dismiss('cancel')", "Cancel")]

    def __init__(self, title: str, body: Content, choices: list[tuple[str, str, str]]) -> None:
        """`choices`: (answer, button label, variant)."""
        super().__init__()
        self.title_text = title
        self.body = body
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.title_text), classes="title", markup=False)
            yield Static(self.body, markup=False)
            with Horizontal(classes="buttons"):
                for answer, label, variant in self.choices:
                    yield Button(Content(label), id=answer, variant=variant)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "cancel")


def unsaved_choice(path: str, leaving: str) -> Choice:
    body = Content.assemble("Your draft of ", (f"topics/{sanitize_line(path)}", "bold"),
                            f" is not saved. Save it (through the transaction) before {leaving}, or discard it?")
    return Choice("Unsaved changes", body,
                  [("save", "Save", "primary"), ("discard", "Discard", "error"), ("cancel", "Cancel", "default")])


def conflict_choice(path: str) -> Choice:
    body = Content.assemble(
        (f"topics/{sanitize_line(path)}", "bold"), " changed on disk after you began editing it; "
        "nothing was saved.\n\n",
        ("Reload", "bold"), ": show the version on disk (your draft is dropped).\n",
        ("Keep draft", "bold"), ": keep editing your text; the next save replaces the disk version "
        "(and is validated against it).")
    return Choice("Changed on disk", body,
                  [("keep", "Keep draft", "primary"), ("reload", "Reload", "warning")])


class RetireDialog(ModalScreen[str | None]):
    """Ask why a block is retired; the reason is recorded with the retirement."""

    CSS = DIALOG_CSS.format(name="RetireDialog")
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, path: str, block_id: str, words: str) -> None:
        super().__init__()
        self.path = path
        self.block_id = block_id
        self.words = words

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Retire block ^{self.block_id}"), classes="title", markup=False)
            yield Static(Content.assemble(
                ("topics/" + sanitize_line(self.path), "bold"), "\n", (sanitize_line(self.words), "italic"), "\n\n",
                "The paragraph leaves the topic; its id is recorded as retired with your reason. "
                "Blocks elsewhere that link to it reject the change."), markup=False)
            yield Input(placeholder="Why is this block retired? (required)", id="reason")
            with Horizontal(classes="buttons"):
                yield Button("Retire", id="retire", variant="error")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _submit(self) -> None:
        reason = self.query_one(Input).value.strip()
        if not reason:
            self.notify("A retirement needs a reason.", severity="warning")
            return
        self.dismiss(reason)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "retire":
            self._submit()
        else:
            self.dismiss(None)


class SourceDialog(ModalScreen[None]):
    """The archived records a block cites, in full (plain, sanitized text)."""

    CSS = DIALOG_CSS.format(name="SourceDialog") + """
    SourceDialog > Vertical { width: 100; }
    SourceDialog VerticalScroll { height: auto; max-height: 32; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,q,o", "dismiss(None)", "Close")]

    def __init__(self, block_id: str | None, sources: list[CitedSource], first: int = 0) -> None:
        super().__init__()
        self.block_id = block_id
        self.sources = sources
        self.first = first

    def compose(self) -> ComposeResult:
        title = f"Cited by ^{self.block_id}" if self.block_id else "Cited by the new paragraph"
        with Vertical():
            yield Static(Content(title), classes="title", markup=False)
            with VerticalScroll():
                for index, cited in enumerate(self.sources):
                    yield Static(self._record(cited), id=f"record-{index}", markup=False)

    def _record(self, cited: CitedSource) -> Content:
        head = Content.assemble((f"[{cited.number or '?'}] ", "bold $text-accent"), (cited.when or "undated"),
                                "  ", (sanitize_line(cited.label), "bold"), "  ",
                                (sanitize_line(cited.source_id or cited.target), "$text-accent"))
        if cited.record is None:
            body = Content.styled("This source is not in the archive.", "$text-error")
        else:
            body = Content(sanitize(cited.record))
        return Content("\n").join([head, body, Content("")])

    def on_mount(self) -> None:
        if self.first:
            self.call_after_refresh(self.query_one(f"#record-{self.first}").scroll_visible, top=True, animate=False)
        self.query_one(VerticalScroll).focus()
