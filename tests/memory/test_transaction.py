"""What an installed transaction does: ids, evidence, moves, retirement, views, git, audit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from scriptorium.core.memory import LockBusy, Transaction, Workspace, derived, retire_block, save_topic
from scriptorium.core.memory.sources import anchor_for, archive_path, plan_append, session_record

from .support import DAY, Seeded, git, git_agrees, records, snapshot


def test_a_writer_batch_is_archived_normalized_committed_and_audited(ws: Workspace) -> None:
    with Transaction(ws, "write", "batch 1", lock_timeout=1.0) as txn:
        ids = txn.archive(records(n=2))
        txn.write_topic("people/ada.md", "# Ada\n\nAda likes tea.[^e1] ^cafebabe\n\n"
                        "[^e1]: Time: `2026-01-02`; Sources: [tea](openprogram/s1/m0)\n")
        result = txn.commit()
    assert result.outcome == "installed" and ids == ["openprogram/s1/m0", "openprogram/s1/m1"]
    text = (ws.topics / "people/ada.md").read_text()
    [block] = ws.topic("people/ada.md").blocks
    assert block.block_id != "cafebabe" and result.created_blocks == [block.block_id]  # invented id stripped
    assert "](../../sources/openprogram/_v2/s1.md#source-" in text  # plain handle expanded
    assert result.changed_topics == ["topics/people/ada.md"]
    assert {"sources/openprogram/_v2/s1.md", "timeline/2026/01/02.md"} <= set(result.changed_files)
    assert git(ws, "log", "-1", "--format=%s").strip() == "write: batch 1"
    assert git(ws, "rev-parse", "HEAD").strip() == result.commit and git_agrees(ws)
    [record] = ws.audit_log()
    assert record["kind"] == "write" and record["commit"] == result.commit
    assert record["changed_files"] == result.changed_files and record["archived"] == ids
    runtime = json.loads((ws.runtime / "runtime.json").read_text())
    assert runtime["creation_order"] == {block.block_id: 0}


def test_a_human_paragraph_without_citation_is_archived_and_cited(seeded: Seeded) -> None:
    ws = seeded.ws
    text = ws.read_topic("people/ada.md").replace("## Work\n", "## Work\n\nAda prefers mornings.\n")
    result = save_topic(ws, "people/ada.md", text)
    assert result.outcome == "installed", result.diagnostics
    [manual] = result.archived
    assert manual.startswith("manual/") and any(f.startswith("sources/manual/_v2/") for f in result.changed_files)
    new = next(p for p in ws.topic("people/ada.md").blocks if p.content == "Ada prefers mornings.")
    assert new.block_id in result.created_blocks
    assert git_agrees(ws)


def test_unchanged_topics_keep_every_byte(seeded: Seeded) -> None:
    ws = seeded.ws
    odd = "# Odd\n\nLegacy   spacing.[^e-1]   ^abcd1234\n\n[^e-1]: 2026 \u00b7 Sources: [x](openprogram/s1/m0)\n"
    (ws.topics / "odd.md").write_text(odd)  # hand-placed, not canonical, never touched by us
    before = {p: ws.read_topic(p) for p in ws.topic_paths()}
    text = ws.read_topic("people/ada.md").replace("green tea", "jasmine tea")
    assert save_topic(ws, "people/ada.md", text).outcome == "installed"
    after = {p: ws.read_topic(p) for p in ws.topic_paths()}
    assert after.pop("people/ada.md") != before.pop("people/ada.md")
    assert after == before


def test_control_characters_in_an_edit_are_stored_visible_and_git_diffs_the_topic_as_text(seeded: Seeded) -> None:
    ws = seeded.ws
    text = ws.read_topic("people/ada.md").replace("green tea", "green\x00tea \x1b[31mred\x1b[0m\x9b")
    result = save_topic(ws, "people/ada.md", text)
    assert result.outcome == "installed", result.diagnostics
    stored = ws.read_topic("people/ada.md")
    assert "green\u2400tea \u241b[31mred\u241b[0m\u27e89B\u27e9" in stored
    numstat = git(ws, "diff", "--numstat", "HEAD~1", "HEAD", "--", "topics/people/ada.md")
    assert numstat.split()[:2] == ["1", "1"]  # counted lines: a text file, not "-\t-" (binary)


def test_a_moved_block_keeps_its_id_evidence_and_incoming_links(seeded: Seeded) -> None:
    ws = seeded.ws
    ada = ws.read_topic("people/ada.md")
    para = next(line for line in ada.splitlines() if line.endswith(f"^{seeded.ada[1]}"))
    with Transaction(ws, "sleep", "move the work block", evidence=()) as txn:
        txn.write_topic("people/ada.md", ada.replace(para, ""))
        txn.write_topic("work/ada-work.md", f"# Ada at work\n\n{para}\n")  # definition left behind
        result = txn.commit()
    assert result.outcome == "installed", result.diagnostics
    moved = ws.topic("work/ada-work.md")
    assert [p.block_id for p in moved.blocks] == [seeded.ada[1]] and moved.issues == []
    assert "../sources/openprogram/_v2/s1.md#source-" in moved.text  # rebased to the new folder
    cache = ws.read_topic("projects/cache.md")
    assert f"(../work/ada-work.md#^{seeded.ada[1]})" in cache  # the untouched topic's link repointed
    assert set(result.changed_topics) == {"topics/people/ada.md", "topics/work/ada-work.md", "topics/projects/cache.md"}
    assert git_agrees(ws)


def test_retirement_is_explicit_recorded_and_needs_links_repointed(seeded: Seeded) -> None:
    ws = seeded.ws
    linked = retire_block(ws, "people/ada.md", seeded.ada[1], "Ada handed the cache over")
    assert linked.outcome == "rejected" and {d.rule for d in linked.diagnostics} == {"link-resolves"}

    with Transaction(ws, "edit", "retire and repoint") as txn:
        ada = txn.read_topic("people/ada.md")
        txn.write_topic("people/ada.md", "\n".join(l for l in ada.split("\n") if not l.endswith(f"^{seeded.ada[1]}")))
        cache = txn.read_topic("projects/cache.md")
        txn.write_topic("projects/cache.md", cache.replace(f"#^{seeded.ada[1]}", f"#^{seeded.ada[0]}"))
        txn.retire(seeded.ada[1], "Ada handed the cache over")
        result = txn.commit()
    assert result.outcome == "installed", result.diagnostics
    assert result.retired == [{"id": seeded.ada[1], "reason": "Ada handed the cache over",
                               "file": "topics/people/ada.md", "at": result.retired[0]["at"]}]
    assert seeded.ada[1] in json.loads((ws.runtime / "retired.json").read_text())
    assert ws.audit_log()[0]["retired"][0]["reason"] == "Ada handed the cache over"
    relations = json.loads((ws.root / "relations.json").read_text())
    assert relations["backlinks"] == {seeded.ada[0]: [seeded.cache]}

    simple = retire_block(ws, "people/ada.md", seeded.ada[0], "wrong")
    assert simple.outcome == "rejected"  # still linked from the cache topic
    assert retire_block(ws, "core.md", ws.topic("core.md").blocks[0].block_id, "obsolete").outcome == "installed"
    assert not (ws.topics / "core.md").exists() and not (ws.root / "core.md").exists()


def test_preview_shows_the_diff_and_installs_nothing(seeded: Seeded) -> None:
    ws = seeded.ws
    before = snapshot(ws)
    with Transaction(ws, "sleep", "tidy", preview=True, evidence=()) as txn:
        txn.write_topic("people/ada.md", ws.read_topic("people/ada.md").replace("green tea", "tea"))
        result = txn.commit()
    assert result.outcome == "previewed" and result.commit is None
    assert "-Ada likes green tea." in result.diff and "+Ada likes tea." in result.diff
    assert snapshot(ws) == before


def test_reset_gives_a_repair_attempt_a_clean_stage(seeded: Seeded) -> None:
    ws = seeded.ws
    with Transaction(ws, "write", "repair", lock_timeout=1.0) as txn:
        txn.archive([session_record("s9", "x", "user", "hello", DAY)])
        txn.write_topic("people/ada.md", "broken")
        assert txn.check().outcome == "rejected"
        txn.reset()
        assert txn.read_topic("people/ada.md") == ws.read_topic("people/ada.md")
        txn.write_topic("greetings.md", "Someone said hello.[^e1]\n\n[^e1]: Time: `2026-01-02`; Sources: [hi](openprogram/s9/x)\n")
        result = txn.commit()
    assert result.outcome == "installed" and result.changed_topics == ["topics/greetings.md"]


def test_the_lock_is_exclusive_and_busy_is_retryable(seeded: Seeded) -> None:
    ws = seeded.ws
    with Transaction(ws, "edit", "hold"):
        with pytest.raises(LockBusy) as busy:
            with Transaction(Workspace(ws.state_dir), "edit", "second", lock_timeout=0.2):
                pass
    assert busy.value.retryable


def test_views_stay_exact_when_topics_change_behind_the_transactions_back(seeded: Seeded) -> None:
    ws = seeded.ws
    ada = ws.read_topic("people/ada.md")
    (ws.topics / "people/ada.md").write_text(ada.replace("`2026-01-02`", "`2026-02-03`", 1))  # a hand edit on disk
    cache = ws.read_topic("projects/cache.md").replace("sized by", "sized for")
    assert save_topic(ws, "projects/cache.md", cache).outcome == "installed"
    moved = (ws.root / "timeline/2026/02/03.md").read_text()
    assert "Ada likes green tea." in moved and "Ada likes green tea." not in (ws.root / "timeline/2026/01/02.md").read_text()
    docs = {rel: ws.topic(rel) for rel in ws.topic_paths()}
    full = {path: data for path, data in derived.timeline(docs).items()}
    on_disk = {f"timeline/{p.relative_to(ws.root / 'timeline').as_posix()}": p.read_bytes()
               for p in (ws.root / "timeline").rglob("*.md")}
    assert on_disk == full  # what the incremental rebuild left equals a full rebuild
    assert git(ws, "status", "--porcelain") == " M topics/people/ada.md\n"  # the save commits only its own paths


def test_an_openprogram_workspace_opens_unchanged_and_stays_editable(tmp_path: Path) -> None:
    mem = tmp_path / "state" / "memory"
    rec = session_record("0a1b2c3d4e5f", "u1", "user", "I like tea", DAY)
    archive, _ = plan_append(None, archive_path(rec.source_id), [rec])
    (mem / "sources/openprogram/_v2").mkdir(parents=True)
    (mem / archive_path(rec.source_id)).write_bytes(archive)
    anchor = f"../../sources/openprogram/_v2/0a1b2c3d4e5f.md#{anchor_for(rec.source_id)}"
    topic = (f"# Ada\n\n## Drinks\n\nAda likes tea.[^e-bf932905b9] ^37808b66\n\n"
             f"[^e-bf932905b9]: Time: `2026-01-02`; Sources: [Tea preference]({anchor})\n")
    (mem / "topics/people").mkdir(parents=True)
    (mem / "topics/people/ada.md").write_text(topic)
    subprocess.run(["git", "init", "-q"], cwd=mem, check=True)
    subprocess.run(["git", "add", "-A"], cwd=mem, check=True)
    subprocess.run(["git", "-c", "user.name=OpenProgram Memory", "-c", "user.email=memory@openprogram.local",
                    "commit", "-qm", "memory: initialize history"], cwd=mem, check=True)
    files = {p: p.read_bytes() for p in mem.rglob("*") if p.is_file() and ".git" not in p.parts}

    ws = Workspace.open(tmp_path / "state")
    assert {p: p.read_bytes() for p in files} == files
    assert save_topic(ws, "people/bob.md", "# Bob\n\nBob is Ada's colleague.\n").outcome == "installed"
    assert (mem / "topics/people/ada.md").read_text() == topic and (mem / archive_path(rec.source_id)).read_bytes() == archive
    edited = save_topic(ws, "people/ada.md", topic.replace("likes tea", "likes green tea"))
    assert edited.outcome == "installed", edited.diagnostics
    assert ws.topic("people/ada.md").blocks[0].block_id == "37808b66" and git_agrees(ws)


def test_counters_join_the_install_only_when_it_changes_a_topic(ws: Workspace) -> None:
    from scriptorium.core.paths import StatePaths
    from scriptorium.core.runtime_state import load_runtime
    from scriptorium.core.writer.counters import batch_written

    def counters() -> tuple[int, int, int]:
        state = load_runtime(StatePaths(ws.state_dir))
        return state["local_batches"], state["local_tokens"], state["write_commits_since_global"]

    text = ("# Ada\n\nAda likes tea.[^e1]\n\n"
            "[^e1]: Time: `2026-01-02`; Sources: [tea](openprogram/s1/m0)\n")
    with Transaction(ws, "write", "rejected batch") as txn:
        txn.archive(records(n=1))
        txn.count(batch_written(700))
        txn.write_topic("people/ada.md", "# Ada\n\nAda likes tea, uncited.\n")
        assert txn.commit().outcome == "rejected"
    assert counters() == (0, 0, 0)  # a rejection changes no byte, counters included
    with Transaction(ws, "write", "batch 1") as txn:
        txn.archive(records(n=1))
        txn.count(batch_written(700))
        txn.write_topic("people/ada.md", text)
        result = txn.commit()
    assert result.outcome == "installed" and counters() == (1, 700, 1)
    assert "runtime.json" not in " ".join(result.changed_files)  # runtime files are installed, not shown
    with Transaction(ws, "write", "no progress") as txn:
        txn.count(batch_written(300))
        assert txn.commit().changed_topics == []
    assert counters() == (1, 700, 1)  # nothing written: not counted
