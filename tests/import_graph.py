"""The project's import graph, read from the source with `ast` (nothing is imported).

Every `import` and `from ... import` counts, at any depth: inside functions, `if`
and `try` blocks, and under `if TYPE_CHECKING:` too (a type-only import still ties
two modules together; a circle of them is still a circle). Relative imports are
resolved against the importing module; `from pkg import name` is an edge to
`pkg.name` when that is a module of the project, else to `pkg`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = {"scriptorium.core": ROOT / "core", "scriptorium.tui": ROOT / "tui", "scriptorium.themes": ROOT / "themes"}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (absolute)
    line: int


def module_files(packages: dict[str, Path]) -> dict[str, Path]:
    """Dotted module name -> file, for every `.py` under each package folder."""
    out: dict[str, Path] = {}
    for package, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def imports_of(module: str, path: Path, known: set[str] | None = None) -> list[Import]:
    """What `module` (at `path`) imports, resolved to absolute names."""
    known = known or set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [Import(module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base_parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                out.append(Import(module, candidate if candidate in known else base, node.lineno))
    return out


def import_graph(packages: dict[str, Path] = PROJECT) -> dict[str, list[Import]]:
    """Project module -> its imports of other project modules."""
    files = module_files(packages)
    known = set(files)
    return {m: [i for i in imports_of(m, p, known) if i.target in known and i.target != m] for m, p in files.items()}


def find_cycle(graph: dict[str, list[Import]]) -> list[Import] | None:
    """One import cycle as the chain of imports that closes it, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[Import] = []

    def visit(node: str) -> list[Import] | None:
        state[node] = 1
        for edge in sorted(graph.get(node, []), key=lambda e: e.target):
            if state.get(edge.target) == 1:
                start = next(i for i, e in enumerate(path) if e.source == edge.target) if path and edge.target != node \
                    else len(path)
                return path[start:] + [edge]
            if edge.target not in state:
                path.append(edge)
                if found := visit(edge.target):
                    return found
                path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def describe(cycle: list[Import], files: dict[str, Path]) -> str:
    return "\n".join(f"  {e.source} ({files[e.source].relative_to(ROOT)}:{e.line}) imports {e.target}" for e in cycle)
