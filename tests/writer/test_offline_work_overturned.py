"""A statement the session later overturned is not kept: through `finish` on the coding set's real
transcripts (bench/data/coding/, sources and licences in its SOURCES.md; the blind split's, read by
hand once on 2026-12-04, see bench/RESULTS.md "The blind split read by hand"). Fails on the writer
before overturned.py."""

from __future__ import annotations

from pathlib import Path

from .test_offline_real import _imported, _written

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
CODEX_SPEC = CODING / "claude-code__codemie-ai_codemie-code__session-3fe1b6bc.jsonl"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"


def _text(tmp_path: Path, kind: str, path: Path) -> tuple[str, dict[str, list[str]]]:
    store, sid = _imported(tmp_path, kind, path)
    topics = _written(store, sid)
    return "\n".join(b for bs in topics.values() for b in bs), topics


def test_a_finding_the_agent_marked_as_corrected_and_a_todo_written_later_are_not_kept(tmp_path):
    """The Codex tech spec: the agent first finds "All `token_count` events across all sessions have
    `"info": null` - meaning Codex currently does not store token usage data …", then a session with
    tokens, and says "**CORRECTED UNDERSTANDING!** Token data IS available - but it's
    provider-dependent". Its role-played reviewer says "Spec has full `parseSessionFile` but
    `parseIncrementalMetrics` is TODO."; the user: "TODO is not acceptable, implementation must be
    full."; the next turn: "parseIncrementalMetrics() → 156 lines, fully implemented", "No TODOs
    remaining."."""
    text, topics = _text(tmp_path, "claude-code", CODEX_SPEC)
    assert "does not store token usage data" not in text
    assert "exists but is not populated" not in text
    assert "HAS token data" in text  # the correction stands
    assert "`parseIncrementalMetrics` is TODO" not in text
    assert "Complete `parseIncrementalMetrics` logic" not in text  # the review's to-do, done
    assert "Required changes before implementation" not in text  # "All blocking issues resolved:"
    assert "`parseIncrementalMetrics()` - 156 lines, delta-based updates." in text
    assert any("TODO is not acceptable, implementation must be full." in b for b in topics["core.md"])


def test_never_used_then_used_and_a_file_made_then_deleted_are_not_kept(tmp_path):
    """pi: "`userMessageText` is defined in the theme but never used." then "Fixed! Now
    `userMessageText` is actually used - it sets the default text color for user messages." (a step:
    no note of its own, so it stands in the claim's place); "`toolText` is never used!" then "Now
    `toolText` is actually used for the tool headings"; "I've created `~/.pi/agent/themes/custom.json`
    …" then "The `custom.json` theme has been deleted."."""
    text, _ = _text(tmp_path, "pi", PI_LARGE)
    assert "never used" not in text
    assert "`userMessageText` is used - it sets the default text color for user messages." in text
    assert "created `~/.pi/agent/themes/custom.json`" not in text
    assert "copied the dark theme to `~/.pi/agent/themes/test.json`" not in text  # "… has been deleted"
    assert "Pi has created `~/.pi/agent/themes/custom-light.json`" in text  # never deleted
    assert "The `custom.json` theme has been deleted." in text
