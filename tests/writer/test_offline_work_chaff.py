"""What a working session's search hit held besides its answer (issue 24: every word of a hit
is read, and raw turns get as many): the agent's step announced after its reason, the machine
waiting at that moment, an offer of the next steps kept with the user's reply to it, a list's
label said again in the same block. Real lines of the coding set's transcripts
(bench/data/coding/, sources and licences in its SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import imported_session, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
TODO_APP = CODING / "claude-code__d-kimuson_claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
CODEX_COMPACTION = CODING / "codex__codemie-ai_codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
PI_REFACTOR = CODING / "pi__badlogic_pi-mono__before-compaction.jsonl"
PI_THEMES = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER_FUM = CODING / "claude-code__marot_spotter__8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
GRAPH_MONITOR = CODING / "claude-code__kiliman_claude-transcript__test2.jsonl"


@pytest.fixture(scope="module")
def blocks(tmp_path_factory) -> dict[str, str]:
    """Each transcript written alone: its blocks' text."""
    out = {}
    for name, kind, path in (("todo", "claude-code", TODO_APP), ("codex", "codex", CODEX_COMPACTION),
                             ("pi", "pi", PI_REFACTOR), ("graph", "claude-code", GRAPH_MONITOR),
                             ("pi-themes", "pi", PI_THEMES), ("fum", "claude-code", SPOTTER_FUM)):
        store, sid = imported_session(tmp_path_factory.mktemp(name), kind, path)
        out[name] = "\n".join(b for bs in written_topics(store, sid).values() for b in bs)
    return out


def test_a_step_announced_after_its_reason_is_no_note(blocks):
    """"Since no custom commands are available, I'll decompose the TODO app creation into independent
    subtasks …" and Codex's "Since your request says “in env var,” I’m checking the local whitelabel
    binary …" are the agent's next step (the tool calls hold it), its reason in front; "I'll …" alone
    at a sentence's start was already no note. What the step found stays."""
    assert "decompose the TODO app creation" not in blocks["todo"], blocks["todo"]
    assert "The development server runs successfully on localhost:3001." in blocks["todo"]
    assert "checking the local whitelabel binary" not in blocks["codex"], blocks["codex"]
    assert "`threshold` of `0.9`" in blocks["codex"]


def test_the_machine_waiting_at_that_moment_is_no_note(blocks):
    """"The command is waiting for input about the `src/` directory structure." (create-next-app's
    prompt, answered by the next tool call) says nothing of the project."""
    assert "waiting for input" not in blocks["todo"], blocks["todo"]
    assert "`/src/components/` - React components (AddTodoForm, TodoItem, TodoList)" in blocks["todo"]


def test_an_offer_of_the_next_steps_is_no_question_a_reply_needs(blocks):
    """pi: "Want to test more features (compaction, model switching, etc.) or move on to next steps?"
    "Jesus, everything works, pi is a monster." The offer ("next steps", as "next step" was) asks
    leave to go on; kept before the reply it made one note of the offer and the exclamation."""
    assert "move on to next steps" not in blocks["pi"], blocks["pi"]
    assert "Want to test more features" not in blocks["pi"]


def test_a_lists_label_is_said_once_in_a_block(blocks):
    """"Successfully restructured the project with a cleaner organization:" over nine items is cut
    into sentences that each repeat it (one standing alone still says what its items are); two of
    them in one block read "…: Moved `/charts` to `/web/charts` …; Updated scripts …. Successfully
    restructured the project with a cleaner organization: Updated documentation …". One label, all
    the items."""
    label = "Successfully restructured the project with a cleaner organization:"
    graph = [b for b in blocks["graph"].split("\n") if label in b]
    assert graph and all(b.count(label) == 1 for b in graph), graph
    assert any("Moved `/charts` to `/web/charts`" in b and "Updated documentation" in b for b in graph), graph


def test_a_step_the_user_leaves_to_the_agent_is_no_note(blocks):
    """"You can review the existing commit messages using git log for examples" and pi's "you can
    look up the detailed history of this session in <path>" tell the agent what it may do next in
    that session, as "Review …" would. The user's turn keeps what it says of the project instead:
    "We already have a repo, so you don't need to git init" (the `/init` sub-agent had written "The
    project is not a Git repository")."""
    assert "review the existing commit messages" not in blocks["graph"], blocks["graph"]
    assert "We already have a repo, so Claude doesn't need to git init." in blocks["graph"]
    assert "look up the detailed history of this session" not in blocks["pi"], blocks["pi"]


def test_the_users_requests_are_not_gathered_under_the_word_user(blocks):
    """pi's theme session: "The user manually removed almost all chalk uses.", "The user could try:
    In VS Code: Check Settings → …", "The user asked to put it in coding-agent/test …", "The user asked
    to make muted a little brighter." were one block: the speaker's description says "user" in every
    note of theirs, and the word most notes share was the block's subject."""
    together = [b for b in blocks["pi-themes"].split("\n")
                if "The user manually removed almost all chalk uses." in b]
    assert together and not any("make muted a little brighter" in b for b in together), together


def test_notes_are_not_gathered_under_an_adverb(blocks):
    """"We already have a repo, so you don't need to git init.", "The logger is already initialized in
    logger.ts, …", "The logger paths are already correct - …", "The serve-charts.ts is already
    correctly referencing the charts directory …" were one block: "already" was the word they shared.
    An adverb says how or when, not what a note is about ("-ly" ones were already left out)."""
    repo = [b for b in blocks["graph"].split("\n") if "We already have a repo" in b]
    assert repo and not any("logger" in b or "serve-charts" in b for b in repo), repo


def test_a_guess_the_later_finding_answers_is_not_kept(blocks):
    """"The subagent fixture test failed — the fixture may not contain agent_id or text pattern
    references." and "… the parsed messages might not expose these as top-level fields." are guesses
    ("may not", "might not", as "might be" was); "The subagent tests fail because the `agent_id` field
    on messages goes through the DB but `load_session_messages` doesn't include it …" is what was found."""
    assert "may not contain agent_id" not in blocks["fum"], blocks["fum"]
    assert "might not expose these" not in blocks["fum"]
    assert "The subagent tests fail because the `agent_id` field on messages goes through the DB" in blocks["fum"]
