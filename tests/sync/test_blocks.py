"""The block merge on its own: three versions of topics/ in, one merged set out."""

from scriptorium.core.memory.topics import parse_topic
from scriptorium.core.sync.blocks import CONFLICT_MARK, merge_topics

SRC = "../sources/openprogram/_v2/s1.md"


def topic(title: str, *blocks: tuple[str, str, str], src: str = SRC) -> str:
    """A canonical topic: (block id, text, footnote suffix) for each block."""
    paras = [f"{text}[^e-{fid:0>10}] ^{bid}" for bid, text, fid in blocks]
    defs = [f"[^e-{fid:0>10}]: Time: `2026-01-02`; Sources: [turn]({src}#source-{fid})" for _b, _t, fid in blocks]
    return f"# {title}\n\n" + "\n\n".join(paras) + "\n\n" + "\n".join(defs) + "\n"


def ids(text: str, path: str = "ada.md") -> list[str]:
    return [p.block_id for p in parse_topic(path, text).paragraphs if p.block_id]


BASE = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"), ("aaaa0002", "Ada lives in Paris.", "2"))}


def test_edits_of_different_blocks_on_each_side_are_both_kept():
    ours = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes green tea.", "1"), ("aaaa0002", "Ada lives in Paris.", "2"))}
    theirs = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"), ("aaaa0002", "Ada lives in Lyon.", "2")),
              "bob.md": topic("Bob", ("bbbb0001", "Bob plays chess.", "3"))}
    out = merge_topics(BASE, ours, theirs)
    assert not out.conflicts and not out.retire
    merged = out.topics["ada.md"]
    assert "Ada likes green tea." in merged and "Ada lives in Lyon." in merged
    assert ids(merged) == ["aaaa0001", "aaaa0002"]
    assert parse_topic("ada.md", merged).issues == []
    assert out.topics["bob.md"] == theirs["bob.md"]


def test_one_sided_changes_leave_our_file_alone_when_theirs_changed_nothing():
    ours = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes green tea.", "1"), ("aaaa0002", "Ada lives in Paris.", "2"))}
    out = merge_topics(BASE, ours, BASE)
    assert out.topics == {} and out.deleted == []


def test_the_same_block_edited_differently_is_a_conflict_keeping_both_texts():
    ours = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes green tea.", "1"), ("aaaa0002", "Ada lives in Paris.", "2"))}
    theirs = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes black tea.", "1"), ("aaaa0002", "Ada lives in Paris.", "2"))}
    out = merge_topics(BASE, ours, theirs, remote="origin")
    assert [(c.block_id, c.ours, c.theirs) for c in out.conflicts] == [
        ("aaaa0001", "Ada likes green tea.[^e-0000000001]", "Ada likes black tea.[^e-0000000001]")]
    merged = out.topics["ada.md"]
    doc = parse_topic("ada.md", merged)
    texts = [p.text for p in doc.paragraphs]
    assert texts[0].startswith("Ada likes green tea.")
    assert texts[1].startswith(f"{CONFLICT_MARK} (from origin) with [the local version](ada.md#^aaaa0001): "
                               "Ada likes black tea.")
    assert doc.paragraphs[1].block_id is None  # the transaction gives the incoming text its own id
    assert "Ada lives in Paris." in merged


def test_a_block_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited():
    ours = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1")),
            "people/paris.md": topic("Paris", ("aaaa0002", "Ada lives in Paris.", "2"), src="../" + SRC)}
    theirs = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"), ("aaaa0002", "Ada lives in Paris, 11e.", "2"))}
    out = merge_topics(BASE, ours, theirs)
    moved = out.topics["people/paris.md"]
    assert "Ada lives in Paris, 11e." in moved
    assert "(../../sources/openprogram/_v2/s1.md#source-2)" in moved  # evidence link rebased to the new depth
    assert "aaaa0002" not in out.topics.get("ada.md", ours["ada.md"])
    assert parse_topic("people/paris.md", moved).issues == []


def test_retired_on_one_side_and_edited_on_the_other_keeps_the_edit_and_reports_it():
    ours = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"))}
    theirs = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"), ("aaaa0002", "Ada lives in Rome.", "2"))}
    out = merge_topics(BASE, ours, theirs)
    assert "Ada lives in Rome." in out.topics["ada.md"]
    assert out.reports and "aaaa0002" in out.reports[0]
    assert not out.retire


def test_retired_on_one_side_and_untouched_on_the_other_is_retired():
    theirs = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"))}
    out = merge_topics(BASE, BASE, theirs)
    assert set(out.retire) == {"aaaa0002"}
    assert "aaaa0002" not in out.topics["ada.md"]
    assert parse_topic("ada.md", out.topics["ada.md"]).issues == []


def test_new_blocks_land_after_the_block_they_followed():
    theirs = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"), ("aaaa0003", "Ada has a cat.", "3"),
                              ("aaaa0002", "Ada lives in Paris.", "2"))}
    ours = {"ada.md": topic("Ada", ("aaaa0001", "Ada likes tea.", "1"), ("aaaa0002", "Ada lives in Paris.", "2"),
                            ("aaaa0004", "Ada reads Proust.", "4"))}
    out = merge_topics(BASE, ours, theirs)
    assert ids(out.topics["ada.md"]) == ["aaaa0001", "aaaa0003", "aaaa0002", "aaaa0004"]


def test_a_topic_deleted_on_one_side_and_untouched_on_the_other_goes():
    base = dict(BASE, **{"bob.md": topic("Bob", ("bbbb0001", "Bob plays chess.", "3"))})
    out = merge_topics(base, base, BASE)
    assert out.deleted == ["bob.md"] and set(out.retire) == {"bbbb0001"}
