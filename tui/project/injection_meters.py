"""The trilogy's accounting line as meters: per file and per PROJECT.md section, the bytes
injected at session start against the bytes on disk, and the whole against the budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line

if TYPE_CHECKING:
    from scriptorium.core.trilogy import TrilogyStatus

BAR = 20
LABEL = 20  # cells


def label(text: str, indent: int = 0) -> str:
    """`text` (untrusted: a section name) cut and padded to the label column, in cells."""
    text = sanitize_line(text)
    room = LABEL - indent - 1  # one cell keeps the label off the bar
    if cell_len(text) > room:
        text = set_cell_size(text, room - 1) + "…"
    return " " * indent + set_cell_size(text, room) + " "


def bar(part: int, whole: int) -> list[tuple[str, str]]:
    filled = BAR if whole <= 0 or part >= whole else min(BAR - 1, round(BAR * part / whole))
    return [("█" * filled, "$meter-fill"), ("░" * (BAR - filled), "$faint-text")]


def row(name: str, injected: int, actual: int, note: str = "", *, indent: int = 0, warn: str = "") -> Content:
    return Content.assemble(
        (label(name, indent), "bold" if not indent else ""), *bar(injected, actual),
        f" {injected:>7,} / {actual:<7,} B", (f"  {note}" if note else "", "$muted-text"),
        (f"  {warn}" if warn else "", "$meter-over bold"))


def meters(status: TrilogyStatus) -> Content:
    lines = [
        Content.styled(sanitize_line(status.accounting_line), "$muted-text"),
        Content.assemble((label("injected"), "bold $text-accent"), *bar(status.injected_bytes, status.budget),
                         f" {status.injected_bytes:>7,} / {status.budget:<7,} B", ("  budget", "$muted-text")),
    ]
    for account in status.files:
        if account.entries is not None:
            note = f"{account.entries_injected}/{account.entries} entries"
        else:
            note = ""
        lines.append(row(account.name, account.injected_bytes, account.actual_bytes, note,
                         warn="" if account.exists else "missing"))
        if account.name == "PROJECT.md":
            for section in status.sections:
                lines.append(row("§ " + section.name, section.injected_bytes, section.actual_bytes,
                                 f"cap {section.cap_bytes:,}", indent=2, warn="cut" if section.cut else ""))
    return Content("\n").join(lines)


class InjectionMeters(Static):
    DEFAULT_CSS = """
    InjectionMeters { height: auto; padding: 0 1; background: $surface; }
    """

    def show(self, status: TrilogyStatus) -> None:
        self.update(meters(status))
