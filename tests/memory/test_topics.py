"""The topic model (formats §3) and the runtime's normalization (§4.5)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scriptorium.core.memory import parse_topic
from scriptorium.core.memory.normalize import Context, Normalizer, block_id_for, evidence_id_for, prune

SOURCE = "../sources/openprogram/_v2/s1.md#source-8e744b7ce27c4f83"


def normalizer(committed: set[str] = frozenset(), manual_at: float | None = None) -> Normalizer:
    return Normalizer(Context(committed=set(committed), home=lambda bid: None, taken=set(committed),
                              frame_exists=lambda rel, anchor: True, manual_at=manual_at))


def test_ids_derive_exactly_as_the_reference_does() -> None:
    assert block_id_for("core.md", "The user is Ada.[^e1]", 0) == "7e548937"
    assert evidence_id_for("undated", "openprogram/0a1b2c3d4e5f/u1", 0) == "e-bf932905b9"
    out = normalizer().normalize("core.md", "The user is Ada.[^e1]\n\n[^e1]: Time: `undated`; Sources: [who](openprogram/0a1b2c3d4e5f/u1)\n")
    assert out.assigned == ["7e548937"]
    assert out.text == ("The user is Ada.[^e-bf932905b9] ^7e548937\n\n[^e-bf932905b9]: Time: `undated`; Sources: "
                        "[who](../sources/openprogram/_v2/0a1b2c3d4e5f.md#source-" + out.text.split("#source-")[1])


def test_blocks_citations_links_and_lines() -> None:
    doc = parse_topic("people/ada.md", (
        "# Ada\n\n## Drinks\n\n"
        "Ada likes tea.[^e-1] She met [Bob](bob.md#^abcd1234), see `[^not-a-citation]`.[^e-2] ^37808b66\n\n"
        f"[^e-1]: Time: `2026-01-02`; Sources: [tea]({SOURCE})\n"
        f"[^e-2]: Time: `2026-01`; Sources: [greeting]({SOURCE})\n"
    ))
    assert doc.issues == []
    [block] = doc.blocks
    assert (block.block_id, block.line, block.headings) == ("37808b66", 5, ("Ada", "Drinks"))
    assert [c.id for c in block.citations] == ["e-1", "e-2"]
    assert [(path, bid) for _link, path, bid in block.block_refs()] == [("bob.md", "abcd1234")]
    assert [c.text for c in block.claims][0] == "Ada likes tea."
    assert doc.definitions["e-2"].when == "2026-01" and doc.definitions["e-1"].line == 7


def test_parse_problems_are_issues_with_lines() -> None:
    doc = parse_topic("t.md", (
        "Intro prose without evidence.\n\n"
        "A claim.[^e-9] trailing words ^abcd1234\n\n"
        "Bad id.[^e-1] ^bad_id!\n\n"
        f"[^e-1]: Time: `2026-02-30`; Sources: [x]({SOURCE})\n"
        "[^e-2]: Time: whenever\n"
    ))
    got = {(i.rule, i.line, i.message.split(":")[0]) for i in doc.issues}
    assert ("citation-required", 1, "memory block ID required") in got
    assert ("parse", 3, "content after final evidence") in got
    assert ("parse", 3, "undefined footnote") in got
    assert ("parse", 5, "invalid block_id") in got
    assert ("parse", 7, "invalid evidence date") in got
    assert ("parse", 8, "malformed footnote definition") in got


_word = st.text(st.sampled_from("abcdefghij KLMNOP"), min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def canonical_topics(draw: st.DrawFn) -> tuple[str, set[str]]:
    lines, ids, n = [f"# {draw(_word)}"], set(), 0
    for _section in range(draw(st.integers(1, 3))):
        lines += ["", f"## {draw(_word)}"]
        for _block in range(draw(st.integers(1, 3))):
            claims, defs = [], []
            for _claim in range(draw(st.integers(1, 2))):
                n += 1
                eid = f"e-{n:010x}"
                claims.append(f"{draw(_word)}.[^{eid}]")
                when = draw(st.sampled_from(["2026", "2026-01", "2026-01-02", "undated"]))
                defs.append(f"[^{eid}]: Time: `{when}`; Sources: [{draw(_word)}]({SOURCE})")
            bid = f"{n:08x}"
            ids.add(bid)
            lines += ["", " ".join(claims) + f" ^{bid}", "", *defs]
    return "\n".join(lines) + "\n", ids


@settings(max_examples=60, deadline=None)
@given(canonical_topics())
def test_an_unchanged_canonical_topic_round_trips_byte_for_byte(topic: tuple[str, set[str]]) -> None:
    text, ids = topic
    doc = parse_topic("people/x.md", text)
    assert doc.render() == text and doc.issues == []
    assert {bid for bid, _line in doc.block_ids} == ids
    out = normalizer(ids).normalize("people/x.md", text)
    assert out.text == text and out.assigned == [] and out.manual == []
    assert prune("people/x.md", text) == text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_any_text_renders_back_unchanged(text: str) -> None:
    assert parse_topic("t.md", text).render() == text


def test_writer_output_is_normalized_and_then_stable() -> None:
    raw = (
        "# Ada\n\n"
        "Ada likes tea. [^e1] ^deadbeef\n\n"  # an invented id, a space before the citation
        "[^e1]: Time: 2026-01-02 ; Sources: [tea](openprogram/s1/m0)\n\n"
        "She also said hi.[^e1]\n\n"  # the writer numbers labels afresh per edit
        "[^e1]: Time: `undated`; Sources: [hi](openprogram/s1/m1)\n"
    )
    first = normalizer().normalize("people/ada.md", raw)
    doc = parse_topic("people/ada.md", first.text)
    assert doc.issues == [] and "deadbeef" not in first.text
    assert len(first.assigned) == 2 and len(doc.definitions) == 2
    assert first.origin[: len(raw.splitlines())] == list(range(1, len(raw.splitlines()) + 1))
    again = normalizer(set(first.assigned)).normalize("people/ada.md", first.text)
    assert again.text == first.text


def test_uncited_paragraph_of_a_person_gets_a_manual_source() -> None:
    out = normalizer(manual_at=1767312000.0).normalize("notes.md", "# Notes\n\nThe cache is 50 GB.\n\nMore later.\n")
    [a, b] = out.manual
    assert a.source_id.startswith("manual/2026-01-02/") and a.content == "The cache is 50 GB."
    doc = parse_topic("notes.md", out.text)
    assert doc.issues == [] and len(doc.blocks) == 2
    assert all("../sources/manual/_v2/2026-01-02.md#source-" in d.sources[0].target for d in doc.definition_list)
    assert out.editor_line(doc.blocks[1].line) == 5


def test_prune_drops_empty_headings_and_unused_definitions() -> None:
    text = (f"# A\n\n## Empty\n\n<!-- nothing here -->\n\n## Full\n\nFact.[^e-1] ^abcd0001\n\n"
            f"[^e-1]: Time: `2026`; Sources: [x]({SOURCE})\n[^e-2]: Time: `2026`; Sources: [y]({SOURCE})\n")
    assert prune("t.md", text) == (f"# A\n\n## Full\n\nFact.[^e-1] ^abcd0001\n\n"
                                   f"[^e-1]: Time: `2026`; Sources: [x]({SOURCE})\n")
    assert prune("t.md", "# Only a heading\n") is None
