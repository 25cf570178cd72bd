"""A model's hostile tool calls beyond path traversal (tests/writer covers `..`, absolute
paths and symlinks): huge writes, edits that grow a file past the write limit, huge
topics to read (marked partial, never written back whole), source refs that try to
leave the archive. Each is refused (or clipped) with a message the model reads;
through the pipeline nothing is installed or marked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import pending
from scriptorium.core.writer import write
from scriptorium.core.writer.tools import (MAX_READ_CHARS, MAX_WRITE_BYTES, PARTIAL_READ, WRITER_TOOLS, ToolError,
                                          TopicTools)
from writer.scripted import scripted

from .conftest import marked, memory_files, nothing_lost, talk


@pytest.fixture()
def tools(tmp_path: Path) -> TopicTools:
    root = tmp_path / "topics"
    root.mkdir()
    return TopicTools(root, {"openprogram/s/n1": "[t] Owner: hi"}.get, WRITER_TOOLS)


def test_a_write_over_the_limit_is_refused_and_nothing_is_written(tools):
    with pytest.raises(ToolError, match="too large"):
        tools.call("write_file", {"path": "big.md", "content": "x" * (MAX_WRITE_BYTES + 1)})
    assert not (tools.root / "big.md").exists()


def test_an_edit_that_would_grow_a_file_past_the_limit_is_refused(tools):
    text = "# Notes\n\n" + "a " * 2_000
    tools.call("write_file", {"path": "notes.md", "content": text})
    with pytest.raises(ToolError, match="too large"):
        tools.call("edit_file", {"path": "notes.md", "old_string": "a", "new_string": "b" * 1_000, "replace_all": True})
    assert (tools.root / "notes.md").read_text() == text


def test_a_huge_topic_is_read_clipped_marked_partial_and_not_written_back(tools):
    (tools.root / "huge.md").write_text("# Huge\n\n" + "word " * 1_000_000)
    out = tools.call("read_file", {"path": "huge.md"})
    assert len(out) < MAX_READ_CHARS + 500 and out.startswith(PARTIAL_READ)
    assert out.endswith(f"more characters from offset {MAX_READ_CHARS}]")  # one long line: cut where the window ends
    with pytest.raises(ToolError, match="read only part"):
        tools.call("write_file", {"path": "huge.md", "content": out})


@pytest.mark.parametrize("ref", ["../../etc/passwd", "/etc/passwd", "openprogram/../../../etc/passwd",
                                 "sources/openprogram/_v2/s.md#source-0", "openprogram/s/n1#x", "file:///etc/passwd"])
def test_source_refs_cannot_leave_the_archive(tools, ref):
    with pytest.raises(ToolError, match="unknown source ref"):
        tools.call("read_source", {"ref": ref})


def test_through_the_pipeline_huge_writes_install_nothing_and_mark_nothing(store):
    sid = store.create_session("huge")
    ids = talk(store, sid, ["how big may a topic get?", "one megabyte per write"])
    calls = [("write_file", {"path": "big.md", "content": "# Big\n\n" + "y" * (2 * MAX_WRITE_BYTES)}),
             ("write_file", {"path": "small.md", "content": "# Small\n\n" + "a " * 500}),
             ("edit_file", {"path": "small.md", "old_string": "a", "new_string": "z" * 5_000, "replace_all": True})]
    model, name = scripted([calls, "done"])
    before = memory_files(store)
    result = write(store, sid, force=True, model=name)
    results = [m["content"] for m in model.requests[1] if m["role"] == "tool"]
    assert results[0].startswith("error:") and "too large" in results[0]
    assert results[1].startswith("wrote") and "too large" in results[2]
    # small.md is an uncited paragraph: the transaction refuses it; the repair run edits nothing
    assert "citation-required" in model.prompts[1]
    assert (result.outcome, result.code) == ("permanent", "WRITER_NO_PROGRESS")
    assert nothing_lost(before, memory_files(store))
    assert marked(store, sid) == set() and [t.id for t in pending(store, sid)] == ids
