import os
from pathlib import Path

from scriptorium.core.memory.sources import MARKER, SourceRecord, anchor_for
from scriptorium.core.search import SearchIndex, memory_get, render_hits

from .conftest import ARCHIVE


def test_english_query_finds_the_right_block_first(memory: Path):
    hits = SearchIndex(memory).search("how big is the build cache per runner")
    assert hits[0].block_id == "a1b2c3d4"
    assert hits[0].path == "topics/infra/build_cache.md" and hits[0].line == 3
    assert hits[0].text == "Each CI runner gets a 50 GB build cache, evicted least recently used."
    assert hits[0].score > 0 and [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_chinese_query_finds_the_right_block_first(memory: Path):
    index = SearchIndex(memory)
    assert index.search("回滚要谁批准")[0].block_id == "5e6f7a8b"
    assert index.search("缓存目录为什么共享")[0].block_id == "5e6f7a8c"


def test_top_five_by_default(memory: Path):
    topic = memory / "topics" / "many.md"
    lines = ["# Many\n"]
    defs = []
    for n in range(8):
        lines.append(f"\nWidget fact number {n}.[^e-w{n}] ^b00000{n:02d}\n")
        defs.append(f"[^e-w{n}]: Time: `2026-01-0{n + 1}`; Sources: [w](../{ARCHIVE}#{anchor_for('openprogram/s1/m1')})")
    topic.write_text("".join(lines) + "\n" + "\n".join(defs) + "\n", encoding="utf-8")
    index = SearchIndex(memory)
    assert len(index.search("widget fact")) == 5
    assert len(index.search("widget fact", top_k=7)) == 7


def test_sources_only_when_asked(memory: Path):
    index = SearchIndex(memory, semantic=False)  # by words alone: meaning would bring near blocks too
    hits = index.search("zanzibar")  # the word exists only in a source record: its block is found through it
    assert hits[0].block_id == "a1b2c3d4" and all(h.kind == "block" for h in hits)
    hits = index.search("zanzibar", include_sources=True)
    assert ("openprogram/s1/m1", ARCHIVE, "source") in [(h.block_id, h.path, h.kind) for h in hits]
    assert all(h.kind == "block" for h in index.search("build cache"))


def test_a_block_is_ranked_by_the_words_of_the_records_it_cites(memory: Path):
    """The question's words are in the turn a block was distilled from, not in the block:
    ranked by its own words alone, the block was not found at all."""
    index = SearchIndex(memory, semantic=False)
    hits = index.search("who should we talk to about zanzibar")
    assert hits[0].block_id == "a1b2c3d4" and hits[0].relevance > 0


def test_cache_reused_until_a_topic_changes(memory: Path):
    index = SearchIndex(memory)
    first = index.refresh()
    assert len(first.parsed) == 4 and first.rebuilt
    again = index.refresh()
    assert again.parsed == [] and not again.rebuilt

    # a touch without a content change: re-hashed, not re-parsed, model kept
    deploys = memory / "topics" / "infra" / "deploys.md"
    os.utime(deploys, ns=(1, 1))
    touched = index.refresh()
    assert touched.parsed == [] and not touched.rebuilt

    deploys.write_text(deploys.read_text(encoding="utf-8").replace("Tuesday", "Thursday"), encoding="utf-8")
    changed = index.refresh()
    assert changed.parsed == ["topics/infra/deploys.md"] and changed.rebuilt
    assert index.search("thursday deploys")[0].block_id == "d1e2f3a4"

    # another process: parsed blocks come from the on-disk cache
    assert SearchIndex(memory).refresh().parsed == []


def test_pending_channel_evidence_is_not_recalled(memory: Path):
    source_id = "channel-chat/acct%3Agroup/x1"
    archive = memory / "sources" / "channel-chat" / "_v2" / "acct%253Agroup.md"
    archive.parent.mkdir(parents=True)
    record = SourceRecord(source_id=source_id, timestamp="2026-01-02T10:00:00+00:00", content="ferrets", trust_state="pending")
    archive.write_text(MARKER + "\n\n" + record.render(), encoding="utf-8")
    topic = memory / "topics" / "rumours.md"
    rel = os.path.relpath(archive, topic.parent)
    topic.write_text(
        f"# Rumours\n\nThe office will get ferrets.[^e-r1] ^cafe0001\n\n"
        f"[^e-r1]: Time: `2026-01-02`; Sources: [chat]({rel}#{anchor_for(source_id)})\n",
        encoding="utf-8",
    )
    index = SearchIndex(memory)
    assert "cafe0001" not in [h.block_id for h in index.search("office ferrets")]
    assert memory_get(index, "cafe0001") is not None  # still readable on request
    promoted = SourceRecord(source_id=source_id, timestamp="2026-01-02T10:00:00+00:00", content="ferrets")
    archive.write_text(MARKER + "\n\n" + promoted.render(), encoding="utf-8")
    assert [h.block_id for h in index.search("office ferrets")][:1] == ["cafe0001"]


def test_memory_get_returns_block_with_citations(memory: Path):
    view = memory_get(SearchIndex(memory), "5e6f7a8b")
    assert view.path == "topics/项目/部署.md" and view.line == 3
    assert view.text.startswith("部署窗口在每周二晚上") and "[^e-5e6f7a8b00]: Time:" in view.text
    assert "^5e6f7a8c" not in view.text  # only this block
    (citation,) = view.citations
    assert citation.time == "2026-01-02"
    (source,) = citation.sources
    assert source.source_id == "openprogram/s1/m4" and "回滚需要值班负责人批准" in source.record
    assert memory_get(SearchIndex(memory), "^5e6f7a8b").block_id == "5e6f7a8b"
    assert memory_get(SearchIndex(memory), "ffffffff") is None


def test_hits_are_fenced_once(memory: Path):
    text = render_hits(SearchIndex(memory).search("green tea"))
    assert text.count("<memory-context>") == 1 and text.count("</memory-context>") == 1
    assert "--- topics/people/ada.md#^0a0b0c0d" in text
    assert render_hits([]) == ""


def test_a_question_asking_for_a_guess_is_ranked_by_what_it_is_about(tmp_path: Path):
    """"Would Caroline likely ...": the hedge is rare in what people say, so by words it
    would outweigh the name; a query drops it as it drops "what" and "would"."""
    memory = tmp_path / "memory"
    (memory / "topics").mkdir(parents=True)
    (memory / "topics" / "notes.md").write_text(
        "# Notes\n\nCaroline wants to study counseling to pursue work in mental health. ^c0000001\n\n"
        "Caroline went to the beach with friends. ^c0000002\n\n"
        "It will likely rain on Sunday, so the market moves indoors. ^c0000003\n", encoding="utf-8")
    hits = SearchIndex(memory, semantic=False).search("What field would Caroline likely pursue?")
    assert hits[0].block_id == "c0000001" and "c0000003" not in [h.block_id for h in hits]
