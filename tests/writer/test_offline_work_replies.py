"""The user's reply to what the agent just said ("No, we want to put it in …") sits in the block
of what it answers, not under a word it shares with other notes (distil.group), on the coding
set's real transcripts (bench/data/coding/, sources and licences in its SOURCES.md). Fails on
the writer before it."""

from __future__ import annotations

from pathlib import Path

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_BEFORE_COMPACTION = CODING / "pi__badlogic_pi-mono__before-compaction.jsonl"


def test_a_reply_that_corrects_the_agents_proposal_is_filed_with_the_proposal(tmp_path):
    """pi: the agent proposes how unsent bash results are shown ("Better UX would be: … On
    `agent_end`, move it to the chat …", "Or we could make it simpler - don't show bash output in
    chat until `agent_end`."); the user answers "no, we want to put it in pendingMessageContainer,
    and on next user submit, we move to chat and add to context". Grouped by the word "move", the
    answer sat in "Moved files to organized structure: `core/`, `utils/`, … The user asked to move
    @packages/coding-agent/src/utils/config.ts to src/. No, we want …": a block about the file
    reorganisation, so search for where bash results are shown found the proposal, not the
    decision."""
    store, sid = imported_session(tmp_path, "pi", PI_BEFORE_COMPACTION)
    blocks = [b for bs in written_topics(store, sid).values() for b in bs]
    (answer,) = [b for b in blocks if "No, we want to put it in pendingMessageContainer" in b]
    assert "don't show bash output in chat until `agent_end`" in answer, answer
    assert "Moved files to organized structure" not in answer, answer
    assert any("Moved files to organized structure" in b for b in blocks)
