"""Big topics don't stall the writer (issue 19, item 9).

Past the tools' read limit a read is marked partial and cannot be written back whole;
a large topic is edited by block (list_blocks, read_block, edit_block, append_blocks),
by the offline writer and by a real (here: scripted) model; sleep splits a topic past
`sleep.split_chars` into sub-topics, every block id, citation and link still valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace, parse_topic
from scriptorium.core.memory.check import workspace_problems
from scriptorium.core.memory.topics import resolve_topic_link
from scriptorium.core.memory.transaction.lifecycle import save_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import sleep, write
from scriptorium.core.writer.tools import MAX_READ_CHARS, PARTIAL_READ, WRITER_TOOLS, ToolError, TopicTools

from .conftest import chain, history, marked
from .scripted import scripted

FIRST = {"u1": "How should we size the build cache for the CI runners?",
         "a1": "Start with a 50 GB build cache per runner and evict the least recently used cache entries first."}
SECOND = {"u1": "How many runners share one build cache?",
          "a1": "Each runner keeps its own build cache; runners never share the runner cache."}
WORDS = ("amber basalt cedar delta ember fjord garnet harbor iris jasper kestrel lagoon marble nectar onyx prairie "
         "quartz raven sierra tundra umber violet willow xenon yarrow zephyr alpine bramble cobalt dune falcon "
         "glacier hazel indigo juniper kelp lotus mesa nimbus orchid pebble quill reef saffron thistle").split()


def _fact(i: int) -> str:
    """A sentence unlike the others (the organizer merges near-duplicates)."""
    w = [WORDS[(i + k * 7) % len(WORDS)] + WORDS[(i // len(WORDS) + k * 11) % len(WORDS)] for k in range(7)]
    return (f"Runner pool {i} of the {w[0]} {w[1]} region stores {w[2]} artifacts beside {w[3]} {w[4]} logs; "
            f"the {w[5]} team purges it after {i % 13 + 1} days, as {w[6]} review {i} settled.")


def _state(tmp_path: Path) -> tuple[SessionStore, Workspace, str, str]:
    """A workspace with one topic written offline; returns it, its path and a definition
    line's citation id that every synthetic block may cite."""
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("first")
    chain(store, sid, list(FIRST), text=FIRST.__getitem__)
    assert write(store, sid, force=True).outcome == "ok"
    ws = Workspace.open(store.state_dir)
    (rel,) = ws.topic_paths()
    doc = parse_topic(rel, ws.read_topic(rel))
    return store, ws, rel, doc.blocks[0].citations[0].id


def _grow(ws: Workspace, rel: str, cite: str, n: int, sections: tuple[str, ...] = ()) -> list[str]:
    """Add n cited blocks to the topic (in these ## sections, in turn); returns every block id."""
    text = ws.read_topic(rel).rstrip("\n")
    definition = next(line for line in text.split("\n") if line.startswith(f"[^{cite}]:"))
    body = "\n".join(line for line in text.split("\n") if not line.startswith("[^"))
    parts = [body.rstrip("\n")]
    per = n // max(len(sections), 1)
    for k in range(n):
        if sections and k % per == 0 and k // per < len(sections):
            parts.append(f"## {sections[k // per]}")
        parts.append(f"{_fact(k)}[^{cite}]")
    result = save_topic(ws, rel, "\n\n".join(parts) + "\n\n" + definition + "\n", lock_timeout=10)
    assert result.outcome == "installed", result.diagnostics[:3]
    return [b.block_id for b in parse_topic(rel, ws.read_topic(rel)).blocks]


def _ids(ws: Workspace) -> dict[str, str]:
    """Every block id of memory -> the topic holding it."""
    out: dict[str, str] = {}
    for rel in ws.topic_paths():
        for block in parse_topic(rel, ws.read_topic(rel)).blocks:
            for bid in block.ids:
                assert bid not in out, f"^{bid} twice"
                out[bid] = rel
    return out


# -- the tools ------------------------------------------------------------------------------


@pytest.fixture()
def tools(tmp_path: Path) -> TopicTools:
    root = tmp_path / "topics"
    root.mkdir()
    return TopicTools(root, {"openprogram/s/n1": "[t] Owner: hi"}.get, WRITER_TOOLS)


def _big_text(n: int = 900) -> str:
    blocks = [f"{_fact(i)}[^e-{i:010d}] ^b{i:07d}\n\n[^e-{i:010d}]: Time: `undated`; Sources: [pool](openprogram/s/n1)"
              for i in range(n)]
    return "# Big\n\n" + "\n\n".join(blocks) + "\n"


def test_a_partial_read_is_marked_and_never_written_back_whole(tools):
    text = _big_text()
    assert len(text) > MAX_READ_CHARS
    (tools.root / "big.md").write_text(text)
    first = tools.call("read_file", {"path": "big.md"})
    assert first.startswith(PARTIAL_READ) and "NOT the whole file" in first
    offset = int(re.search(r"offset=(\d+)\)", first).group(1))
    body = first.split("\n", 1)[1].rsplit("\n[…", 1)[0]
    assert text.startswith(body) and len(body) == offset and body.endswith("\n")  # cut at a line break
    with pytest.raises(ToolError, match="append_blocks") as refused:
        tools.call("write_file", {"path": "big.md", "content": body + "A new fact.[^e1]\n"})
    assert "edit_block" in str(refused.value)
    assert (tools.root / "big.md").read_text() == text
    rest = tools.call("read_file", {"path": "big.md", "offset": offset})
    assert rest.startswith(PARTIAL_READ) and rest.split("\n", 1)[1] == text[offset:]
    # read whole in two ranges: now the model has seen all of it, and may replace it
    assert tools.call("write_file", {"path": "big.md", "content": text}).startswith("wrote")
    # a file too large to read whole is not replaced blind either
    (tools.root / "other.md").write_text(text)
    with pytest.raises(ToolError, match="not read all of other.md"):
        tools.call("write_file", {"path": "other.md", "content": "# Other\n"})
    small = tools.call("read_file", {"path": "big.md", "offset": 0, "limit": 50})
    assert small.startswith(PARTIAL_READ) and "characters 0-" in small


def test_blocks_are_listed_read_edited_and_appended_without_reading_the_topic(tools):
    (tools.root / "big.md").write_text(_big_text())
    listing = tools.call("list_blocks", {"path": "big.md"})
    lines = listing.split("\n")
    assert lines[0].startswith("big.md: 900 block(s)") and lines[1].startswith("^b0000000  line 3  [Big]  Runner pool 0")
    assert "list_blocks(path='big.md', start=500)" in lines[-1] and len(listing) < 80_000
    assert tools.call("list_blocks", {"path": "big.md", "start": 500}).split("\n")[1].startswith("^b0000500")
    block = tools.call("read_block", {"path": "big.md", "block_id": "^b0000007"})
    assert block.startswith(_fact(7)) and block.endswith("[pool](openprogram/s/n1)")
    out = tools.call("edit_block", {"path": "big.md", "block_id": "b0000007", "new_text":
                                    "Runner pool 7 moved to the onyx region.[^e-0000000007][^e1]\n\n"
                                    "[^e1]: Time: `2026-03-01`; Sources: [move](openprogram/s/n1)"})
    assert out == "edited ^b0000007 in big.md"
    doc = parse_topic("big.md", (tools.root / "big.md").read_text())
    edited = next(b for b in doc.blocks if b.block_id == "b0000007")
    assert edited.content == "Runner pool 7 moved to the onyx region." and not doc.issues
    assert len(doc.blocks) == 900 and "e1" in doc.definitions
    with pytest.raises(ToolError, match="belong to the runtime"):
        tools.call("edit_block", {"path": "big.md", "block_id": "b0000008", "new_text": "Forged.[^e-0000000008] ^abc"})
    with pytest.raises(ToolError, match="no block"):
        tools.call("edit_block", {"path": "big.md", "block_id": "nope", "new_text": "x[^e1]"})
    with pytest.raises(ToolError, match="retired"):
        tools.call("edit_block", {"path": "big.md", "block_id": "b0000008", "new_text": "  "})
    tools.call("append_blocks", {"path": "big.md", "text": "Pools report to Ada.[^e2]\n\n"
                                 "[^e2]: Time: `undated`; Sources: [ada](openprogram/s/n1)", "section": "Owners"})
    tools.call("append_blocks", {"path": "big.md", "text": "The build farm has 12 pools.[^e3]\n\n"
                                 "[^e3]: Time: `undated`; Sources: [farm](openprogram/s/n1)", "section": "Farm"})
    tools.call("append_blocks", {"path": "big.md", "text": "Ada also owns the farm.[^e4]\n\n"
                                 "[^e4]: Time: `undated`; Sources: [ada](openprogram/s/n1)", "section": "owners"})
    doc = parse_topic("big.md", (tools.root / "big.md").read_text())
    assert [b.content for b in doc.paragraphs[-3:]] == ["Pools report to Ada.", "Ada also owns the farm.",
                                                         "The build farm has 12 pools."]
    assert [b.headings for b in doc.paragraphs[-3:]] == [("Big", "Owners"), ("Big", "Owners"), ("Big", "Farm")]
    assert not [i for i in doc.issues if i.rule != "unused-definition"]
    assert "created new.md" in tools.call("append_blocks", {"path": "new.md", "text": "x[^e1]"})
    assert (tools.root / "new.md").read_text() == "# New\n\nx[^e1]\n"


# -- the writer ------------------------------------------------------------------------------


def test_an_offline_batch_for_a_topic_past_the_read_limit_is_installed(tmp_path):
    store, ws, rel, cite = _state(tmp_path)
    before = _grow(ws, rel, cite, 1200)
    old = ws.read_topic(rel)
    assert len(old) > MAX_READ_CHARS
    sid = store.create_session("second")
    chain(store, sid, list(SECOND), text=SECOND.__getitem__)
    result = write(store, sid, force=True)
    assert (result.outcome, result.code) == ("ok", "WRITTEN"), result.message
    assert result.batches[0].changed_files == [f"topics/{rel}"]
    new = ws.read_topic(rel)
    assert new.startswith(old.rstrip("\n")) and "runners never share the runner cache" in new[len(old):]
    doc = parse_topic(rel, new)
    assert [b.block_id for b in doc.blocks][:len(before)] == before and len(doc.blocks) == len(before) + 1
    assert marked(store, sid) == list(SECOND)
    calls = [e["tool"] for e in history(store, "write")[-1]["audit"] if e.get("round")]
    assert "append_blocks" in calls and "read_file" not in calls
    assert workspace_problems(store.state_dir) == []


def test_a_model_edits_a_large_topic_by_block(tmp_path):
    store, ws, rel, cite = _state(tmp_path)
    before = _grow(ws, rel, cite, 1200)
    target = before[500]

    def by_block(messages):
        ref = next(json.loads(line)["ref"] for line in messages[1]["content"].splitlines() if line.startswith('{"ref"'))
        return [("list_blocks", {"path": rel, "start": 500}),
                ("edit_block", {"path": rel, "block_id": target,
                                "new_text": f"Runner pool 500 now keeps no cache at all.[^{cite}][^e1]\n\n"
                                            f"[^e1]: Time: `undated`; Sources: [cache]({ref})"}),
                ("append_blocks", {"path": rel, "text": f"Runners never share a build cache.[^e2]\n\n"
                                                        f"[^e2]: Time: `undated`; Sources: [share]({ref})"})]

    model, name = scripted([by_block, "done"])
    sid = store.create_session("second")
    chain(store, sid, list(SECOND), text=SECOND.__getitem__)
    result = write(store, sid, force=True, model=name)
    assert (result.outcome, result.code) == ("ok", "WRITTEN"), result.message
    tool_results = [m["content"] for m in model.requests[1] if m["role"] == "tool"]
    assert tool_results[0].split("\n")[1].startswith(f"^{target}") and tool_results[1].startswith("edited")
    doc = parse_topic(rel, ws.read_topic(rel))
    ids = [b.block_id for b in doc.blocks]
    assert ids[:len(before)] == before and len(ids) == len(before) + 1
    edited = doc.blocks[500]
    assert edited.content == "Runner pool 500 now keeps no cache at all." and len(edited.citations) == 2
    assert doc.blocks[-1].content == "Runners never share a build cache."
    assert workspace_problems(store.state_dir) == []


def test_real_models_are_offered_the_block_tools_and_told_when_to_use_them():
    from scriptorium.core.writer.prompts import CONTRACT

    box = TopicTools(Path("."), lambda ref: None)
    offered = {s["function"]["name"]: s["function"] for s in box.schemas}
    assert {"list_blocks", "read_block", "edit_block", "append_blocks"} <= set(offered)
    assert set(offered["edit_block"]["parameters"]["required"]) == {"path", "block_id", "new_text"}
    assert "offset" in offered["read_file"]["parameters"]["properties"]
    assert all(name in CONTRACT for name in ("list_blocks", "edit_block", "append_blocks"))


# -- sleep ------------------------------------------------------------------------------------


SECTIONS = ("Storage", "Scheduling", "Networking", "Security")


def test_sleep_splits_a_300k_topic_along_its_sections_with_ids_citations_and_links_intact(tmp_path):
    store, ws, rel, cite = _state(tmp_path)
    before = _grow(ws, rel, cite, 1600, SECTIONS)
    text = ws.read_topic(rel)
    assert len(text) > 300_000
    doc = parse_topic(rel, text)
    intro, storage = doc.blocks[0].block_id, doc.blocks[1].block_id
    networking = next(b.block_id for b in doc.blocks if b.headings[-1:] == ("Networking",))
    definition = next(line for line in text.split("\n") if line.startswith(f"[^{cite}]:"))
    # links into the big topic: from a topic beside it, one in a folder, and inside it (same file)
    nested = definition.replace("](../sources/", "](../../sources/")
    for path, link, line in ((
            "ops.md", f"{rel}#^{networking}", definition), (f"team/{rel}", f"../{rel}#^{storage}", nested)):
        assert save_topic(ws, path, f"# Ops\n\nThe network pools are described [here]({link}).[^{cite}]\n\n{line}\n",
                          lock_timeout=10).outcome == "installed"
    inside = text.replace(f"{_fact(0)}[^{cite}]", f"{_fact(0)} See [the network notes](#^{networking}).[^{cite}]")
    inside = inside.replace("first.[^", f"first. See [the network notes](#^{networking}).[^", 1)
    assert inside.count("#^") == 2
    assert save_topic(ws, rel, inside, lock_timeout=10).outcome == "installed"
    ids = _ids(ws)
    head = ws.repo.head.commit.hexsha

    result = sleep(store.state_dir)
    assert (result.outcome, result.code) == ("ok", "REORGANIZED"), result.message
    stem = rel[:-3]
    assert f"split {rel} into" in result.message
    after = _ids(ws)
    assert set(after) == set(ids)  # every block id kept, each once
    assert {after[b] for b in before[1:]} == {f"{stem}/{s.lower()}.md" for s in SECTIONS}
    assert after[intro] == rel  # the blocks before the first section stay
    assert all(len(ws.read_topic(p)) <= 100_000 for p in ws.topic_paths())
    part = ws.read_topic(f"{stem}/storage.md")
    assert part.startswith("# Storage\n\n") and f"(../../sources/" in part  # titled; evidence links rebased
    assert workspace_problems(store.state_dir) == []  # parses, citations exist, every link resolves by path
    for path in ws.topic_paths():
        for p in parse_topic(path, ws.read_topic(path)).paragraphs:
            for _link, target, bid in p.block_refs():
                assert after[bid] == resolve_topic_link(path, target)
    assert f"({stem}/networking.md#^{networking})" in ws.read_topic("ops.md")
    assert f"(../{stem}/storage.md#^{storage})" in ws.read_topic(f"team/{rel}")
    assert f"({Path(stem).name}/networking.md#^{networking})" in ws.read_topic(rel)  # from the part that stays
    assert f"(networking.md#^{networking})" in part  # from a sibling part
    # the split is one transaction, of kind sleep, naming what it split
    audit = [r for r in ws.audit_log() if r.get("summary", "").startswith("split ")]
    assert len(audit) == 1 and audit[0]["kind"] == "sleep" and not audit[0]["retired"]
    assert set(audit[0]["changed_files"]) >= {f"topics/{stem}/{s.lower()}.md" for s in SECTIONS} | {"topics/ops.md"}
    assert ws.repo.git.rev_list("--count", f"{head}..HEAD") in ("1", "2")


def test_a_topic_without_sections_is_split_into_runs_and_the_limit_is_a_setting(tmp_path):
    store, ws, rel, cite = _state(tmp_path)
    before = _grow(ws, rel, cite, 150)
    size = len(ws.read_topic(rel))
    assert 30_000 < size < 100_000
    assert sleep(store.state_dir).code in ("NO_CHANGE", "REORGANIZED") and set(_ids(ws)) == set(before)
    assert ws.topic_paths() == [rel]  # below the default limit: not split
    (store.state_dir / "config.toml").write_text("[sleep]\nsplit_chars = 20000\n")
    result = sleep(store.state_dir)
    assert result.code == "REORGANIZED", result.message
    paths = ws.topic_paths()
    assert rel in paths and len(paths) >= 3 and all(p == rel or p.startswith(rel[:-3] + "/") for p in paths)
    assert all(len(ws.read_topic(p)) <= 20_000 for p in paths)
    assert set(_ids(ws)) == set(before) and workspace_problems(store.state_dir) == []
    stays = [b.block_id for b in parse_topic(rel, ws.read_topic(rel)).blocks]
    assert stays == before[:len(stays)]  # the first run stays, in order


def test_a_sleep_preview_shows_the_split_and_installs_it_as_previewed(tmp_path):
    from scriptorium.core.writer.reorganize import install_preview

    store, ws, rel, cite = _state(tmp_path)
    before = _grow(ws, rel, cite, 1600, SECTIONS)
    text = ws.read_topic(rel)
    preview = sleep(store.state_dir, preview=True)
    assert preview.code == "PREVIEW" and f"topics/{rel[:-3]}/storage.md" in preview.changed_files
    assert ws.read_topic(rel) == text and ws.topic_paths() == [rel]
    installed = install_preview(store.state_dir, preview.preview)
    assert installed.code == "REORGANIZED", installed.message
    assert set(_ids(ws)) == set(before) and workspace_problems(store.state_dir) == []


def test_a_split_moves_each_block_with_its_own_definitions_and_raises_inner_headings():
    from scriptorium.core.writer.split import plan_split

    def block(n: int) -> str:
        return (f"{_fact(n)}[^e-{n:010d}] ^b{n:07d}\n\n"
                f"[^e-{n:010d}]: Time: `undated`; Sources: [pool](../sources/openprogram/_v2/s.md#source-{n})")

    text = "\n\n".join(["# Ops", block(0), "## Storage", block(1), "### Disks", block(2), "```", "## not a heading",
                        "```", "## Storage", block(3), "## Billing", block(4)]) + "\n"
    texts = {"ops.md": text, "ops/storage.md": "# Storage\n\nOld.[^e-1] ^old\n\n[^e-1]: Time: `undated`; Sources: [x](y)\n"}
    plan = plan_split(texts, 1000)
    assert plan.parts == {"ops.md": ["ops.md", "ops/billing.md", "ops/storage-2.md", "ops/storage-3.md"]}
    assert "ops/storage.md" not in plan.writes  # a name in use is not taken over
    stays, first = plan.writes["ops.md"], plan.writes["ops/storage-2.md"]
    assert stays == "# Ops\n\n" + block(0) + "\n"
    assert first.startswith("# Storage\n\n" + _fact(1)) and "\n## Disks\n" in first and "\n## not a heading\n" in first
    assert first.count("]: Time:") == 2 and "(../../sources/openprogram/_v2/s.md#source-2)" in first
    assert "e-0000000004" not in first and plan.writes["ops/billing.md"].count("]: Time:") == 1
    for path, new in plan.writes.items():
        assert not [i for i in parse_topic(path, new).issues], path
