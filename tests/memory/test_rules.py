"""One rejection per rule: it names the rule and the line, and leaves the workspace —
every file, and git HEAD — byte-identical."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from scriptorium.core.memory import RULES, Transaction, TransactionResult
from scriptorium.core.memory.sources import session_record

from .support import DAY, Seeded, snapshot

Edit = Callable[[Transaction, Seeded], None]


def replace(txn: Transaction, topic: str, old: str, new: str) -> None:
    text = txn.read_topic(topic)
    assert text is not None and old in text
    txn.write_topic(topic, text.replace(old, new))


def tamper_sources(txn: Transaction, s: Seeded) -> None:
    path = txn.sources_dir / "openprogram/_v2/s1.md"
    assert path.stat().st_mode & 0o777 == 0o444  # read-only at the file-system level
    os.chmod(path, 0o644)  # only an owner who insists (or root) gets past that
    lines = path.read_text().split("\n")
    index = next(k for k, line in enumerate(lines) if "turn 0 of s1" in line)
    assert index == 7  # 1-based line 8
    lines[index] = lines[index].replace("turn 0", "turn zero")
    path.write_text("\n".join(lines))


def drop_block(txn: Transaction, s: Seeded) -> None:
    text = txn.read_topic("people/ada.md")
    txn.write_topic("people/ada.md", "\n".join(line for line in text.split("\n") if not line.endswith(f"^{s.ada[0]}")))


def duplicate_block(txn: Transaction, s: Seeded) -> None:
    ada = txn.read_topic("people/ada.md")
    para = next(line for line in ada.splitlines() if line.endswith(f"^{s.ada[0]}"))
    defs = "\n".join(line for line in ada.splitlines() if line.startswith("[^"))
    txn.write_topic("people/copy.md", f"# Copy\n\n{para}\n\n{defs}\n")


def retire_but_keep(txn: Transaction, s: Seeded) -> None:
    txn.retire(s.ada[0], "duplicate of another block")


def dangling_link(txn: Transaction, s: Seeded) -> None:
    replace(txn, "projects/cache.md", f"#^{s.ada[1]}", "#^0badc0de")


def remove_linked_block(txn: Transaction, s: Seeded) -> None:
    text = txn.read_topic("people/ada.md")
    kept = [line for line in text.splitlines() if not line.endswith(f"^{s.ada[1]}")]
    txn.write_topic("people/ada.md", "\n".join(kept) + "\n")
    txn.retire(s.ada[1], "no longer true")


def missing_source(txn: Transaction, s: Seeded) -> None:
    replace(txn, "people/ada.md", "source-8e744b7ce27c4f83", "source-0000000000000000")


def outside_batch(txn: Transaction, s: Seeded) -> None:
    txn.archive([session_record("s2", "n0", "user", "a new batch", DAY + 3600)])
    text = txn.read_topic("people/ada.md")
    txn.write_topic("people/ada.md", text + "\nAda also likes coffee.[^e1]\n\n"
                    "[^e1]: Time: `2026-01-02`; Sources: [coffee](openprogram/s1/m0)\n")


def cite_pending(txn: Transaction, s: Seeded) -> None:
    hearsay = session_record("s3", "n0", "user", "Ada owns a boat.", DAY + 7200)
    txn.archive([dataclasses.replace(hearsay, speaker_id="guest/bob", speaker_display="Bob", speaker_kind="human",
                                     principal_id="guest/bob", authority_tier=None, trust_state="pending")])
    text = txn.read_topic("people/ada.md")
    txn.write_topic("people/ada.md", text + "\nAda owns a boat.[^e9]\n\n"
                    "[^e9]: Time: `2026-01-02`; Sources: [boat](openprogram/s3/n0)\n")


def citation_only(txn: Transaction, s: Seeded) -> None:
    text = txn.read_topic("people/ada.md")
    txn.write_topic("people/ada.md", text + "\n[^e7]\n\n[^e7]: Time: `2026-01-02`; Sources: [tea](openprogram/s1/m0)\n")


def uncited_writer_paragraph(txn: Transaction, s: Seeded) -> None:
    replace(txn, "people/ada.md", "## Work\n", "## Work\n\nAda is very busy.\n")


def bad_utf8(txn: Transaction, s: Seeded) -> None:
    (txn.topics_dir / "people/ada.md").write_bytes(b"# Ada\n\n\xff\xfe broken\n")


def malformed_definition(txn: Transaction, s: Seeded) -> None:
    replace(txn, "people/ada.md", "Time: `2026-01-02`; Sources: [tea]", "Sources: [tea]")


def stale_base(txn: Transaction, s: Seeded) -> None:
    txn.write_topic("people/ada.md", txn.read_topic("people/ada.md") + "\n", base="# Ada\n\nwhat I saw earlier\n")


CASES: list[tuple[str, str, Edit, str, str, int | None]] = [
    # (name, kind, edit, rule, file, line)
    ("sources", "edit", tamper_sources, "sources-append-only", "sources/openprogram/_v2/s1.md", 8),
    ("id-kept", "edit", drop_block, "block-id-kept", "topics/people/ada.md", 5),
    ("id-unique", "edit", duplicate_block, "block-id-unique", "topics/people/copy.md", 3),
    ("retire", "edit", retire_but_keep, "retire", "topics/people/ada.md", 5),
    ("link", "edit", dangling_link, "link-resolves", "topics/projects/cache.md", 3),
    ("link-removed", "edit", remove_linked_block, "link-resolves", "topics/projects/cache.md", 3),
    ("citation", "edit", missing_source, "citation-exists", "topics/people/ada.md", 7),
    ("batch", "write", outside_batch, "citation-in-batch", "topics/people/ada.md", 15),
    ("trusted", "edit", cite_pending, "citation-trusted", "topics/people/ada.md", 15),
    ("required", "write", uncited_writer_paragraph, "citation-required", "topics/people/ada.md", 11),
    ("utf8", "edit", bad_utf8, "parse", "topics/people/ada.md", 3),
    ("definition", "edit", malformed_definition, "parse", "topics/people/ada.md", 7),
    ("no-words", "edit", citation_only, "parse", "topics/people/ada.md", 15),
    ("conflict", "edit", stale_base, "conflict", "topics/people/ada.md", None),
]


def test_every_rule_has_a_case() -> None:
    assert {case[3] for case in CASES} == set(RULES)


@pytest.mark.parametrize("name,kind,edit,rule,file,line", CASES, ids=[c[0] for c in CASES])
def test_rejection_names_rule_and_line_and_changes_nothing(
    seeded: Seeded, name: str, kind: str, edit: Edit, rule: str, file: str, line: int | None,
) -> None:
    ws = seeded.ws
    before = snapshot(ws)
    with Transaction(ws, kind, f"break {name}") as txn:
        edit(txn, seeded)
        result: TransactionResult = txn.commit()
    assert result.outcome == "rejected" and result.commit is None and result.changed_files == []
    assert (rule, file, line) in {(d.rule, d.file, d.line) for d in result.diagnostics}, result.diagnostics
    assert all(d.message and d.hint for d in result.diagnostics)
    assert snapshot(ws) == before
    assert not any(Path(ws.root).glob(".scriptorium-block-backup*"))
