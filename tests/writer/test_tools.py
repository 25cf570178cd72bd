"""The writer's tools stay inside the staging topics/ directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scriptorium.core.writer.tools import ORGANIZER_TOOLS, ToolError, TopicTools


@pytest.fixture()
def stage(tmp_path: Path) -> tuple[TopicTools, Path]:
    root = tmp_path / "stage" / "topics"
    root.mkdir(parents=True)
    (tmp_path / "stage" / "sources").mkdir()
    (tmp_path / "stage" / "sources" / "x.md").write_text("evidence\n")
    (root / "people").mkdir()
    (root / "people" / "ada.md").write_text("# Ada\n")
    return TopicTools(root, {"openprogram/s/n1": "[t] Owner: hi"}.get, ORGANIZER_TOOLS), tmp_path


def _tree(base: Path) -> dict[str, bytes]:
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("path", ["../sources/x.md", "/etc/passwd", "sources/x.md", "topics/../../x.md",
                                  "people/../../sources/x.md", ".hidden.md", "~/x.md", "a\\..\\b.md"])
def test_escaping_paths_are_refused_and_nothing_changes(stage, path):
    tools, base = stage
    before = _tree(base)
    for name, args in (("write_file", {"path": path, "content": "x"}), ("read_file", {"path": path}),
                       ("edit_file", {"path": path, "old_string": "e", "new_string": "f"}),
                       ("delete_file", {"path": path})):
        with pytest.raises(ToolError, match="refused|invalid"):
            tools.call(name, args)
    assert _tree(base) == before


def test_symlinks_are_refused(stage, tmp_path):
    tools, base = stage
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    os.symlink(outside, tools.root / "link.md")
    os.symlink(tmp_path, tools.root / "dir")
    for name, args in (("read_file", {"path": "link.md"}), ("write_file", {"path": "link.md", "content": "x"}),
                       ("write_file", {"path": "dir/new.md", "content": "x"}), ("read_file", {"path": "dir/outside.md"})):
        with pytest.raises(ToolError, match="symlink"):
            tools.call(name, args)
    assert outside.read_text() == "secret\n"
    assert not (tmp_path / "new.md").exists()
    assert "link.md" not in tools.call("list_files", {})


def test_write_read_edit_delete_inside_topics(stage):
    tools, _ = stage
    assert "wrote" in tools.call("write_file", {"path": "topics/projects/cache.md", "content": "# Cache\n\nold text\n"})
    assert (tools.root / "projects" / "cache.md").read_text() == "# Cache\n\nold text\n"
    assert tools.call("read_file", {"path": "projects/cache.md"}).endswith("old text\n")
    tools.call("edit_file", {"path": "projects/cache.md", "old_string": "old", "new_string": "new"})
    assert "new text" in (tools.root / "projects" / "cache.md").read_text()
    assert "projects/cache.md" in tools.call("list_files", {})
    tools.call("delete_file", {"path": "projects/cache.md"})
    assert not (tools.root / "projects" / "cache.md").exists()


def test_edit_must_match_exactly_once(stage):
    tools, _ = stage
    tools.call("write_file", {"path": "a.md", "content": "x x"})
    with pytest.raises(ToolError, match="2 times"):
        tools.call("edit_file", {"path": "a.md", "old_string": "x", "new_string": "y"})
    with pytest.raises(ToolError, match="not found"):
        tools.call("edit_file", {"path": "a.md", "old_string": "z", "new_string": "y"})
    tools.call("edit_file", {"path": "a.md", "old_string": "x", "new_string": "y", "replace_all": True})
    assert (tools.root / "a.md").read_text() == "y y"


def test_only_markdown_is_written_and_arguments_are_checked(stage):
    tools, _ = stage
    with pytest.raises(ToolError, match=r"\.md"):
        tools.call("write_file", {"path": "script.sh", "content": "x"})
    with pytest.raises(ToolError, match="JSON"):
        tools.call("read_file", "{not json")
    with pytest.raises(ToolError, match="bad arguments"):
        tools.call("read_file", {"file": "people/ada.md"})
    with pytest.raises(ToolError, match="unknown tool"):
        tools.call("shell", {"command": "rm -rf /"})


def test_sources_are_read_by_ref_and_retirements_need_a_reason(stage):
    tools, _ = stage
    assert tools.call("read_source", {"ref": "openprogram/s/n1"}) == "[t] Owner: hi"
    with pytest.raises(ToolError, match="unknown source"):
        tools.call("read_source", {"ref": "openprogram/s/zz"})
    with pytest.raises(ToolError, match="reason"):
        tools.call("retire_block", {"block_id": "^abcd1234", "reason": " "})
    tools.call("retire_block", {"block_id": "^abcd1234", "reason": "merged into ^0000aaaa"})
    assert tools.retirements == {"abcd1234": "merged into ^0000aaaa"}
