"""What the offline writer keeps is never wrong or broken (issue 24: "When a later turn corrects
or disproves an earlier statement, the later one stands and the earlier is not kept as fact";
"Every block is at least one whole sentence"), on the coding set's real transcripts: a
sentence cut where the turn stopped, a problem said as fixed when it was fixed (in the next
turn too) and not when what the turn fixed was something else, a thing the agent found
missing that the user says the project has."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep

from .conftest import imported_session, topics_text, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER_SUBAGENT = CODING / "claude-code__marot_spotter__subagent.jsonl"


@pytest.fixture(scope="module")
def pi_text(tmp_path_factory) -> str:
    store, sid = imported_session(tmp_path_factory.mktemp("pi"), "pi", PI_LARGE)
    return "\n".join(b for bs in written_topics(store, sid).values() for b in bs)


def _all_written(tmp_path: Path, kind: str, path: Path) -> str:
    """Every session of a transcript (a sub-agent's its own) written, then one sleep."""
    store = SessionStore(tmp_path / "state")
    for sid in import_sources(store, kind, [path]).to_json()["session_ids"]:
        assert finish(store, sid).outcome == "ok"
    sleep(store.state_dir)
    return "\n".join(b for bs in topics_text(store).values() for b in bs)


def test_a_sentence_cut_where_the_turn_stopped_is_no_note(pi_text, tmp_path):
    """pi's summary was interrupted mid-list: "- Adjusted dark theme colors:" / "  - Gray levels:
    `#303030` (darkGray)," and the turn ends. That was written "Gray levels: `#303030`
    (darkGray),." — no whole sentence. The spotter sub-agent's plan quotes a code block inside
    a blockquote; its line `test: ["ash.setup --quiet", "test"],` was written 'Test: [...],.'."""
    assert ",." not in pi_text
    assert "Gray levels: `#303030` (darkGray)" not in pi_text
    # the sentence before it in the same summary stays
    assert "Changed `gray` (used for `muted`) from `#6c6c6c` (RGB 108,108,108) to `#808080`" in pi_text
    text = _all_written(tmp_path, "claude-code", SPOTTER_SUBAGENT)
    assert ",." not in text
    assert '"ash.setup --quiet"' not in text
    # the same plan's `defp deps` block, quoted: '{:credo, "~> 1.7", only: [:dev, :test], runtime: false}' was
    # written "Credo, "~> 1.7", only: (:dev, :test), runtime: false}."; the quote's prose stays
    assert "runtime: false" not in text
    assert "Runs in order: credo → dialyzer → deps.audit." in text


SPOTTER = {name: CODING / f"claude-code__marot_spotter__{name}.jsonl"
           for name in ("8463c716-a2ea-4c14-9efa-87158ebd9f20", "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
                        "fa812bfe-b295-4cca-9c2f-fdf01028cb46")}


@pytest.fixture(scope="module")
def spotter_text(tmp_path_factory) -> str:
    return "\n".join(_all_written(tmp_path_factory.mktemp(f"spotter{i}"), "claude-code", path)
                     for i, path in enumerate(SPOTTER.values()))


def test_what_the_fixing_step_did_not_fix_is_not_said_as_fixed(spotter_text):
    """"The subagent fixture doesn't actually contain any `agent-xxx` patterns or `agent_id` fields.
    … Let me fix the test to reflect reality.": the test was fixed, the fixture stays as it is.
    "So `current_span_ctx()` returns a span context directly (not wrapped in `{:ok, ...}`). That's
    the bug - my code was treating it as returning `{:ok, span_ctx}` … Let me fix
    `get_current_trace_id()`.": the library's fact is how it is, the bug is what was fixed."""
    assert "The subagent fixture doesn't contain any `agent-xxx` patterns or `agent_id` fields." in spotter_text
    assert "reflect reality" not in spotter_text
    assert "`current_span_ctx()` returns a span context directly (not wrapped in `{:ok, ...}`)." in spotter_text
    assert "when it returns the span context struct directly (fixed)." in spotter_text
    # "Let me fix the test helper to include UUIDs.": the failing test and the issue named were fixed, the
    # code's behaviour the turn found on the way ("The existing `create_messages!` skips …") was not
    assert "The existing `create_messages!` skips if count > 0, but `upsert_messages!` always inserts." in spotter_text
    assert "(nil in the test JSONL) (fixed to include UUIDs)." in spotter_text
    assert "generates new ones each time (fixed to include UUIDs)." in spotter_text
    # "The issue is clear — the LiveView process can't access … Let me fix the test setup.": about the test
    assert "from the test process (fixed: use shared sandbox mode)." in spotter_text


def test_a_problem_the_next_turn_says_again_and_fixes_is_said_as_fixed(pi_text):
    """pi: "The issue is `color: "gray"` - should be a function. Let me check the DefaultTextStyle
    interface:", and its next turn "The color should be a function! Let me fix it:". The first
    was kept as the code's state."""
    assert 'The issue is `color: "gray"` - should be a function (fixed).' in pi_text
    # the next turn names `TruncatedText` again ("But `TruncatedText` doesn't do this. Let me fix it:")
    assert "the result could exceed width (fixed)." in pi_text
    # "The signature changed - it now takes `bgFn` … instead of an RGB object." then, next turn, "Let me fix
    # the test by passing a background function": the signature is how it is
    assert "instead of an RGB object (fixed" not in pi_text


@pytest.fixture(scope="module")
def graph_monitor_text(tmp_path_factory) -> str:
    return _all_written(tmp_path_factory.mktemp("gm"), "claude-code",
                        CODING / "claude-code__kiliman_claude-transcript__test2.jsonl")


def test_a_guess_the_next_turn_answers_is_not_kept(graph_monitor_text, spotter_text):
    """graph-monitor: "The issue might be with the sqlite3 library not being compatible with ESM. Let me
    check the database initialization:", the next turn "The issue is on line 42. `sqlite3.verbose()` is
    being called incorrectly. Let me fix this:" — the guess was kept beside the finding (and is no problem
    fixed). spotter: "The code looks correct - it should return `{:ok, ...}` on line 100.", before the
    finding "That's the bug - my code was treating it as returning `{:ok, span_ctx}` …"."""
    assert "`sqlite3.verbose()` is being called incorrectly (fixed)." in graph_monitor_text
    assert "not being compatible with ESM" not in graph_monitor_text
    assert "The code looks correct" not in spotter_text
    assert "`current_span_ctx()` returns a `#span_ctx{}` record (not `{:ok, ...}`)" in spotter_text
