"""The core's token meter: the rendered core and what agents get at session start against the
budget, and the canonical size."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

BAR = 40


def _bar(used: int, budget: int, fill: str) -> list[tuple[str, str]]:
    filled = min(BAR, round(BAR * used / budget)) if budget else 0
    return [("█" * filled, fill), ("░" * (BAR - filled), "$faint-text")]


def meter(rendered: int, canonical: int, budget: int, injected: int | None = None) -> Content:
    """`injected`: the tokens the session-start hook sends (None: injection is off)."""
    over = canonical > budget
    if injected is None:
        sent = Content.assemble(("injected   ", "bold"), ("off: agents get nothing at session start", "$muted-text"))
    else:
        sent = Content.assemble(("injected   ", "bold"),
                                *_bar(injected, budget, "$meter-over" if injected > budget else "$meter-fill"),
                                f"  {injected:,} / {budget:,} tokens")
    lines = [
        Content.assemble(("rendered   ", "bold"), *_bar(rendered, budget, "$meter-fill"),
                         f"  {rendered:,} / {budget:,} tokens"),
        sent,
        Content.assemble(("canonical  ", "bold"), *_bar(canonical, budget, "$meter-over" if over else "$meter-fill"),
                         (" ▶ " if over else "   ", "$meter-over"), f"{canonical:,} tokens",
                         (f"  ({canonical / budget:.1f}× the budget: the rest stays in topics/core.md)"
                          if over and budget else "", "$muted-text")),
    ]
    return Content("\n").join(lines)


class TokenMeter(Static):
    DEFAULT_CSS = """
    TokenMeter { height: auto; padding: 0 1; }
    """

    def show(self, rendered: int, canonical: int, budget: int, injected: int | None = None) -> None:
        self.update(meter(rendered, canonical, budget, injected))
