"""A sentence naming a symbol is kept however long the call it names (issue 24: "a code or
log excerpt is kept only as a short sentence naming the path or symbol"); a long span that
is a statement, a record or a pipeline is still code. On the real spotter and codemie-code
sessions of the coding set (bench/data/coding/, sources and licences in its SOURCES.md)."""

from __future__ import annotations

from .conftest import imported_session, written_topics
from .test_offline_work_notes import CODING

SPOTTER_DOV = CODING / "claude-code__marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
CODEMIE_SYNC = CODING / "claude-code__codemie-ai_codemie-code__session-624a4a58.jsonl"


def _text(tmp_path, path) -> str:
    return "\n".join(b for bs in written_topics(*imported_session(tmp_path, "claude-code", path)).values() for b in bs)


def test_a_sentence_naming_a_call_with_its_arguments_is_kept(tmp_path):
    """"AshComputer auto-generates `handle_event("transcript_view_toggle_tool_result_group",
    params, socket)`." names the handler the framework makes (a 72-character span: one call)."""
    text = _text(tmp_path, SPOTTER_DOV)
    assert 'AshComputer auto-generates `handle_event("transcript_view_toggle_tool_result_group", params, socket)`.' \
        in text


def test_a_long_span_that_is_no_call_is_still_code(tmp_path):
    """"Updates: `processedRecordIds: [...previous, "msg-006", "msg-007", "msg-008"]`." is a
    record pasted, not a sentence about a symbol."""
    text = _text(tmp_path, CODEMIE_SYNC)
    assert "processedRecordIds: (...previous" not in text and "processedRecordIds: [...previous" not in text
    assert '"msg-006"' not in text
