"""A statement the session later overturned is not kept, and what nobody measured (grades, praise,
forecasts, offers, git's state of the moment) is no fact: through `finish` on the coding set's real
transcripts (bench/data/coding/, sources and licences in its SOURCES.md; the blind split's, read by
hand once on 2026-12-04, see bench/RESULTS.md "The blind split read by hand"). Fails on the writer
before overturned.py and hype.py."""

from __future__ import annotations

from pathlib import Path

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
CODEX_SPEC = CODING / "claude-code__codemie-ai_codemie-code__session-3fe1b6bc.jsonl"
EXPLORED = CODING / "claude-code__codemie-ai_codemie-code__incremental-simple-turn-2.jsonl"
OVERVIEW = CODING / "claude-code__codemie-ai_codemie-code__session-9eda1058.jsonl"
GITIGNORE = CODING / "claude-code__DRMacIver_claude-reliability__coverage-test-fix.jsonl"
PORT = CODING / "claude-code__DRMacIver_claude-reliability__python-to-rust-port.jsonl"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"


def _text(tmp_path: Path, kind: str, path: Path) -> tuple[str, dict[str, list[str]]]:
    store, sid = imported_session(tmp_path, kind, path)
    topics = written_topics(store, sid)
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
    assert "`parseIncrementalMetrics()` - 156 lines, delta-based updates" in text
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


def test_grades_forecasts_and_role_play_are_no_facts_but_what_was_measured_is(tmp_path):
    """The same spec's "party mode": personas grade and forecast ("Implementation Confidence: 100%",
    "VERDICT: SPEC IS 95% READY", "Reduction: 30x fewer file reads", "Real-time metrics: Sub-100ms
    response time", "Spec is copy-paste ready. …"); a plan's figure said as an estimate, a target, the
    next steps stay."""
    text, _ = _text(tmp_path, "claude-code", CODEX_SPEC)
    for said in ("Confidence", "READY", "30x", "Sub-100ms", "copy-paste ready", "no guesswork", "excellent"):
        assert said not in text, said
    assert "Estimated Implementation Time: 3-4 hours." in text
    assert "Quality gate: 92% coverage target." in text
    assert "Copy code from spec to `src/agents/plugins/codex.metrics.ts`" in text
    assert "Historical queries supported via `dateFilter=null`." in text


def test_praise_offers_git_log_and_git_state_are_no_facts(tmp_path):
    """"The exploration reveals a mature, well-architected codebase …", "The codebase shows exceptional
    maturity …", the agent's "I can explore: Built-in LangGraph agent …", a `git log` line "3243610 -
    Expand conversation sync tests", "The `.gitignore` was already committed (a hook or linter committed
    it)."; the port's measured "100% line coverage" stays."""
    overview, _ = _text(tmp_path / "a", "claude-code", OVERVIEW)
    assert "well-architected" not in overview and "exceptional maturity" not in overview
    assert "`ConversationPayloadWriter.ts` - Debug JSONL logger" in overview  # the facts after the praise
    explored, _ = _text(tmp_path / "b", "claude-code", EXPLORED)
    assert "can explore" not in explored
    assert "3243610" not in explored and "d901eb3" not in explored
    assert "thoroughly explored" not in explored
    git, _ = _text(tmp_path / "c", "claude-code", GITIGNORE)
    assert "already committed" not in git
    port, _ = _text(tmp_path / "d", "claude-code", PORT)
    assert "100% line coverage" in port
