"""The help screen (`?`): screens, keys, and the graph's legend."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..glyphs import GLYPHS, LABELS

KEYS = [
    ("Everywhere", [
        ("1 … 9", "switch screen (the numbers in the top bar)"),
        ("ctrl+p", "command palette: every action, and sessions by title"),
        ("t", "switch between the dark and the light theme (remembered)"),
        ("?", "this help"),
        ("q", "quit"),
    ]),
    ("Sessions", [
        ("tab / shift+tab", "move between the session list, branches, graph and detail"),
        ("↑ ↓", "choose a session, a branch, or a turn in the graph"),
        ("[ ]", "previous / next live branch of the session"),
        ("enter", "in the graph: select the branch of the turn under the cursor"),
        ("home end", "in the graph: first / last turn"),
        ("r", "read the sessions again from disk"),
    ]),
    ("Core", [
        ("i", "always-on injection on / off (config: core.inject)"),
        ("r", "read the core again"),
    ]),
]

STATE_HELP = {
    "written": "written to memory by this workspace",
    "pending": "a record the writer still owes",
    "elsewhere": "marked by another workspace: shown, but still owed here",
    "rewound": "the user rewound it; never written",
    "unrecorded": "tool call, runtime turn or summary: never a record",
    "head": "the branch the user is on",
}


def help_content() -> Content:
    lines: list[Content] = [Content.styled("Scriptorium — branch-aware memory for AI agents", "bold $text-primary"),
                            Content("")]
    for section, keys in KEYS:
        lines.append(Content.styled(section, "bold"))
        for key, what in keys:
            lines.append(Content.assemble(("  " + key.ljust(18), "$text-accent"), what))
        lines.append(Content(""))
    lines.append(Content.styled("The branch graph", "bold"))
    for state, glyph in GLYPHS.items():
        lines.append(Content.assemble("  ", (glyph, f"$node-{state}"), "  ", (LABELS[state].ljust(14), "bold"),
                                      (STATE_HELP[state], "$muted-text")))
    lines += [Content(""), Content.styled("escape or ? closes this help", "$muted-text")]
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 86; max-width: 95%; height: auto; max-height: 90%;
        border: round $border; background: $surface; padding: 1 2;
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_content())

    def action_dismiss(self) -> None:
        self.dismiss(None)
