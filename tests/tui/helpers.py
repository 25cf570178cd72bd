"""Small helpers for driving the app in tests."""

from __future__ import annotations

from scriptorium.tui.sessions.screen import SessionsScreen
from scriptorium.tui.topics.screen import TopicsScreen
from scriptorium.tui.sessions.session_list import SessionList


async def open_session(pilot, settle, session_id: str) -> SessionsScreen:
    """Move the session list's cursor to `session_id` with the keyboard and wait for its graph."""
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    session_list = screen.query_one(SessionList)
    session_list.focus()
    steps = session_list.get_row_index(session_id) - session_list.cursor_row
    await pilot.press(*(["down" if steps > 0 else "up"] * abs(steps)))
    await settle(pilot)
    assert screen.graph is not None and screen.graph.session_id == session_id
    return screen


async def open_topics(pilot, settle, path: str | None = None) -> TopicsScreen:
    await settle(pilot)
    await pilot.app.switch_mode("topics")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TopicsScreen)
    if path is not None and screen.path != path:
        screen.open_topic(path)
        await settle(pilot)
    assert screen.path == (path or "core.md")
    return screen


def screen_lines(app) -> list[str]:
    """The characters on screen, one string per terminal row."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


def terminal_output(app) -> str:
    """What a full repaint would write to the terminal, escape sequences included."""
    return app.screen._compositor.render_full_update().render_segments(app.console)
