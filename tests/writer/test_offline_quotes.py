"""The agent's markdown blockquotes are its prose (a plan or a spec it sets out for the
user to approve), a user's are someone else's words (a skill's text, a quoted answer):
issue 24. On the real spotter session whose plan for the code-quality beads the agent
wrote as blockquotes (bench/data/coding/, the coding set's held-out split) and on the
fixture excerpt of its first turns (tests/fixtures/transcripts/), where the user's
skill prompt quotes its scope."""

from __future__ import annotations

import re

from .conftest import HERE, imported_session, written_topics
from .test_offline_work_notes import CODING

SPOTTER_BEADS = CODING / "claude-code__marot_spotter__subagent.jsonl"
SLASH_FIRST = HERE / "claude-code__marot_spotter__slash-command-first.jsonl"


def test_what_the_agent_sets_out_in_a_blockquote_is_kept(tmp_path):
    store, sid = imported_session(tmp_path, "claude-code", SPOTTER_BEADS)
    text = "\n".join(b for bs in written_topics(store, sid).values() for b in bs)
    # "> Add a `mix quality` alias to `mix.exs` that runs all three quality tools in sequence."
    assert "`mix quality`" in text
    # "> - Dialyzer PLT building is slow on first run (2+ minutes) — just document, don't optimize"
    assert "Dialyzer PLT building is slow on first run (2+ minutes)" in text
    assert not re.search(r"(?:^|[.;:] )> ", text, re.M), text  # the marks go (an Elixir "~> 1.7" stays)


def test_a_blockquote_the_user_pasted_is_no_note_of_theirs(tmp_path):
    store, sid = imported_session(tmp_path, "claude-code", SLASH_FIRST)
    text = "\n".join(b for bs in written_topics(store, sid).values() for b in bs)
    # "> **SCOPE**: This skill ONLY creates beads (epic + tasks + dependencies via `bd create`)."
    assert "This skill ONLY creates beads" not in text
    assert "It does NOT write code" not in text
