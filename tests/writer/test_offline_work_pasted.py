"""A diff or a file the user pastes as the terminal showed it, line numbers in the gutter, is
the file's text, not what the user says (pasted.py), on the coding set's real transcripts
(bench/data/coding/, sources and licences in its SOURCES.md). The first test fails on the
writer before it; the second holds what it must leave."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER = CODING / "claude-code__marot_spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"


@pytest.fixture(scope="module")
def texts(tmp_path_factory) -> dict[str, str]:
    """Each transcript written alone: its blocks, one a line."""
    out = {}
    for name, kind, path in (("pi-large", "pi", PI_LARGE), ("spotter", "claude-code", SPOTTER)):
        store, sid = imported_session(tmp_path_factory.mktemp(name), kind, path)
        out[name] = "\n".join(b for bs in written_topics(store, sid).values() for b in bs)
    return out


def test_a_pasted_diff_with_its_line_numbers_is_no_note(texts):
    """pi: the user pastes the CHANGELOG's diff from pi's edit view ("+ 8 - **User Message Text
    Color**: …", " + 11 ### Fixed", " + 16 - **Invalid Theme Handling**: …") and says "remoev that",
    and pastes "+314 - Tips for creating harmonious themes" before "kill this.": the lines to remove
    were notes ("11 ### Fixed.", "9 - Tool Title & Output Colors: …", "314 - Tips …"), as was the
    line the terminal wrapped ("`invalidate()` method, ensuring theme changes apply …"). What the
    user says beside them, and what the agent wrote, stay."""
    large = texts["pi-large"]
    for pasted in ("### Fixed", "9 - Tool Title & Output Colors", "8 - User Message Text Color",
                   "16 - Invalid Theme Handling", "13 - Component Invalidation", "314 - Tips for creating",
                   "`invalidate()` method, ensuring theme changes apply correctly to all UI elements"):
        assert pasted not in large, pasted
    assert "Remoev that, we want to say that themes are not supported." in large, large
    assert "The theme selector calls `getAvailableThemes()` in its constructor" in large
    assert "Replaced `toolText` with `toolTitle` and `toolOutput` with descriptions" in large


def test_a_list_item_that_opens_with_a_count_is_no_line_number(texts):
    """Claude Code: the agent's summary item "- 3 tests covering N>0, N=0, and already-closed
    paths" opens with a number and a list's dash, but no number of the line beside it: kept."""
    assert "3 tests covering N>0, N=0, and already-closed paths" in texts["spotter"], texts["spotter"]
