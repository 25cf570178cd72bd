"""The state of the sleep run: idle, the model's live progress (phase, rounds, tool
calls, elapsed), cancelling, or how it ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line

if TYPE_CHECKING:
    from scriptorium.core.writer import Progress

PHASES = {
    "organize": "the organizer is reading and rewriting topics",
    "organize-repair": "the organizer is repairing a rejected edit",
    "validate": "validating the edit",
    "install": "validating and installing",
}


def elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class SleepProgressView(Static):
    DEFAULT_CSS = """
    SleepProgressView { height: auto; padding: 0 1; }
    """

    def idle(self, note: str = "") -> None:
        self.update(Content.assemble(
            (note or "Nothing running.", "$muted-text"), "   ", ("p", "bold $text-accent"),
            " preview (installs nothing)   ", ("s", "bold $text-accent"), " sleep now (installs)"))

    def running(self, what: str, progress: Progress | None, seconds: float, cancelling: bool) -> None:
        parts: list[tuple[str, str] | str] = [("● ", "$node-pending"), (what, "bold")]
        if cancelling:
            parts += [" · ", ("cancelling: the model's current call finishes first", "$text-warning")]
        elif progress is not None:
            parts += [" · ", PHASES.get(progress.phase, sanitize_line(progress.phase))]
            if progress.rounds:
                parts += [" · ", (f"round {progress.rounds}", "bold")]
            parts += [" · ", (f"{progress.tool_calls} tool call{'s' if progress.tool_calls != 1 else ''}", "bold")]
            if progress.tool:
                parts += [("  last: ", "$muted-text"), sanitize_line(progress.tool)]
        else:
            parts += [" · ", ("starting", "$muted-text")]
        parts += [" · ", (elapsed(seconds), "bold"), (" elapsed", "$muted-text")]
        if not cancelling:
            parts += ["   ", ("c", "bold $text-accent"), " cancels"]
        self.update(Content.assemble(*parts))

    def ended(self, mark: str, style: str, text: str, seconds: float | None) -> None:
        took = [("  after ", "$muted-text"), elapsed(seconds)] if seconds is not None else []
        self.update(Content.assemble((mark + " ", style), (sanitize_line(text), "bold"), *took))
