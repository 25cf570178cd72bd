"""Ranking for working-session memory: identifiers and the long turns many blocks cite."""

from __future__ import annotations

from pathlib import Path

from scriptorium.core.search import SearchIndex, tokenize
from scriptorium.core.search.fusion import fuse
from scriptorium.core.search.query import query_tokens


def test_a_camel_case_identifier_also_yields_its_parts():
    assert tokenize("pendingMessageContainer") == ["pendingmessagecontain", "pend", "messag", "contain"]
    assert tokenize("HTTPServer getThemesDir()") == ["httpserver", "http", "server", "getthemesdir", "get", "theme", "dir"]
    assert tokenize("Hello WORLD ordinary words") == ["hello", "world", "ordinari", "word"]


def test_a_query_naming_an_identifier_is_ranked_by_the_identifier_not_its_parts():
    """"OpenTelemetry" in a question asks for that name: its parts ("open") would match
    every block that opens something."""
    assert query_tokens("Which exporter is available for OpenTelemetry?") == ["export", "avail", "opentelemetri"]


def test_a_plain_words_question_finds_the_block_naming_the_identifier(tmp_path: Path):
    memory = tmp_path / "memory"
    (memory / "topics").mkdir(parents=True)
    (memory / "topics" / "notes.md").write_text(
        "# Notes\n\nBash output waits in `pendingMessageContainer` until the next submit. ^c0000001\n\n"
        "The editor keeps its history between sessions. ^c0000002\n", encoding="utf-8")
    hits = SearchIndex(memory, semantic=False).search("Which container holds the pending messages?")
    assert [h.block_id for h in hits] == ["c0000001"]


def test_a_turn_cited_by_many_blocks_lifts_each_less_than_a_turn_cited_by_one():
    """A long working turn is distilled into several blocks; its score, passed whole to
    each, let all of them outrank the one block distilled from a turn about the question."""
    record_words = {0: 10.0, 1: 8.0}
    citing = {0: [0, 1, 2, 3], 1: [4]}
    blocks, _ = fuse({}, {}, record_words, {}, lambda r: (), lambda r: citing.get(r, ()))
    best = max(blocks, key=lambda b: blocks[b].score)
    assert best == 4
    assert blocks[0].evidence == 10.0  # the relevance reported stays the record's own
