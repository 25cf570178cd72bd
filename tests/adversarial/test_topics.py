"""Hostile topic files: YAML front matter, duplicate block ids, dangling links and
citations without a footnote definition — typed by a human, or arriving on disk from
outside (an editor, a `git pull`). A human edit is refused by rule; a damaged file on
disk is left exactly as it is by every other install, and a writer cannot extend it
(the batch fails permanently and stays pending)."""

from __future__ import annotations

import json
import subprocess

import pytest

from scriptorium.core.sessions.marker import pending
from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.paths import StatePaths
from scriptorium.core.writer import write
from stress.world import MODEL, recorder, workspace_problems
from writer.scripted import scripted

from .conftest import marked, memory_files, nothing_lost, talk


@pytest.fixture()
def written(store):
    """A session written into one valid topic; returns (sid, topic path, its block line, its definition)."""
    recorder()
    sid = store.create_session("seed")
    talk(store, sid, ["which rack holds the runners?", "the basement rack"])
    assert write(store, sid, force=True, model=MODEL).outcome == "ok"
    rel = f"stress/{sid}-0.md"
    lines = Workspace(store.state_dir).read_topic(rel).splitlines()
    block = next(line for line in lines if line.startswith("Hand-over"))
    definition = next(line for line in lines if line.startswith("[^e-"))
    return sid, rel, block, definition


def damaged_files(definition: str) -> dict[str, str]:
    source = definition.split("](", 1)[1].rstrip(")").replace("../../", "../")  # from topics/, not topics/stress/
    cite = definition.split("]:")[0][2:]
    evidence = f"[^{cite}]: Time: `2026-01-02`; Sources: [rack]({source})\n"
    return {
        "front.md": "---\ntitle: Runners\ntags: [ops]\n---\n\n# Runners\n",
        "dangling.md": f"# Links\n\nSee [the rack](stress/elsewhere.md#^0badc0de).[^{cite}] ^1a2b3c4d\n\n{evidence}",
        "copy.md": f"# Copy\n\nThe rack holds the runners.[^{cite}] ^1a2b3c4d\n\n{evidence}",  # dangling.md's id again
        "footnote.md": "# Missing\n\nThe spare disks are on shelf two.[^e-0123456789] ^5e6f7a8b\n",
    }


def land_from_outside(store, files: dict[str, str]) -> None:
    """Files written and committed behind Scriptorium's back, as a `git pull` would."""
    root = StatePaths(store.state_dir).memory
    for rel, text in files.items():
        (root / "topics" / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "pulled"], check=True)


def test_damaged_topics_on_disk_are_left_alone_by_every_other_install(store, written):
    sid, _rel, _block, definition = written
    land_from_outside(store, damaged_files(definition))
    problems = workspace_problems(store.state_dir)
    for name in ("front.md", "copy.md", "dangling.md", "footnote.md"):
        assert any(f"topics/{name}" in p for p in problems), name  # really damaged
    topics = StatePaths(store.state_dir).memory / "topics"
    damaged = {p.name: p.read_bytes() for p in topics.glob("*.md")}
    human = save_topic(Workspace(store.state_dir), "people/lin.md", "# Lin\n\nLin racks the new runners.\n")
    assert human.outcome == "installed"
    talk(store, sid, ["and the spare disks?", "second shelf"])
    assert write(store, sid, force=True, model=MODEL).code == "WRITTEN"
    assert {p.name: p.read_bytes() for p in topics.glob("*.md")} == damaged


@pytest.mark.parametrize("target", ["dangling.md", "own"])
def test_a_writer_cannot_extend_a_damaged_topic(store, written, target):
    """A dangling link in the file, or its block id duplicated in another file: the
    batch is rejected twice (one repair) and stays pending, the error names the rule."""
    sid, rel, block, definition = written
    files = damaged_files(definition)
    if target == "own":
        files["twin.md"] = f"# Twin\n\n{block}\n\n{definition.replace('../../', '../')}\n"
        target, expected = rel, "block-id-unique"
    else:
        expected = "link-resolves"
    land_from_outside(store, files)
    new = talk(store, sid, ["what links to the rack?", "nothing yet"])

    def extend(messages):
        ref = next(json.loads(line)["ref"] for line in messages[1]["content"].splitlines() if line.startswith('{"ref"'))
        text = (StatePaths(store.state_dir).memory / "topics" / target).read_text()
        return [("write_file", {"path": target, "content": text + "\nNothing links to the rack yet.[^e1]\n\n"
                                f"[^e1]: Time: `2026-01-02`; Sources: [links]({ref})\n"})]

    _model, name = scripted([extend, "done", extend, "done"])
    before = memory_files(store)
    result = write(store, sid, force=True, model=name)
    assert (result.outcome, result.code) == ("permanent", "COMMIT_REJECTED") and expected in result.message
    assert nothing_lost(before, memory_files(store))
    assert not marked(store, sid) & set(new) and [t.id for t in pending(store, sid)] == new


@pytest.mark.parametrize("text,rule,words", [
    ("---\ntitle: Lin\n---\n\n# Lin\n\nLin racks the runners.\n", "parse", "front matter"),
    ("# Lin\n\nLin racks the runners.[^e7]\n", "parse", "undefined footnote: e7"),
])
def test_a_human_edit_with_front_matter_or_a_missing_footnote_is_refused(store, written, text, rule, words):
    before = memory_files(store)
    result = save_topic(Workspace(store.state_dir), "people/lin.md", text)
    assert result.outcome == "rejected"
    assert [(d.rule, d.file) for d in result.diagnostics] == [(rule, "topics/people/lin.md")]
    assert words in result.diagnostics[0].message and result.diagnostics[0].hint
    assert memory_files(store) == before
