"""Ask which agent's transcripts to import, and from where (default: where the agent keeps them)."""

from __future__ import annotations

import shlex
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioButton, RadioSet, Static

from scriptorium.core.sanitize import sanitize_line

from .model import IMPORT_KINDS, ImportJob
from ..topics.dialogs import DIALOG_CSS


def shown_path(path: Path) -> str:
    home = Path.home()
    return sanitize_line("~/" + str(path.relative_to(home)) if path.is_relative_to(home) else str(path))


class ImportDialog(ModalScreen[ImportJob | None]):
    """Answers an `ImportJob`, or None when cancelled."""

    CSS = DIALOG_CSS.format(name="ImportDialog") + """
    ImportDialog RadioSet { width: 100%; margin: 0 0 1 0; }
    ImportDialog .hint { color: $muted-text; margin: 0 0 1 0; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, locations: dict[str, list[Path]]) -> None:
        super().__init__()
        self.locations = locations

    def compose(self) -> ComposeResult:
        present = {kind: [r for r in roots if r.is_dir()] for kind, roots in self.locations.items()}
        first = next((kind for kind in IMPORT_KINDS if present.get(kind)), next(iter(IMPORT_KINDS)))
        with Vertical():
            yield Static(Content("Import transcripts"), classes="title", markup=False)
            yield Static(Content("Every session becomes a conversation DAG here, with its real forks. Importing "
                                 "again adds only what is new; the transcripts are only read."), classes="hint",
                         markup=False)
            with RadioSet(id="kind"):
                for kind, label in IMPORT_KINDS.items():
                    roots = self.locations.get(kind) or []
                    where = ", ".join(shown_path(r) for r in roots) or "no default location"
                    state = ("", "") if present.get(kind) else ("  not found", "$muted-text")
                    yield RadioButton(Content.assemble((label, "bold"), f"  {where}", state), value=kind == first,
                                      id=kind)
            yield Input(placeholder="or these files / directories instead (optional)", id="paths")
            with Horizontal(classes="buttons"):
                yield Button("Import", id="import", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one(RadioSet).focus()

    def _submit(self) -> None:
        pressed = self.query_one(RadioSet).pressed_button
        kind = pressed.id if pressed is not None and pressed.id in IMPORT_KINDS else next(iter(IMPORT_KINDS))
        try:
            words = shlex.split(self.query_one(Input).value)
        except ValueError as exc:
            self.notify(f"Cannot read the paths: {exc}", severity="warning", markup=False)
            return
        paths = tuple(Path(w).expanduser() for w in words)
        if missing := [p for p in paths if not p.exists()]:
            self.notify(f"No such file or directory: {sanitize_line(str(missing[0]))}", severity="warning",
                        markup=False)
            return
        if not paths and not any(r.is_dir() for r in self.locations.get(kind) or []):
            self.notify(f"{IMPORT_KINDS[kind]} keeps no transcripts here yet: give files or directories to import.",
                        severity="warning", markup=False)
            return
        self.dismiss(ImportJob(kind, paths))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "import":
            self._submit()
        else:
            self.dismiss(None)
