"""The core holds the user's standing rules, not one task's definition of done (issue 24,
item 6), a decision the user states beside a rule in one turn is kept too, and a session
whose working directory says nothing of its project (`/Users/user/repo`, a mkdtemp
folder) files under the project its turns name (item 5).

On the coding set's blind split (bench/data/coding/, sources and licences in its
SOURCES.md; read by hand once, bench/RESULTS.md "The blind split read by hand"): the core
got "Don't stop until all functions are ported, tests pass, and you have 100% coverage."
(the port's definition of done), the user's design decision after a rule in the same turn
was in no block, `repo.md` (cwd `/Users/user/repo`) held the project `codemie-code.md`
held ("the codemie-code repository"), and the Python-to-Rust port was filed under a word
of its task, `coverage.md`."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep
from scriptorium.core.writer.standing import is_rule

from .conftest import topics_text

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
SPEC = CODING / "claude-code__codemie-ai_codemie-code__session-3fe1b6bc.jsonl"  # cwd /Users/user/repo
EXPLORE = CODING / "claude-code__codemie-ai_codemie-code__session-9eda1058.jsonl"  # cwd /Users/user/repo
OVERVIEW = CODING / "claude-code__codemie-ai_codemie-code__incremental-simple-turn-2.jsonl"  # cwd …/codemie-code
PORT = CODING / "claude-code__DRMacIver_claude-reliability__python-to-rust-port.jsonl"  # cwd /tmp/tmpqwh7888i


def written_and_slept(store: SessionStore, *paths: Path) -> dict[str, list[str]]:
    for path in paths:
        (sid,) = import_sources(store, "claude-code", [path]).to_json()["session_ids"]
        assert finish(store, sid).outcome == "ok"
    assert sleep(store.state_dir).outcome == "ok"
    return topics_text(store)


@pytest.fixture(scope="module")
def blind(tmp_path_factory) -> dict[str, list[str]]:
    return written_and_slept(SessionStore(tmp_path_factory.mktemp("blind") / "state"), OVERVIEW, SPEC, EXPLORE, PORT)


def test_one_tasks_definition_of_done_is_no_rule_of_the_core(blind):
    core = blind["core.md"]
    assert "TODO is not acceptable, implementation must be full." in core  # a standing preference
    assert not [b for b in core if "Don't stop until" in b], core
    # it is the port's, and kept with it
    assert any("Don't stop until all functions are ported, tests pass" in b
               for rel, bs in blind.items() if rel != "core.md" for b in bs)


def test_the_users_decision_beside_a_rule_in_one_turn_is_kept(blind):
    """"TODO is not acceptable, implementation must be full. comments about performance also
    valid, need to look only for current date while performing matching for session.": the
    rule took the turn's one note; the decision after it is a note of its own."""
    text = "\n".join(b for rel, bs in blind.items() if rel != "core.md" for b in bs)
    assert "need to look only for current date while performing matching for session" in text


def test_a_session_in_a_generic_folder_files_under_the_project_its_turns_name(blind):
    """`/Users/user/repo`: "the codemie-code repository", "the codemie-code project"; the
    mkdtemp folder of the port: "Port this Python project to Rust"."""
    assert {"core.md", "codemie-code.md", "python-project.md"} <= set(blind), list(blind)
    # a component of the project may have its own topic, under the project's folder; no `repo.md`, no `coverage.md`
    assert not [p for p in blind if p not in ("core.md", "python-project.md") and not p.startswith("codemie-code")], \
        list(blind)
    explored = "\n".join(blind["codemie-code.md"])
    assert "Migration 001: Renames `config.json` → `codemie-cli.config.json`" in explored  # EXPLORE's
    assert "Testing: Vitest 4.0" in explored  # OVERVIEW's


@pytest.mark.parametrize("sentence", [
    "Don't stop until all functions are ported, tests pass, and you have 100% coverage.",
    "Keep going until the build is green.",
    "No console logs in this PR!",
    "For now, always use the mock server.",
])
def test_a_rule_scoped_to_the_task_in_hand_is_none(sentence):
    assert not is_rule(sentence)


@pytest.mark.parametrize("sentence", [
    "Important not to commit changes until final step.", "Don't commit until the tests pass.", "No console logs!",
    "Invalid themes must NEVER explode.", "Never push before the CI passes.",
])
def test_a_standing_rule_with_until_or_before_is_one(sentence):
    assert is_rule(sentence)


def test_sleep_merges_a_folder_named_topic_into_the_project_its_records_name(tmp_path, monkeypatch):
    """A memory an earlier writer made (it named a project after the folder, `repo.md`, as
    the writer did before it read the turns for the name): sleep reads the records the
    topic's blocks cite, finds "the codemie-code repository", and merges `repo.md` into the
    `codemie-code.md` the session in `…/codemie-code` made; ids and citations are kept."""
    from scriptorium.core.writer import filing

    store = SessionStore(tmp_path / "state")
    (sid,) = import_sources(store, "claude-code", [OVERVIEW]).to_json()["session_ids"]
    assert finish(store, sid).outcome == "ok"
    with monkeypatch.context() as m:
        m.setattr(filing, "named_project", lambda texts, plain=True: "")  # the writer before it read the name
        (sid,) = import_sources(store, "claude-code", [EXPLORE]).to_json()["session_ids"]
        assert finish(store, sid).outcome == "ok"
    before = topics_text(store)
    assert set(before) == {"codemie-code.md", "repo.md"}, list(before)
    result = sleep(store.state_dir)
    assert result.outcome == "ok", result.message
    after = topics_text(store)
    assert set(after) == {"codemie-code.md"}, list(after)
    assert sorted(after["codemie-code.md"]) == sorted(before["codemie-code.md"] + before["repo.md"])
    assert "merged repo.md into codemie-code.md" in result.said_gathered()
