"""Redaction in the app: a session secrets were redacted from is flagged `*` in the list, and
its turn shows the placeholder in the redacted style — never the secret."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from textual.widgets import Static

from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.common.safe_text import REDACTED_STYLE, untrusted_content
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.detail_pane import DetailPane
from scriptorium.tui.sessions.session_list import SessionList

from .helpers import screen_lines, terminal_output

pytestmark = pytest.mark.anyio


def test_placeholders_get_the_redacted_style_and_nothing_else_does() -> None:
    content = untrusted_content("key [REDACTED:github-token:0a1b2c3d] and [private] but [not this]")
    styled = [content.plain[s.start:s.end] for s in content.spans if str(s.style) == REDACTED_STYLE]
    assert styled == ["[REDACTED:github-token:0a1b2c3d]", "[private]"]


async def test_a_redacted_session_is_flagged_and_its_turn_shows_placeholders(make_app, settle, tmp_path: Path) -> None:
    rng = random.Random(3)
    kind, secret = "github-token", "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    text = f"GH_TOKEN={secret}"
    state = tmp_path / "state"
    store = SessionStore(state)
    leaky = store.create_session(title="deploy")
    store.append(leaky, "user", f"push with {text}")
    store.append(leaky, "assistant", "done")
    plain = store.create_session(title="plain")
    store.append(plain, "user", "nothing secret here")
    app = make_app(state)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        flags = {row_key.value: str(listing.get_cell(row_key, "flag")) for row_key in listing.rows}
        assert flags == {leaky: "*", plain: " "}
        listing.move_cursor(row=listing.get_row_index(leaky))
        await settle(pilot)
        graph = app.screen.query_one(BranchGraph)
        graph.focus()
        await pilot.press("up")  # the head is the assistant's turn; the user's is above it
        await settle(pilot)
        shown = app.screen.query_one(DetailPane).plain
        assert f"[REDACTED:{kind}:" in shown
        assert secret not in terminal_output(app)
        body = app.screen.query_one("#detail-body", Static).content
        assert any(str(s.style) == REDACTED_STYLE for s in body.spans)
