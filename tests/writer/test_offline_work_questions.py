"""Questions and references a note cannot stand on (issue 24, "each as one self-contained
sentence"), on pi's real sessions (bench/data/coding/): the agent's offer of the next step
is no question an answer needs, "can't we …?" asks, "this file" after two files names
neither, and dates said once and resolved against the session's date."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer.pipeline import finish

from .conftest import chain, imported_session, topics_text, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
PI_REFACTOR = CODING / "pi__badlogic_pi-mono__before-compaction.jsonl"


def _text(topics: dict[str, list[str]]) -> str:
    return "\n".join(b for bs in topics.values() for b in bs)


@pytest.fixture(scope="module")
def pi_refactor(tmp_path_factory) -> str:
    store, sid = imported_session(tmp_path_factory.mktemp("pi"), "pi", PI_REFACTOR)
    return _text(written_topics(store, sid))


@pytest.fixture(scope="module")
def pi_large(tmp_path_factory) -> str:
    store, sid = imported_session(tmp_path_factory.mktemp("pi"), "pi", PI_LARGE)
    return _text(written_topics(store, sid))


def test_the_agents_offer_of_a_next_step_is_no_question_the_answer_needs(pi_refactor):
    """pi: "Ready for next task or want to merge to main?"; the user: "move
    @packages/coding-agent/src/utils/config.ts to src/": a request of its own."""
    assert "Ready for next task" not in pi_refactor
    assert "The user asked to move @packages/coding-agent/src/utils/config.ts to src/." in pi_refactor


def test_a_negated_question_asks(pi_refactor):
    """The user: "132 collapseChangelog = false, can't we get that from the settings manager
    in session?": a question, not a report that something can't."""
    assert "can't we get that from the settings manager" not in pi_refactor


def test_a_question_kept_with_its_answer_reads_in_the_third_person(pi_large):
    """pi: "Or do you want a patch release (0.7.29 -> 0.7.30)?"; the user: "minor, this is a
    big change"."""
    assert "do the user wants" not in pi_large
    assert "Or does the user want a patch release (0.7.29 -> 0.7.30)? Minor, this is a big change." in pi_large


def test_this_file_when_no_one_file_was_just_named_is_no_note(pi_large):
    """pi names `user-message-selector.ts`, `oauth-selector.ts` and others, the user answers
    naming none, pi reads a file (a tool call, no record) and says "I see - this file has its
    own `DynamicBorder` class …": which file is not said."""
    assert "This file has its own `DynamicBorder` class" not in pi_large
    assert "`tui-renderer.ts` still uses `chalk` extensively throughout." in pi_large  # one file named: named


def test_a_month_said_relatively_is_resolved_and_a_date_alone_makes_nothing_specific(tmp_path):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("friends", speakers={"user": "Caroline", "assistant": "Melanie"})
    turns = {"u1": "I ran a charity race for mental health last June. Here's a pic from when we met up last week!",
             "a1": "That's awesome! I started pottery classes with my kids last week."}
    chain(store, sid, list(turns), text=turns.__getitem__, start=1.6836e9)  # 9 May 2023
    assert finish(store, sid).outcome == "ok"
    text = _text(topics_text(store))
    assert "Caroline ran a charity race for mental health in June 2022." in text, text
    assert "last June" not in text
    assert "pic" not in text, text  # "Here's a pic from when we met up last week!": its date was all it said (LoCoMo 42)
    assert "Melanie started pottery classes with Melanie's kids the week before 9 May 2023." in text, text
    assert "On 9 May 2023, Caroline ran" not in text, text  # the note says its own date


def test_small_talk_is_no_question_an_answer_keeps(tmp_path):
    """LoCoMo: "Anything fun going on?" "Not much, I finished the adoption paperwork!": the
    answer says it all; "How are you doing with the adoption?" names its subject and stays."""
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("friends", speakers={"user": "Caroline", "assistant": "Melanie"})
    turns = {"u1": "Hey Mel! Anything fun going on?",
             "a1": "I finished the adoption paperwork!",
             "u2": "How are you doing with the adoption?",
             "a2": "Good, the agency calls Friday."}
    chain(store, sid, list(turns), text=turns.__getitem__, start=1.6836e9)
    assert finish(store, sid).outcome == "ok"
    text = _text(topics_text(store))
    assert "fun going on" not in text, text
    assert "Melanie finished the adoption paperwork" in text, text
    assert "How is Melanie doing with the adoption? The agency calls Friday." in text, text


def test_progress_said_as_we_and_a_value_without_its_name_are_no_notes(pi_refactor, pi_large):
    """pi: "We've completed WP1-WP10." (then WP1-WP13, WP1-WP14): progress of that session.
    The user: "should be 8ABeB7": the value of what, the turn before said."""
    assert "We've completed WP1" not in pi_refactor
    assert "Should be 8ABeB7" not in pi_large
    # the value with its name stays (once: "`mdListBullet`: `#8abeb7` (teal/accent from old pi)" says
    # "`mdListBullet` is `#8abeb7` (accent)" again, repeated.py)
    assert re.search(r"`mdListBullet`(?: is|:) `#8abeb7` \((?:teal/)?accent", pi_large), pi_large
