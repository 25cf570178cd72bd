"""What the offline writer keeps of a working session, on the coding set's whole public
transcripts (bench/data/coding/, sources and licences in its SOURCES.md; issue 24): a
list keeps what introduces it, the user's requests say whose they are, the agent's plans,
questions and status lines are no notes, and a fix said as a need ("I need to use
`:auto` mode") stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
PI_REFACTOR = CODING / "pi__badlogic_pi-mono__before-compaction.jsonl"
SPOTTER_LIVEVIEW = CODING / "claude-code__marot_spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl"
SPOTTER_HOOK = CODING / "claude-code__marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.fixture(scope="module")
def pi_refactor(tmp_path_factory) -> str:
    store, sid = imported_session(tmp_path_factory.mktemp("pi"), "pi", PI_REFACTOR)
    return "\n".join(b for bs in written_topics(store, sid).values() for b in bs)


def _blocks(tmp_path: Path, kind: str, path: Path) -> list[str]:
    store, sid = imported_session(tmp_path, kind, path)
    return [b for bs in written_topics(store, sid).values() for b in bs]


def test_a_list_of_values_is_one_sentence_with_what_it_is_a_list_of(tmp_path):
    """"Updated the dark theme with all your specified colors:" then "- `accent`: `#8abeb7`
    (teal/cyan)", "- `green` (diffs): `#b5bd68`": alone, an item does not say what it is a
    colour of."""
    blocks = _blocks(tmp_path, "pi", PI_LARGE)
    (block,) = [b for b in blocks if "`accent` is `#8abeb7` (teal/cyan)" in b]
    assert "Updated the dark theme with all the user's specified colors: `accent` is `#8abeb7` (teal/cyan); " \
           "`green` (diffs) is `#b5bd68`" in block
    assert not any(b.startswith("`accent`: `#8abeb7`") for b in blocks)


def test_the_users_requests_say_whose_they_are_and_steps_of_the_work_are_no_notes(pi_refactor):
    # "i actually want you to: - copy the tui components to modes/interactive, ..."
    assert "The user asked to copy the tui components to modes/interactive" in pi_refactor
    # "read @packages/coding-agent/src/main.ts ... in full": a step of that session's work
    assert "Read @packages/coding-agent/src/main.ts" not in pi_refactor
    assert "The user can compare in parallel" not in pi_refactor  # "the user" inside a sentence
    assert "as the user clean" in pi_refactor or "the user can compare" in pi_refactor


def test_questions_plans_and_status_lines_are_no_notes(pi_refactor):
    assert "why are we using appendMessage" not in pi_refactor  # "sooo, why are we using ...?"
    assert "Let pi check" not in pi_refactor  # "One uncommitted change ... Let me check what it is:"
    assert "Are we all commited" not in pi_refactor
    # "Why are there 2 subscription handlers?" answered "Good catch. Let me look at them:": no note of its own
    assert "Let pi look" not in pi_refactor and "Good catch" not in pi_refactor


def test_a_fix_said_as_a_need_is_kept(tmp_path):
    text = "\n".join(_blocks(tmp_path, "claude-code", SPOTTER_LIVEVIEW))
    assert "needs to use `:auto` mode" in text
    assert "can't access the test sandbox" in text


def test_where_the_errors_are_is_kept_though_it_starts_like_an_imperative(tmp_path):
    """"The pre-commit hook is failing on ..." is no "commit" step."""
    text = "\n".join(_blocks(tmp_path, "claude-code", SPOTTER_HOOK))
    assert "The pre-commit hook is failing on pre-existing issues only" in text
    assert "`waiting_summary.ex`" in text
    assert "None of Claude's changes have issues." not in text


CODEX = CODING / "codex__codemie-ai_codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


def test_a_command_running_and_a_question_in_passing_are_no_notes(tmp_path, pi_refactor):
    text = "\n".join(_blocks(tmp_path, "codex", CODEX))
    assert "is running now" not in text  # "`npm run build` is running now to catch any type or alias issues ..."
    assert "opencode_config_content" in text.casefold()  # what the session found stays
    assert "maybe intentional" not in pi_refactor  # "`runSingleShotMode()` doesn't do it (maybe intentional?)."


def test_the_users_next_step_and_a_one_off_dont_are_no_rules(tmp_path):
    store, sid = imported_session(tmp_path, "pi", PI_LARGE)
    topics = written_topics(store, sid)
    core = "\n".join(topics["core.md"])
    assert "Invalid themes must NEVER explode." in core
    assert "don't modify the theme" not in core  # "should be dimmer, don't modify the theme, look into the footer sources"
    text = "\n".join(b for bs in topics.values() for b in bs)
    assert "try again" not in text  # "i undid your changes, try again"
    assert "`minimal` → `borderMuted`." not in [b for bs in topics.values() for b in bs]  # a mapping without what it maps


def test_prose_arrows_are_no_code_and_topic_names_are_no_fragments(tmp_path, pi_refactor):
    # "tools -> core/tools\ntui -> modes/interactive/components\n..." (the user's layout, one a line)
    assert "Tools -> core/tools; tui -> modes/interactive/components; theme -> modes/interactive/theme; " \
           "oauth -> core/oauth" in pi_refactor
    store, sid = imported_session(tmp_path, "pi", PI_LARGE)
    names = [Path(p).stem for p in written_topics(store, sid)]
    assert not [n for n in names if "-s-" in n or n.endswith("-s")], names  # "user's listeners" -> never "user-s-..."


CODEMIE_CLEAR = CODING / "claude-code__codemie-ai_codemie-code__session-196820da.jsonl"  # cwd /Users/user/repo


def test_the_project_is_never_the_home_folders_user_and_a_checklist_is_no_note(tmp_path):
    store, sid = imported_session(tmp_path, "claude-code", CODEMIE_CLEAR)
    topics = written_topics(store, sid)
    assert not [p for p in topics if p == "user.md" or p.startswith("user/")], list(topics)
    assert "repo.md" in topics
    text = "\n".join(b for bs in topics.values() for b in bs)
    assert "( ) Add `SessionLifecycleAdapter` interface" not in text  # "- [ ] Add `SessionLifecycleAdapter` ..."
    assert "( )" not in text
