"""formats §4.6: a root `core.md` from before `topics/` existed is promoted into
`topics/core.md` (links rebased) by the next transaction — when the result passes."""

from __future__ import annotations

from scriptorium.core.memory import Workspace, save_topic

from .support import Seeded, git_agrees


def legacy_layout(ws: Workspace, core_text: str) -> None:
    """The workspace as an early OpenProgram left it: a hand-kept root core.md, no topics/core.md."""
    repo = ws.repo
    repo.git.rm("-q", "topics/core.md")
    (ws.root / "core.md").write_text(core_text)
    repo.git.add("core.md")
    repo.git.commit("-q", "-m", "legacy layout")


def anchor_of_s1(ws: Workspace) -> str:
    return (ws.root / "sources/openprogram/_v2/s1.md").read_text().split('<a id="')[1].split('"')[0]


def unrelated_edit(ws: Workspace):
    return save_topic(ws, "people/ada.md", ws.read_topic("people/ada.md").replace("green tea", "mint tea"))


def test_a_legacy_core_is_promoted_with_its_links_rebased(seeded: Seeded) -> None:
    ws = seeded.ws
    anchor = anchor_of_s1(ws)
    legacy_layout(ws, "# Core\n\nAda drinks tea every morning.[^e1]\n\n"
                      f"[^e1]: Time: `2026-01-02`; Sources: [tea](sources/openprogram/_v2/s1.md#{anchor})\n")

    result = unrelated_edit(ws)

    assert result.outcome == "installed", result.diagnostics
    canonical = ws.read_topic("core.md")
    assert canonical is not None and "Ada drinks tea every morning." in canonical
    assert f"(../sources/openprogram/_v2/s1.md#{anchor})" in canonical  # rebased from the root into topics/
    block = ws.topic("core.md").blocks[0].block_id
    assert block and f"^{block}" in (ws.root / "core.md").read_text()  # the root file is now the render
    assert "topics/core.md" in result.changed_files
    assert git_agrees(ws)


def test_a_legacy_core_that_would_not_pass_stays_and_the_edit_installs(seeded: Seeded) -> None:
    ws = seeded.ws
    legacy = ("# Core\n\nAda drinks tea.[^e1]\n\n"
              "[^e1]: Time: `2026-01-02`; Sources: [tea](sources/openprogram/_v2/s1.md#source-0000000000000000)\n")
    legacy_layout(ws, legacy)

    result = unrelated_edit(ws)

    assert result.outcome == "installed", result.diagnostics
    assert ws.read_topic("core.md") is None
    assert (ws.root / "core.md").read_text() == legacy
    assert git_agrees(ws)


def test_a_core_deleted_by_hand_is_not_brought_back_from_its_render(seeded: Seeded) -> None:
    ws = seeded.ws
    rendered = (ws.root / "core.md").read_text()
    assert rendered.strip()
    (ws.topics / "core.md").unlink()  # outside any transaction; the last commit still has it

    result = unrelated_edit(ws)

    assert result.outcome == "installed", result.diagnostics
    assert ws.read_topic("core.md") is None
    assert not (ws.root / "core.md").exists()  # the render goes with its canonical file
