"""One line under the Sessions screen while an import runs, and how it ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line
from scriptorium.core.wording import count

from .states import IMPORT_KINDS

if TYPE_CHECKING:
    from .model import ImportJob, ImportOutcome

BAR = 24


def running(job: ImportJob, done: int, total: int, label: str) -> Content:
    parts: list[str | tuple[str, str]] = [("⇣ ", "$text-accent bold"), (f"Importing {IMPORT_KINDS[job.kind]}", "bold")]
    if total > 0:
        filled = round(BAR * min(done, total) / total)
        parts += ["  ", ("█" * filled, "$meter-fill"), ("░" * (BAR - filled), "$faint-text"),
                  f" {done / 1e6:,.1f} of {total / 1e6:,.1f} MB"]
    if label:
        parts.append(("  " + sanitize_line(label)[:48], "$muted-text"))
    return Content.assemble(*parts)


def summary(outcome: ImportOutcome) -> str:
    if not outcome.ok:
        return sanitize_line(outcome.message)[:200]
    text = (f"{count(outcome.sessions, 'session')} ({outcome.created} new), {count(outcome.added, 'node')} added, "
            f"{outcome.unchanged:,} already there")
    if outcome.skipped:
        text += f", {count(outcome.skipped, 'record')} skipped"
    if outcome.errors:
        text += f"; {count(len(outcome.errors), 'error')}, first: {sanitize_line(outcome.errors[0])[:120]}"
    return text


def finished(outcome: ImportOutcome) -> Content:
    glyph, style = ("●", "$node-written") if outcome.ok and not outcome.errors else ("✗", "$text-error")
    return Content.assemble((glyph + " ", style + " bold"), (f"Import of {IMPORT_KINDS[outcome.job.kind]}: ", "bold"),
                            summary(outcome), (f"  ({outcome.elapsed:.1f} s)", "$muted-text"))


class ImportStatus(Static):
    DEFAULT_CSS = """
    ImportStatus { height: auto; padding: 0 1; background: $boost; display: none; }
    ImportStatus.-shown { display: block; }
    """

    def show(self, content: Content | None) -> None:
        self.set_class(content is not None, "-shown")
        self.update(content or "")
