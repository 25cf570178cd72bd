"""What a state directory with no sessions shows: how to get some."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line


def instructions(state_dir: str) -> Content:
    return Content.assemble(
        ("No sessions yet\n\n", "bold $text-primary"),
        "This state directory holds no conversation to remember:\n",
        (f"  {sanitize_line(state_dir)}\n\n", "$muted-text"),
        ("Import an agent's transcripts\n", "bold"),
        "  press ", ("i", "bold $text-accent"), " here, or run\n",
        ("  scriptorium import claude-code", "$text-accent"), "   (also: pi, codex)\n\n",
        ("Or start a session by hand\n", "bold"),
        ("  scriptorium session new --title \"My project\"\n", "$text-accent"),
        ("  scriptorium session append SID --role user --text \"…\"\n\n", "$text-accent"),
        ("Or look around a ready-made state\n", "bold"),
        ("  scriptorium demo", "$text-accent"),
    )


class EmptyState(Static):
    DEFAULT_CSS = """
    EmptyState { width: auto; height: auto; padding: 1 3; border: round $panel; background: $surface; }
    """

    def __init__(self, state_dir: str, *, id: str | None = None) -> None:
        super().__init__(instructions(state_dir), id=id)
