"""What the offline writer keeps of a working session, on the coding set's public
transcripts (bench/data/coding/, sources and licences in its SOURCES.md; issue 24): a
sample of formatting the user asked to see is no note, a statement about "the file"
names the file, a task's line keeps what the task changed, what to try is no "X is Y",
a theory the user rejected is not kept, and the user's standing rules (values held,
"important not to ...", a two-word "don't") are the core, once however often said.

The codemie-code sessions are the coding set's held-out split: its core was read by hand
before this test was written (bench/RESULTS.md), so the split is no longer blind there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

from .conftest import NARRATION, imported_session, topics_text, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER_DOV = CODING / "claude-code__marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
CODEMIE_CLEAR = CODING / "claude-code__codemie-ai_codemie-code__session-196820da.jsonl"
CODEMIE_SYNC = CODING / "claude-code__codemie-ai_codemie-code__session-624a4a58.jsonl"
CODEX_TUNE = CODING / "codex__codemie-ai_codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


@pytest.fixture(scope="module")
def pi_twice(tmp_path_factory) -> dict[str, list[str]]:
    """pi's large session written, then the same user's next session saying the same again
    (the transcript under another session id)."""
    tmp = tmp_path_factory.mktemp("pi")
    store, sid = imported_session(tmp, "pi", PI_LARGE)
    written_topics(store, sid)
    lines = PI_LARGE.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["id"] = "0e6f2c1a-0000-4000-8000-000000000002"
    again = tmp / "again.jsonl"
    again.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    (second,) = import_sources(store, "pi", [again]).to_json()["session_ids"]
    assert second != sid
    return written_topics(store, second)


def _text(topics: dict[str, list[str]]) -> str:
    return "\n".join(b for bs in topics.values() for b in bs)


def test_a_sample_of_formatting_the_user_asked_to_see_is_no_note(pi_twice):
    """"write some markdown here in chat, anything you can do in markdown" and the sample the
    agent rendered ("Here's a list: - Item 1 ... - Nested item 2.1", "~~Strikethrough text~~
    and <u>underlined text</u>", "- **Bold item** with `inline code`") tell nothing about the
    project; the colours the user chose for it beside them do."""
    text = _text(pi_twice)
    for sample in ("Bold item", "Strikethrough text", "Nested item", "underlined text", "Double nested", "Item 1;",
                   "write some markdown", "Write markdown, including code", "example.com"):
        assert sample not in text, sample
    assert not [p for p in pi_twice if "underlined" in p or "strikethrough" in p], list(pi_twice)
    assert "Markdown link text #b5bd68" in text  # the user's own spec of the markdown colours stays


def test_a_statement_about_the_file_names_the_file(pi_twice):
    """The user: "there's only one file left to fix up, tui-renderer.ts"; the agent: "I can see
    the file still uses `chalk` extensively". But "this file has its own `DynamicBorder`",
    after a turn naming two files ("like `oauth-selector.ts` and `theme-selector.ts`"), names
    none: which one is not said."""
    text = _text(pi_twice)
    assert "`tui-renderer.ts` still uses `chalk` extensively throughout." in text
    assert "The file still uses" not in text
    assert "`theme-selector.ts` has its own `DynamicBorder`" not in text
    assert "`oauth-selector.ts` has its own" not in text


def test_what_to_try_is_no_statement_of_what_a_thing_is(pi_twice):
    """"Check GPU acceleration: - Search: `terminal.integrated.gpuAcceleration` - Try toggling
    between `auto`, `on`, and `off`" is the agent's list of steps for the user, not "Search
    is `terminal.integrated.gpuAcceleration`"."""
    text = _text(pi_twice)
    assert "Search is `terminal" not in text
    assert "Try toggling" not in text and "Try setting it" not in text


def test_a_mapping_without_its_subject_and_a_log_line_are_no_notes(pi_twice):
    """"- `high` → `accent` (most prominent)" alone does not say what maps (the thinking
    levels' border colours); "[theme] Detected truecolor mode (COLORTERM=truecolor, ...)" is
    the app's log pasted."""
    blocks = [b for bs in pi_twice.values() for b in bs]
    assert "`high` → `accent` (most prominent)." not in blocks
    assert "`off` → `dim` (most subtle)." not in blocks
    assert "Detected truecolor mode" not in "\n".join(blocks)


def test_a_short_reply_without_its_subject_and_a_request_for_a_step_are_no_notes(tmp_path):
    """pi's "yes need to be fully clean" (of what? the agent's turn before said), "let's
    tackle main-new.ts", "please update CLAUDE.md" (the demo's) are that session's steps."""
    text = _text(written_topics(*imported_session(tmp_path, "pi", CODING / "pi__badlogic_pi-mono__before-compaction.jsonl")))
    assert "need to be fully clean" not in text.casefold()
    assert "ackle main-new.ts" not in text


def test_a_theory_the_user_rejected_is_not_kept(pi_twice):
    """"I bet VS Code is detecting as "light" theme ..." — the user: "no, that's not it, bot
    use the dark theme"."""
    text = _text(pi_twice)
    assert "detecting as \"light\" theme" not in text
    assert "If that's the case" not in text  # which case, the sentence before said
    assert "sleep 5 seconds" not in text.casefold()  # the user's "dude sleep 5 seconds via bash": a command then
    assert not NARRATION.search(text), text


def test_a_rule_said_again_in_another_session_is_in_the_core_once(pi_twice):
    core = pi_twice["core.md"]
    assert core.count("Invalid themes must NEVER explode.") == 1, core
    assert core.count("The user would only want e2e tests for AgentSession.") == 0  # another session's rule
    assert core.count("No conosle logs!") == 1, core
    assert len(core) == len(set(core)), core


def test_a_status_line_with_a_filler_word_is_still_a_status_line(tmp_path):
    """spotter's "That's just the notification for the test run that already completed
    earlier — all 31 tests passed.": without "just" a status line of 16 words."""
    text = _text(written_topics(*imported_session(tmp_path, "claude-code", CODING / "claude-code__marot_spotter__"
                                                                    "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")))
    assert "all 31 tests passed" not in text


def test_a_task_keeps_what_it_changed(tmp_path):
    """"2. **spotter-dov.2** — Upgraded TranscriptRenderer" with its indented items (what
    the task changed) is one sentence, not the task's title alone."""
    blocks = [b for bs in written_topics(*imported_session(tmp_path, "claude-code", SPOTTER_DOV)).values() for b in bs]
    text = "\n".join(blocks)
    assert "spotter-dov.2 — Upgraded TranscriptRenderer: Removed silent 5-line truncation, added 10-line default " \
           "with expand groups;" in text  # the task's id as said, never raised (verbatim.py)
    assert not any(b.casefold() == "spotter-dov.2 — upgraded transcriptrenderer." for b in blocks)


def test_the_users_values_and_short_donts_are_the_core_and_the_matter_in_hand_is_not(tmp_path):
    """"performance is crucial", "important not to commit changes until final step", "don't
    overcomplicate" are standing rules; "the issue must be address" (which issue?) and
    "hitting /clear always create file in same directory" (how a tool behaves) are none."""
    store = SessionStore(tmp_path / "state")
    for path in (CODEMIE_CLEAR, CODEMIE_SYNC):
        (sid,) = import_sources(store, "claude-code", [path]).to_json()["session_ids"]
        written_topics(store, sid)
    topics = topics_text(store)
    core = topics["core.md"]
    for rule in ("Performance is crucial.", "Important not to commit changes until final step.", "Don't overcomplicate.",
                 "Don't produce code, design solution first.", "Don't create separate documents."):
        assert core.count(rule) == 1, (rule, core)
    assert not [b for b in core if "must be address" in b or "always create file" in b], core
    # a piece of work said to be done is the session's status, no note
    text = _text(topics)
    assert "proposal is now complete and ready for implementation" not in text
    assert "Does it make sense to have it combined" not in text  # a question, though without its "?"
    # a component's topic is no word every session says nor a bare verb
    assert not [p for p in topics if p in ("repo/file.md", "repo/track.md")], list(topics)


def test_codex_a_theory_a_later_finding_disproved_is_not_kept(tmp_path):
    """Codex's "The OpenCode adapter builds `OPENCODE_CONFIG_CONTENT` inline, so this likely
    means adding the default compaction setting to that generated environment-backed config"
    (the real session), then a finding that says otherwise (appended): the finding stands."""
    store, sid = imported_session(tmp_path, "codex", CODEX_TUNE)
    with store.batch(sid, message="the turn that followed"):
        store.append(sid, "assistant", "Turns out the OpenCode adapter never reads compaction from "
                     "`OPENCODE_CONFIG_CONTENT`: the setting belongs in the generated `opencode.json` file.",
                     predecessor=store.head(sid), node_id="finding")
    text = _text(written_topics(store, sid))
    assert "belongs in the generated `opencode.json` file" in text
    assert "so this likely means adding the default compaction setting" not in text, text


def test_a_condition_of_its_own_is_kept_and_one_on_the_sentence_before_is_not(tmp_path):
    from .conftest import chain

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("work", source="claude-code", cwd="/home/u/shop")
    chain(store, sid, ["u1", "a1"], text={
        "u1": "Which port does the dev server use?",
        "a1": "If not set, the dev server listens on port 1100 from `config/dev.exs`. "
              "If that's the case, it's a cache bug, not our code."}.__getitem__)
    text = _text(written_topics(store, sid))
    assert "If not set, the dev server listens on port 1100" in text
    assert "cache bug" not in text
