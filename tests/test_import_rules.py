"""Imports run one way (tui -> core, never back) and never in a circle (issue 13).

Both checks read the source with `ast` (tests/import_graph.py), so an import inside a
function body counts as much as one at the top of a module. The run-time check in
tests/test_packaging.py imports every core module and looks at `sys.modules`.
"""

from __future__ import annotations

from pathlib import Path

from import_graph import PROJECT, Import, describe, find_cycle, import_graph, imports_of, module_files

FORBIDDEN = ("scriptorium.tui", "textual")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "import_rules" / "core"


def core_violations(core_dir: Path) -> list[Import]:
    """Imports of the TUI or Textual by any module under `core_dir` (as `scriptorium.core`)."""
    files = module_files({"scriptorium.core": core_dir})
    return [i for module, path in files.items() for i in imports_of(module, path, set(files))
            if any(i.target == f or i.target.startswith(f + ".") for f in FORBIDDEN)]


def test_the_static_check_finds_tui_imports_hidden_in_functions_and_relative_imports() -> None:
    found = {(i.source, i.target) for i in core_violations(FIXTURE)}
    assert found == {
        ("scriptorium.core.sneaky", "scriptorium.tui.app"),  # in a function body
        ("scriptorium.core.cli.relative", "scriptorium.tui"),  # `from ...tui import app`
        ("scriptorium.core.deep", "textual.widgets"),  # in a try, in an if, in a method
    }


def test_core_never_imports_the_tui_or_textual() -> None:
    bad = core_violations(PROJECT["scriptorium.core"])
    assert not bad, "core imports the TUI side:\n" + "\n".join(
        f"  {i.source} line {i.line}: {i.target}" for i in bad)


def test_the_cycle_finder_reports_a_circle_as_its_chain_of_imports() -> None:
    graph = {"a": [Import("a", "b", 1)], "b": [Import("b", "c", 2)], "c": [Import("c", "a", 3), Import("c", "d", 4)],
             "d": []}
    assert [(e.source, e.target) for e in find_cycle(graph) or []] == [("a", "b"), ("b", "c"), ("c", "a")]
    assert find_cycle({"a": [Import("a", "b", 1)], "b": [], "c": [Import("c", "b", 1)]}) is None


def test_no_import_circle_among_the_project_modules() -> None:
    graph = import_graph()
    assert sum(map(len, graph.values())) > 200  # the graph really holds the project's imports
    cycle = find_cycle(graph)
    assert cycle is None, "import circle:\n" + describe(cycle, module_files(PROJECT))


def test_the_graph_resolves_relative_imports_to_project_modules() -> None:
    graph = import_graph({"scriptorium.core": FIXTURE})
    assert {(e.source, e.target) for edges in graph.values() for e in edges} == {
        ("scriptorium.core.clean", "scriptorium.core.sneaky"),  # `from . import sneaky`: a module, not the package
        ("scriptorium.core.clean", "scriptorium.core.cli.relative"),  # `from .cli import relative`
    }


def reached(graph: dict[str, list[Import]], source: str) -> set[str]:
    """Every project module `source` imports, directly or through others."""
    seen: set[str] = set()
    todo = [source]
    while todo:
        for edge in graph.get(todo.pop(), []):
            if edge.target in graph and edge.target not in seen:
                seen.add(edge.target)
                todo.append(edge.target)
    return seen


def climbs(graph: dict[str, list[Import]], lower: str, higher: tuple[str, ...]) -> list[str]:
    """The modules under `higher` that a module under `lower` reaches: imports back up the floors."""
    return sorted({f"{m} -> {t}" for m in graph if m == lower or m.startswith(lower + ".")
                   for t in reached(graph, m) if any(t == h or t.startswith(h + ".") for h in higher)})


C = "scriptorium.core"


def test_the_redactor_sits_below_memory_and_sessions_and_purge_above_them() -> None:
    graph = import_graph()
    assert f"{C}.redact.redactor" in graph and f"{C}.purge.purge" in graph
    assert not climbs(graph, f"{C}.redact", (f"{C}.memory", f"{C}.sessions", f"{C}.writer", f"{C}.purge"))
    assert not climbs(graph, f"{C}.memory", (f"{C}.purge",))
    assert not climbs(graph, f"{C}.sessions", (f"{C}.purge",))
    assert f"{C}.redact.redactor" in reached(graph, f"{C}.sessions.writing")  # really below: the store uses it


def test_the_session_store_parts_stand_on_each_other_in_one_order() -> None:
    """reading < the locked write unit < marks < the facade: no part reaches one above it."""
    graph = import_graph()
    floors = ["reading", "writing", "marks", "store"]
    for i, lower in enumerate(floors):
        above = tuple(f"{C}.sessions.{f}" for f in floors[i + 1:])
        assert not climbs(graph, f"{C}.sessions.{lower}", above), lower
    for part in ("errors", "undo", "registry", "index", "nodes", "paths", "repo", "pack", "redo"):
        assert not climbs(graph, f"{C}.sessions.{part}", tuple(f"{C}.sessions.{f}" for f in floors)), part
