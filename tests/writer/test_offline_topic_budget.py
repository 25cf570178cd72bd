"""Topics are bounded by what a session says (issue 24: "at most about one new topic per
2,000 words of transcript"): a session's new topics, its project topic first, fit one per
2,000 of its words, and the blocks of a topic beyond that go to the closest topic already
chosen; a folder mkdtemp made names no project. On the real fixture transcripts of
tests/fixtures/transcripts/ (SOURCES.md)."""

from __future__ import annotations

import json

from scriptorium.core.sessions.records import branch_records

from .conftest import CODEX, PI, imported_session, written_topics

WORDS_PER_NEW_TOPIC = 2000


def test_a_session_opens_at_most_one_new_topic_per_2000_of_its_words(tmp_path):
    """pi's refactoring session (2,792 words) gets one new topic, its project's: the blocks
    about `AgentSession`, which would be `pi-mono/agentsession.md` with no budget, are in
    `pi-mono.md`, none lost."""
    store, sid = imported_session(tmp_path, "pi", PI)
    words = sum(len(r.text.split()) for r in branch_records(store, sid))
    assert 2000 <= words < 4000  # the fixture is what the test says it is
    topics = written_topics(store, sid)
    new = [p for p in topics if p != "core.md"]
    assert new == ["pi-mono.md"], new
    assert len(new) <= words // WORDS_PER_NEW_TOPIC
    assert any("The `AgentSession` class is now 885 lines" in b for b in topics["pi-mono.md"])


def test_a_short_session_files_into_the_topics_that_exist(tmp_path):
    """A short session of the same project after it (Codex's, 120 words, moved into pi-mono's
    folder) opens no topic: its blocks go into the project's topic."""
    store, sid = imported_session(tmp_path, "pi", PI)
    before = set(written_topics(store, sid))
    moved = tmp_path / "codex.jsonl"
    moved.write_text(CODEX.read_text(encoding="utf-8").replace(
        "/Users/Sample_User/repos/codemie-ai/codemie-code", "/Users/badlogic/workspaces/pi-mono"), encoding="utf-8")
    store, second = imported_session(tmp_path, "codex", moved)
    after = written_topics(store, second)
    assert set(after) == before, sorted(set(after) - before)
    assert any("`threshold` of `0.9`" in b for b in after["pi-mono.md"])


def test_a_folder_mkdtemp_made_names_no_topic(tmp_path):
    """Codex's session run in `/tmp/tmpq8w2k3zx` (a test harness's scratch folder): no
    `tmpq8w2k3zx.md`; what it decided is kept."""
    moved = tmp_path / "codex.jsonl"
    lines = CODEX.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["payload"]["cwd"] = "/tmp/tmpq8w2k3zx"
    moved.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    topics = written_topics(*imported_session(tmp_path, "codex", moved))
    assert topics and not [p for p in topics if p.startswith("tmp")], list(topics)
    assert any("`threshold` of `0.9`" in b for bs in topics.values() for b in bs)
