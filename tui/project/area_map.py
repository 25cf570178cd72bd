"""The SESSIONS.md area map: each area's entries, how many are injected, its attention
weight and its cap — the numbers behind the injected area-map line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line

from .injection_meters import label

if TYPE_CHECKING:
    from scriptorium.core.trilogy import TrilogyStatus


def area_map(status: TrilogyStatus) -> Content:
    lines = [Content.styled(sanitize_line(status.area_line), "$muted-text")]
    if not status.areas:
        return lines[0]
    lines.append(Content.styled(f"{label('area')}  entries  injected   weight   cap", "bold"))
    for area in status.areas:
        lines.append(Content.assemble(
            label(area.name), f"  {area.entries:>7}  ",
            (f"{area.injected:>8}", "$node-written" if area.injected else "$meter-over"),
            f"  {area.weight:>7.2f}  {area.cap:>4}"))
    return Content("\n").join(lines)


class AreaMap(Static):
    DEFAULT_CSS = """
    AreaMap { height: auto; padding: 0 1; background: $surface; }
    """

    def show(self, status: TrilogyStatus) -> None:
        self.update(area_map(status))
