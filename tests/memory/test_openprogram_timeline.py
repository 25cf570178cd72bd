"""The first edit on a workspace OpenProgram built changes only what the edit is about (issue 30).

OpenProgram renders a timeline entry's quote with its links verbatim (relative to the
topic); Scriptorium rebases them to the timeline file. The files of dates an edit does
not touch keep OpenProgram's rendering: a timeline file is rewritten only for a date the
edit is about, or when its facts differ from the topics (a hand edit behind our back).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from scriptorium.core.memory import Workspace, derived, save_topic
from scriptorium.core.memory.sources import anchor_for, archive_path, plan_append, session_record
from scriptorium.core.memory.topics import parse_topic

from .support import DAY

SID = "0a1b2c3d4e5f"
ARCHIVE = f"../../sources/openprogram/_v2/{SID}.md"


def cite(n: int) -> str:
    return f"{ARCHIVE}#{anchor_for(f'openprogram/{SID}/u{n}')}"


TOPICS = {
    "people/ada.md": ("# Ada\n\nAda likes tea with [Bob](bob.md).[^e-a1] ^a1a1a1a1\n\n"
                      "Ada moved to Lyon.[^e-a2] ^a2a2a2a2\n\n"
                      f"[^e-a1]: Time: `2026-01-02`; Sources: [Tea]({cite(1)})\n"
                      f"[^e-a2]: Time: `2026-02-03`; Sources: [Move]({cite(2)})\n"),
    "people/bob.md": ("# Bob\n\nBob rides a bike.[^e-b1] ^b1b1b1b1\n\n"
                      f"[^e-b1]: Time: `2026-01-05`; Sources: [Bike]({cite(3)})\n"),
    "projects/cache.md": ("# Cache\n\nThe cache is sized by [Ada](../people/ada.md).[^e-c1] ^c1c1c1c1\n\n"
                          f"[^e-c1]: Time: `2026-03`; Sources: [Size]({cite(4)})\n"),
}
# Where OpenProgram's verbatim quote links differ from the rebased ones.
VERBATIM = {"](../../../topics/people/bob.md)": "](bob.md)", "](../../topics/people/ada.md)": "](../people/ada.md)"}


def openprogram_workspace(state: Path) -> Path:
    """A memory OpenProgram built: topics, the archive, its timeline (quote links verbatim), one commit."""
    mem = state / "memory"
    recs = [session_record(SID, f"u{n}", "user", f"turn {n}", DAY + n) for n in range(1, 5)]
    archive, _ = plan_append(None, archive_path(recs[0].source_id), recs)
    (mem / "sources/openprogram/_v2").mkdir(parents=True)
    (mem / archive_path(recs[0].source_id)).write_bytes(archive)
    for rel, text in TOPICS.items():
        (mem / "topics" / rel).parent.mkdir(parents=True, exist_ok=True)
        (mem / "topics" / rel).write_text(text)
    for path, data in derived.timeline({rel: parse_topic(rel, t) for rel, t in TOPICS.items()}).items():
        assert data is not None
        text = data.decode()
        for ours, theirs in VERBATIM.items():
            text = text.replace(ours, theirs)
        (mem / path).parent.mkdir(parents=True, exist_ok=True)
        (mem / path).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=mem, check=True)
    subprocess.run(["git", "add", "-A"], cwd=mem, check=True)
    subprocess.run(["git", "-c", "user.name=OpenProgram Memory", "-c", "user.email=memory@openprogram.local",
                    "commit", "-qm", "memory: initialize history"], cwd=mem, check=True)
    return mem


def timeline_files(mem: Path) -> dict[str, bytes]:
    return {p.relative_to(mem).as_posix(): p.read_bytes() for p in sorted((mem / "timeline").rglob("*.md"))}


def test_the_first_edit_rewrites_only_the_timeline_files_of_the_dates_it_touches(tmp_path: Path) -> None:
    mem = openprogram_workspace(tmp_path / "state")
    before = timeline_files(mem)
    assert b"](bob.md)" in before["timeline/2026/01/02.md"] and b"](../people/ada.md)" in before["timeline/2026/03.md"]
    ws = Workspace.open(tmp_path / "state")
    edited = save_topic(ws, "people/bob.md", TOPICS["people/bob.md"].replace("rides a bike", "rides a red bike"))
    assert edited.outcome == "installed", edited.diagnostics
    after = timeline_files(mem)
    assert {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)} == {"timeline/2026/01/05.md"}
    assert b"Bob rides a red bike." in after["timeline/2026/01/05.md"]
    assert not [p for p in edited.changed_files if p.startswith("timeline/") and p != "timeline/2026/01/05.md"]


def test_a_hand_edit_behind_our_back_is_still_followed_on_the_first_build(tmp_path: Path) -> None:
    mem = openprogram_workspace(tmp_path / "state")
    ada = mem / "topics/people/ada.md"
    ada.write_text(ada.read_text().replace("`2026-02-03`", "`2026-02-04`"))  # not through a transaction
    before = timeline_files(mem)
    ws = Workspace.open(tmp_path / "state")
    assert save_topic(ws, "people/bob.md", TOPICS["people/bob.md"].replace("a bike", "a red bike")).outcome == "installed"
    after = timeline_files(mem)
    assert "timeline/2026/02/03.md" not in after and b"Ada moved to Lyon." in after["timeline/2026/02/04.md"]
    assert after["timeline/2026/03.md"] == before["timeline/2026/03.md"]  # untouched, OpenProgram's rendering kept
    docs = {rel: ws.topic(rel) for rel in ws.topic_paths()}
    full = derived.timeline(docs)
    assert {p: derived.timeline_facts(d) for p, d in after.items()} == {
        p: derived.timeline_facts(d) for p, d in full.items() if d is not None}
