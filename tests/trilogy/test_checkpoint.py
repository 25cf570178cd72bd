from pathlib import Path

from scriptorium.core.trilogy import checkpoint, memory_read, trilogy_paths, TrilogySettings
from scriptorium.core.trilogy.log import parse_log
from scriptorium.core.trilogy.templates import GENERAL_AREA

from .conftest import TODAY, sessions_log


def _paths(project: Path):
    return trilogy_paths(project, TrilogySettings())


def _run(project: Path, items, max_entries: int = 200):
    return checkpoint(_paths(project), items, max_entries=max_entries, today=TODAY)


def test_routing_by_kind(project: Path):
    result = _run(project, [
        {"kind": "project", "section": "State", "text": "- parser works"},
        {"kind": "session", "area": "parser", "done": "wrote the parser, verified by 12 tests", "open": "CJK", "next": "bench"},
        {"kind": "decision", "choice": "mistune", "chose": "mistune", "over": "regex: breaks on fences", "because": "fences"},
    ])
    assert result.refused == []
    assert sorted(result.changed_files) == ["DECISIONS.md", "PROJECT.md", "SESSIONS.md"]
    memory = project / "memory"
    state = memory_read(_paths(project), "PROJECT", "State")
    assert "- parser works" in state and "暂无" not in state
    sessions = (memory / "SESSIONS.md").read_text(encoding="utf-8")
    assert f"## {TODAY.isoformat()} · parser\nDone: wrote the parser, verified by 12 tests\nOpen: CJK\nNext: bench\n" in sessions
    decisions = (memory / "DECISIONS.md").read_text(encoding="utf-8")
    assert f"## {TODAY.isoformat()} — mistune\nChose: mistune\nOver: regex: breaks on fences\nBecause: fences\n" in decisions


def test_log_entries_are_prepended_newest_first(project: Path):
    for n in range(3):
        _run(project, [{"kind": "session", "done": f"step {n}", "date": f"2026-09-0{n + 1}"}])
    entries = parse_log((project / "memory" / "SESSIONS.md").read_text(encoding="utf-8")).entries
    assert [e.date.isoformat() for e in entries] == ["2026-09-03", "2026-09-02", "2026-09-01"]


def test_deletion_guard_refuses_non_paired_delete(project: Path):
    _run(project, [{"kind": "project", "section": "坑", "text": "- the cache dir is shared on purpose"}])
    path = project / "memory" / "PROJECT.md"
    before = path.read_bytes()
    result = _run(project, [
        {"kind": "project", "section": "坑", "delete": "- the cache dir is shared on purpose"},
        {"kind": "project", "section": "坑", "replaces": "- the cache dir is shared on purpose"},
        {"kind": "project", "section": "坑", "text": "- new", "replaces": "- a line that is not there"},
        {"kind": "session", "done": "x", "delete": "## 2026-01-01"},
        {"kind": "decision", "choice": "a", "chose": "a", "over": "b", "because": "c", "replaces": "old"},
    ])
    assert [r.index for r in result.refused] == [0, 1, 2, 3, 4]
    assert all("deletion guard" in r.reason for r in result.refused)
    assert result.applied == [] and result.changed_files == []
    assert path.read_bytes() == before


def test_paired_replacement_swaps_exactly_one_line(project: Path):
    _run(project, [{"kind": "project", "section": "怎么跑和怎么测", "text": "make test\nmake bench"}])
    path = project / "memory" / "PROJECT.md"
    before = path.read_text(encoding="utf-8")
    result = _run(project, [{"kind": "project", "section": "How to run and test", "text": "pytest -q", "replaces": "make test"}])
    assert result.refused == [] and result.changed_files == ["PROJECT.md"]
    after = path.read_text(encoding="utf-8")
    assert after == before.replace("make test\n", "pytest -q\n", 1)


def test_area_reused_case_insensitively_and_sixth_folds_into_general(project: Path):
    path = project / "memory" / "SESSIONS.md"
    path.write_text(sessions_log([(1, "Plugin"), (2, "Deploy"), (3, "Network"), (4, "Search"), (5, "")]), encoding="utf-8")
    result = _run(project, [
        {"kind": "session", "area": "plugin", "done": "a"},
        {"kind": "session", "area": "Benchmarks", "done": "b"},
    ])
    assert result.refused == []
    first, second = parse_log(path.read_text(encoding="utf-8")).entries[:2]
    assert second.label == "Plugin"  # the existing spelling, not a new area
    assert first.label == GENERAL_AREA
    assert "folded into" in result.applied[1].detail


def test_new_area_accepted_while_the_set_has_room(project: Path):
    path = project / "memory" / "SESSIONS.md"
    path.write_text(sessions_log([(1, "Plugin"), (2, "Deploy")]), encoding="utf-8")
    _run(project, [{"kind": "session", "area": "Network", "done": "a"}])
    assert parse_log(path.read_text(encoding="utf-8")).entries[0].label == "Network"


def test_malformed_items_refused_with_reasons(project: Path):
    result = _run(project, [
        {"kind": "gossip", "text": "x"},
        {"kind": "session", "done": ""},
        {"kind": "decision", "choice": "x", "chose": "x", "because": "y"},
        {"kind": "project", "section": "Roadmap", "text": "x"},
        {"kind": "project", "section": "State", "text": "## New section"},
        {"kind": "session", "done": "x", "date": "yesterday"},
    ])
    assert [r.index for r in result.refused] == [0, 1, 2, 3, 4, 5]
    assert result.changed_files == []


def test_overflow_is_archived_and_restorable_in_order(project: Path):
    from scriptorium.core.trilogy import restore_archived
    from scriptorium.core.trilogy.archive import archived_entries

    paths = _paths(project)
    paths.sessions.write_text(sessions_log([(age, "") for age in range(1, 11)]), encoding="utf-8")
    original = [e.heading for e in parse_log(paths.sessions.read_text(encoding="utf-8")).entries]
    result = _run(project, [{"kind": "session", "done": "newest"}], max_entries=6)
    assert result.archived == 5
    kept = [e.heading for e in parse_log(paths.sessions.read_text(encoding="utf-8")).entries]
    assert len(kept) == 6 and kept[1:] == original[:5]
    assert [e.heading for e in archived_entries(paths)] == original[5:]

    # a second round goes on top of the archive: order across rounds is the log's order
    _run(project, [{"kind": "session", "done": "newer still", "date": "2026-10-01"}], max_entries=6)
    assert [e.heading for e in archived_entries(paths)] == original[4:]

    assert restore_archived(paths) == 6
    restored = [e.heading for e in parse_log(paths.sessions.read_text(encoding="utf-8")).entries]
    assert restored[2:] == original and len(restored) == 12
    assert archived_entries(paths) == ()


def test_memory_read_files_sections_and_archive(project: Path):
    paths = _paths(project)
    _run(project, [{"kind": "session", "area": "net", "done": "proxy fixed", "date": "2026-09-01"}])
    assert "proxy fixed" in memory_read(paths, "sessions.md")
    assert "proxy fixed" in memory_read(paths, "SESSIONS", "2026-09-01")
    assert memory_read(paths, "project", "坑").startswith("## 坑")
    assert memory_read(paths, "archive") == ""
    for bad in (("README", None), ("PROJECT", "Roadmap"), ("SESSIONS", "1999")):
        try:
            memory_read(paths, *bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} should be refused")
