"""A working session's block is a search hit read whole: it never grows past the block's
word cap (distil.MAX_BLOCK_WORDS). A note that would carry a block past the cap starts
the next block, so nothing is dropped for it (issue 24). On the real fixture transcripts
(tests/fixtures/transcripts/, too short to fill a block) and on the coding set's whole pi
session, whose theme blocks grew to 106 words before."""

from __future__ import annotations

import re

import pytest

from scriptorium.core.writer.distil import MAX_BLOCK_WORDS

from .conftest import CC_COMPACT, CODEX, HERE, imported_session, written_topics
from .test_offline_work_notes import PI_LARGE

_MARK = re.compile(r"\[\^[^\]]*\]")


def _sizes(topics: dict[str, list[str]]) -> list[tuple[int, str]]:
    return sorted((len(_MARK.sub("", b).split()), b) for rel, bs in topics.items() if rel != "core.md" for b in bs)


@pytest.fixture(scope="module")
def pi_large(tmp_path_factory) -> dict[str, list[str]]:
    store, sid = imported_session(tmp_path_factory.mktemp("pi"), "pi", PI_LARGE)
    return written_topics(store, sid)


@pytest.mark.parametrize(("kind", "path"), [("pi", HERE / "pi__badlogic_pi-mono__before-compaction.shortened.jsonl"),
                                            ("codex", CODEX), ("claude-code", CC_COMPACT)])
def test_no_block_of_a_fixture_transcript_is_longer_than_the_cap(tmp_path, kind, path):
    store, sid = imported_session(tmp_path, kind, path)
    sizes = _sizes(written_topics(store, sid))
    assert sizes and sizes[-1][0] <= MAX_BLOCK_WORDS, sizes[-1]


def test_a_long_session_fills_blocks_up_to_the_cap_and_never_past_it(pi_large):
    sizes = _sizes(pi_large)
    assert sizes[-1][0] <= MAX_BLOCK_WORDS, sizes[-1]
    assert sum(1 for n, _ in sizes if n > MAX_BLOCK_WORDS * 3 // 4) >= 10  # blocks still fill up: no cap on notes


def test_a_note_that_does_not_fit_is_kept_whole_in_the_next_block(pi_large):
    """The dark theme's colours, one gathered sentence of 30-odd words: kept whole and
    in a block of its own topic when the theme block before it was full."""
    text = "\n".join(b for bs in pi_large.values() for b in bs)
    assert "Updated the dark theme with all the user's specified colors: `accent` is `#8abeb7` (teal/cyan)" in text
