"""What issue 24's hand-read samples still found marginal or useless in a working session's
blocks, on the coding set's real transcripts (bench/data/coding/, sources and licences in its
SOURCES.md): a list's title apart from its items, and git's or a tool's account of where the
work stands, and a finding that says something was found without what. Each test fails on the writer before marginal7's rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_REFACTOR = CODING / "pi__badlogic_pi-mono__before-compaction.jsonl"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER_GQC = CODING / "claude-code__marot_spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
SPOTTER_FUM = CODING / "claude-code__marot_spotter__8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
SPOTTER_4TE = CODING / "claude-code__marot_spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SPOTTER_A0Y = CODING / "claude-code__marot_spotter__fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
CODEMIE_CLEAR = CODING / "claude-code__codemie-ai_codemie-code__session-196820da.jsonl"


@pytest.fixture(scope="module")
def blocks(tmp_path_factory) -> dict[str, list[str]]:
    """Each transcript written alone: its blocks."""
    out = {}
    for name, kind, path in (("pi", "pi", PI_REFACTOR), ("pi-large", "pi", PI_LARGE), ("gqc", "claude-code", SPOTTER_GQC),
                             ("fum", "claude-code", SPOTTER_FUM), ("4te", "claude-code", SPOTTER_4TE),
                             ("a0y", "claude-code", SPOTTER_A0Y), ("clear", "claude-code", CODEMIE_CLEAR)):
        store, sid = imported_session(tmp_path_factory.mktemp(name), kind, path)
        out[name] = [b for bs in written_topics(store, sid).values() for b in bs]
    return out


def _text(blocks: list[str]) -> str:
    return "\n".join(blocks)


def test_a_lists_title_after_a_blank_line_is_still_its_title(blocks):
    """Claude Code: "**Epic spotter-a0y complete.** All 4 subtasks done and pushed:", a blank
    line, then "1. **spotter-a0y.1**: Lifecycle hooks + ActiveSessionRegistry (...)"; "**Completed
    tasks:**", a blank line, "1. **spotter-4te.1** - OTEL dependencies, ..."; "I've outlined a
    12-phase implementation plan covering:", a blank line, "- **Phase 1-2:** ...". Each item
    was a block of its own ("Spotter-a0y.1: Lifecycle hooks ...", "Phase 5-6: SSO sync plugin
    updates ..."), what it is an item of nowhere."""
    a0y = _text(blocks["a0y"])
    assert "All 4 subtasks done and pushed: spotter-a0y.1: Lifecycle hooks + ActiveSessionRegistry" in a0y, a0y
    assert not any(b.casefold().startswith("spotter-a0y.") for b in blocks["a0y"])
    te = _text(blocks["4te"])
    assert ("Completed tasks: spotter-4te.1 - OTEL dependencies, bootstrap, safe runtime defaults; spotter-4te.2 - W3C "
            "traceparent header propagation") in te, te
    assert not any(b.casefold().startswith(("spotter-4te.1 - ", "spotter-4te.4 - ")) for b in blocks["4te"])
    clear = _text(blocks["clear"])
    assert ("implementation plan covering: Phase 1-2: Session metadata structure changes and correlator enhancement; "
            "Phase 3-4: SessionOrchestrator") in clear, clear
    assert not any(b.startswith(("Phase 5-6:", "Phase 7-12:")) for b in blocks["clear"])


def test_a_bold_title_over_its_list_is_one_sentence_with_it(blocks):
    """pi: "**Option A (Simple - Prevent):** Block `!` commands while agent is streaming" over
    "- Add `isStreaming` check ...", "- Pros: ...", "- Cons: ..." was "Option A (Simple -
    Prevent): Block `!`." (the title alone, cut at the "!" inside the code span)."""
    pi = _text(blocks["pi"])
    assert "Block `!`." not in pi
    assert ("Option A (Simple - Prevent): Block `!` commands while agent is streaming: Add `isStreaming` check before "
            "allowing bash commands") in pi, pi
    assert "Pros: Simple, safe" in pi and "Pros is" not in pi, pi  # a label over words, not a name given a value


def test_git_status_and_test_counts_are_no_blocks(blocks):
    """Where the work stood then: "Done. On branch `refactor` now.", "`AgentSession` +
    `InteractiveMode` running clean." (pi), "Full suite: 65 tests + 14 doctests, 0 failures." and
    "6 new builder tests, 4 controller tests, 1 LiveView test." (Claude Code), "Spotter-fum.2 is
    now unblocked."; what the same turns found stays."""
    pi = _text(blocks["pi"])
    for status in ("On branch", "running clean"):
        assert status not in pi, status
    gqc = _text(blocks["gqc"])
    for status in ("65 tests + 14 doctests", "6 new builder tests", "4 controller tests"):
        assert status not in gqc, status
    assert "Default port is 1100." in gqc
    fum = _text(blocks["fum"])
    assert not re.search(r"is now unblocked", fum), fum
    # the finding, said once: "`load_session_messages` doesn't include `agent_id` in the map." repeated it
    assert "`agent_id` field on messages goes through the DB but `load_session_messages` doesn't include it" in fum
    assert "`load_session_messages` doesn't include `agent_id` in the map." not in fum


def test_a_finding_without_what_was_found_is_no_block(blocks):
    """pi: "The MarkdownTheme interface has more properties now." (which, the tool output said),
    "Good, only config.ts uses `__dirname`." (a search's result between two steps of it); Claude
    Code: "Spotter-fum.5 is a refinement discovered during testing." (the bead's content is in
    the next sentence), and "The issue is clear — <the issue>" keeps only the issue."""
    large = _text(blocks["pi-large"])
    assert "has more properties now" not in large
    assert "`Editor.borderColor` expects a function `(str: string) => string`." in large  # a finding with its content
    pi = _text(blocks["pi"])
    assert "only config.ts uses" not in pi.casefold()
    # "… is wrong. Let me fix it:": said as fixed
    assert "The config.ts is now in `utils/` so the relative path to package.json is wrong (fixed)." in pi
    fum = _text(blocks["fum"])
    assert "refinement discovered during testing" not in fum
    assert "The issue is clear" not in fum
    # "… I need to use shared sandbox mode. Let me fix the test setup.": the problem, fixed, and how
    assert "The LiveView process can't access the SQL sandbox from the test process (fixed: use shared sandbox mode)." \
        in fum
