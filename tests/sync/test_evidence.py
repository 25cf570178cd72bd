"""The evidence union: each record once, nothing rewritten."""

from scriptorium.core.memory.sources import archive_path, plan_append, scan_archive, session_record
from scriptorium.core.sync.evidence import merge_archives


def rec(node: str, text: str):
    return session_record("s1", node, "user", text, 1_700_000_000.0)


REL = archive_path(rec("n1", "x").source_id)


def archive(*records, existing: bytes | None = None) -> bytes:
    data, _ = plan_append(existing, REL, records)
    return data


def test_records_only_the_remote_has_are_appended_once():
    base = archive(rec("n1", "first"))
    ours = archive(rec("n2", "ours"), existing=base)
    theirs = archive(rec("n3", "theirs"), rec("n2", "ours"), existing=base)
    out = merge_archives({REL: base}, {REL: ours}, {REL: theirs})
    assert out.errors == [] and out.added == 1
    merged = scan_archive(out.archives[REL], REL)
    assert merged.complete
    # theirs holds every record of ours as it is: taken whole, their order too (the machines converge)
    assert [f.source_id for f in merged.frames] == ["openprogram/s1/n1", "openprogram/s1/n3", "openprogram/s1/n2"]
    assert out.archives[REL] == theirs
    again = merge_archives({REL: base}, {REL: out.archives[REL]}, {REL: theirs})
    assert again.archives == {} and again.added == 0


def test_an_archive_only_the_remote_has_is_taken_whole():
    theirs = archive(rec("n1", "first"))
    out = merge_archives({}, {}, {REL: theirs})
    assert out.archives == {REL: theirs} and out.added == 1


def test_a_rewritten_record_is_refused():
    base = archive(rec("n1", "the truth"))
    forged = base.replace(b"the truth", b"a lie")
    out = merge_archives({REL: base}, {REL: base}, {REL: forged})
    assert out.archives == {} or REL not in out.archives or b"a lie" not in out.archives[REL]
    assert any("rewritten" in why or "differs" in why for _rel, why in out.errors)


def test_a_truncated_incoming_archive_is_refused():
    theirs = archive(rec("n1", "first"))[:-40]
    out = merge_archives({}, {}, {REL: theirs})
    assert out.archives == {} and out.errors and out.errors[0][0] == REL
