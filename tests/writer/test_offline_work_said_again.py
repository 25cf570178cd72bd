"""A working session's note another note, not much longer, says nearly whole is kept once
(repeated.py's second pass), on the coding set's real transcripts (bench/data/coding/,
sources and licences in its SOURCES.md). The first two tests fail on the writer before it;
the last holds what it must leave."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
GRAPH_MONITOR = CODING / "claude-code__kiliman_claude-transcript__test2.jsonl"


@pytest.fixture(scope="module")
def texts(tmp_path_factory) -> dict[str, str]:
    """Each transcript written alone: its blocks, one a line."""
    out = {}
    for name, kind, path in (("pi-large", "pi", PI_LARGE), ("graph", "claude-code", GRAPH_MONITOR)):
        store, sid = imported_session(tmp_path_factory.mktemp(name), kind, path)
        out[name] = "\n".join(b for bs in written_topics(store, sid).values() for b in bs)
    return out


def test_what_each_file_was_found_to_do_is_kept_in_the_summary_that_lists_them(texts):
    """Claude Code: "`scheduler.ts` also receives the logger in its constructor, so no changes
    needed." (and `rollup.ts`, `chartGenerator.ts`, `executor.ts` each in a turn of its own) before
    the summary's "Files that didn't need changes: `executor.ts`, `scheduler.ts`, `rollup.ts`,
    `chartGenerator.ts`: Receives logger as a constructor parameter, doesn't import it directly."
    (fresh7's "a fact said three times")."""
    graph = texts["graph"]
    assert ("`executor.ts`, `scheduler.ts`, `rollup.ts`, `chartGenerator.ts`: Receives logger as a constructor "
            "parameter, doesn't import it directly") in graph, graph
    for said in ("`scheduler.ts` also receives the logger", "`rollup.ts` also receives the logger",
                 "`executor.ts` doesn't import the logger directly"):
        assert said not in graph, said


def test_two_values_said_again_with_where_they_come_from_are_kept_once(texts):
    """pi: "`mdListBullet` is `#8abeb7` (accent); `mdCode` is `#8abeb7` (accent)." beside "`mdLink`:
    `#81a2be` (blue from old pi); `mdListBullet`: `#8abeb7` (teal/accent from old pi); `mdCode` is
    `#8abeb7` (accent).": the fuller stays."""
    large = texts["pi-large"]
    assert "`mdListBullet`: `#8abeb7` (teal/accent from old pi); `mdCode` is `#8abeb7` (accent)" in large, large
    assert "`mdListBullet` is `#8abeb7` (accent); `mdCode`" not in large


def test_another_value_or_a_denial_is_not_the_same_said_again(texts):
    """pi: 'Use `/theme` to select "custom-light" and edit away!' beside 'Use `/theme` to select
    "custom-dark" and edit away with live reload!' (a quoted value the other lacks), and "When the
    theme changes and `invalidate()` is called, the cache gets cleared." beside "When `invalidate()`
    is called, it clears the cached output, but the theme itself doesn't change." (one denies):
    all stay."""
    large = texts["pi-large"]
    assert 'select "custom-light" and edit away' in large, large
    assert 'select "custom-dark" and edit away with live reload' in large
    assert "When the theme changes and `invalidate()` is called, the cache gets cleared." in large
    assert "but the theme itself doesn't change" in large
