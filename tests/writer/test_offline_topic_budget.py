"""Topics are bounded by what a session says (issue 24: "at most about one new topic per
2,000 words of transcript"): a session's new topics, its project topic first, fit one per
2,000 of its words, and the blocks of a topic beyond that go to the closest topic already
chosen; a folder mkdtemp made names no project. On the real fixture transcripts of
tests/fixtures/transcripts/ (SOURCES.md)."""

from __future__ import annotations

import json

from scriptorium.core.sessions.records import branch_records

from .test_offline_real import CODEX, PI, _imported, _written

WORDS_PER_NEW_TOPIC = 2000


def test_a_folder_mkdtemp_made_names_no_topic(tmp_path):
    """Codex's session run in `/tmp/tmpq8w2k3zx` (a test harness's scratch folder): no
    `tmpq8w2k3zx.md`; what it decided is kept."""
    moved = tmp_path / "codex.jsonl"
    lines = CODEX.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["payload"]["cwd"] = "/tmp/tmpq8w2k3zx"
    moved.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    topics = _written(*_imported(tmp_path, "codex", moved))
    assert topics and not [p for p in topics if p.startswith("tmp")], list(topics)
    assert any("`threshold` of `0.9`" in b for bs in topics.values() for b in bs)
