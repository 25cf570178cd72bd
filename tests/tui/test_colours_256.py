"""A 256-colour terminal (TERM=xterm-256color, no COLORTERM): the selected row stays readable.

Rich sends each truecolor value to the 256-colour palette; the themes' warm greys went to
the cube's olive, so the selected session was grey text on olive (issue 29). Read here as
the terminal gets it: the app's own console downgrades every segment of the rendered row."""

from __future__ import annotations

from pathlib import Path

import pytest
import textual.constants
from rich.color import ColorSystem

from scriptorium.themes import DARK_NAME, LIGHT_NAME, contrast
from scriptorium.tui.sessions.branch_list import BranchList
from scriptorium.tui.sessions.session_list import SessionList

pytestmark = pytest.mark.anyio

RGB = tuple[int, int, int]


def _shown(color) -> RGB:
    triplet = color.downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return triplet.red, triplet.green, triplet.blue


def _row(app, widget, y: int) -> list[tuple[str, RGB, RGB]]:
    """(text, foreground, background) of each segment of screen row `y` inside `widget`,
    in the colours a 256-colour terminal shows."""
    region = widget.content_region
    strip = app.screen._compositor.render_strips()[y]
    cells, x = [], 0
    for segment in strip:
        end = x + len(segment.text)
        if end > region.x and x < region.right and segment.text.strip() and segment.style is not None:
            style = segment.style
            cells.append((segment.text, _shown(style.color), _shown(style.bgcolor)))
        x = end
    return cells


@pytest.mark.parametrize("theme", [DARK_NAME, LIGHT_NAME])
async def test_the_selected_rows_read_in_256_colours(make_app, settle, demo_state: Path, monkeypatch,
                                                     theme: str) -> None:
    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "256")
    app = make_app(demo_state)
    async with app.run_test(size=(160, 48)) as pilot:
        app.theme = theme
        await settle(pilot)
        assert app.console.color_system == "256"
        sessions = app.screen.query_one(SessionList)
        sessions.focus()
        await settle(pilot)
        rows = {
            "selected session": _row(app, sessions, sessions.content_region.y + 1 + sessions.cursor_row),
            "highlighted branch": _row(app, app.screen.query_one(BranchList),
                                       app.screen.query_one(BranchList).content_region.y),
        }
        for what, cells in rows.items():
            assert cells, what
            backgrounds = {background for _, _, background in cells}
            assert len(backgrounds) == 1, (what, backgrounds)
            background = backgrounds.pop()
            if theme == DARK_NAME:  # the dark cursor is a grey: no olive, no hue it does not have
                assert len(set(background)) == 1, (what, background)
            worst = min(contrast(foreground, background) for _, foreground, _ in cells)
            best = max(contrast(foreground, background) for _, foreground, _ in cells)
            assert worst >= 2.8 and best >= 7, (what, theme, worst, best, cells)
