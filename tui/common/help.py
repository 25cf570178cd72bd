"""The help screen (`?`): screens, keys, and the graph's legend."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from .glyphs import GLYPHS, LABELS

GLOBAL_KEYS = [
    ("1 … 9", "switch screen (the numbers in the top bar)"),
    ("escape / ↓", "in an input: leave it, so these keys work again"),
    ("/", "back to the screen's input (a query, a directory)"),
    ("ctrl+p", "command palette: every action, and sessions by title"),
    ("t", "switch between the dark and the light theme (remembered)"),
    ("?", "this help"),
    ("q", "quit"),
]

# Keys a screen's bindings don't show (navigation inside its widgets); the rest of each
# section is read from the screen's own BINDINGS, so the help can never fall behind.
NAVIGATION = {
    "sessions": [
        ("tab / shift+tab", "move between the session list, branches, graph and detail"),
        ("↑ ↓", "choose a session, a branch, or a turn in the graph"),
        ("enter", "in the graph: the branch of the turn under the cursor"),
        ("home end", "in the graph: first / last turn"),
    ],
    "topics": [("↑ ↓ enter", "in the rendered view: choose a block; enter edits there")],
    "search": [("enter", "open the selected hit in Topics")],
    "history": [("↑ ↓", "choose a commit")],
}


def screen_keys(screen: Screen) -> list[tuple[str, str]]:
    """The keys shown for a screen's own bindings, as (key, description)."""
    out = []
    for binding in screen.BINDINGS:
        if isinstance(binding, Binding) and binding.show and binding.description:
            key = binding.key_display or ", ".join(k.replace("_", " ") for k in binding.key.split(","))
            out.append((key.replace("left square bracket", "[").replace("right square bracket", "]"), binding.description))
    return out


STATE_HELP = {
    "written": "written to memory by this workspace",
    "pending": "a record the writer still owes",
    "elsewhere": "marked by another workspace: shown, but still owed here",
    "rewound": "the user rewound it; never written",
    "unrecorded": "tool call, runtime turn or summary: never a record",
    "head": "the branch the user is on",
}


def help_content(screens: list[tuple[str, str, Screen]]) -> Content:
    """Help for the app: the current screen's keys (the first of `screens`), the global
    keys, then every other screen's keys, then the graph legend."""
    sections = [(title, NAVIGATION.get(mode, []) + screen_keys(screen)) for mode, title, screen in screens]
    if sections:
        sections[0] = (f"{sections[0][0]} — this screen", sections[0][1])
    sections.insert(1, ("Everywhere", GLOBAL_KEYS))
    lines: list[Content] = [Content.styled("Scriptorium — branch-aware memory for AI agents", "bold $text-primary"),
                            Content("")]
    for section, keys in sections:
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

    def __init__(self, screens: list[tuple[str, str, Screen]]) -> None:
        super().__init__()
        self.screens = screens

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_content(self.screens))

    def action_dismiss(self) -> None:
        self.dismiss(None)
