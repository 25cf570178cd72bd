"""Every engine call from the TUI goes through the feature's model: only `tui/<feature>/model.py`
modules and the wiring (`tui/app.py`, the entry point, the disk watcher `live.py`) import `scriptorium.core`;
screens and widgets import from it only sanitizers, the graph's glyphs and the plain data types
a model hands them (those only for type hints). Checked on the source, in-function imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import scriptorium.tui

TUI = Path(scriptorium.tui.__file__).parent
WIRING = {"app.py", "entry.py", "live.py", "serve.py"}  # the app, the console entry point, the app's disk
# watcher, the browser door

# module -> names a screen or widget may import at run time (pure functions and constants).
RUNTIME_ALLOWED = {
    "scriptorium.core.sanitize": {"sanitize", "sanitize_line"},
    "scriptorium.core.wording": {"count"},  # "3 turns", never "turn(s)"
    "scriptorium.core.redact.placeholder": {"MARK_RE"},  # the placeholder's shape: styled wherever text is drawn
    "scriptorium.core.sessions.graph_layout": {"DASHED", "NODE"},
}
# module -> data types a model hands to screens and widgets, imported under TYPE_CHECKING only.
TYPES_ALLOWED = {
    "scriptorium.core.memory": {"Diagnostic", "TopicDoc", "TransactionResult"},
    "scriptorium.core.memory.topics": {"Paragraph"},
    "scriptorium.core.search": {"Hit"},
    "scriptorium.core.writer": {"Progress", "SleepPreview", "SleepResult"},
    "scriptorium.core.trilogy": {"TrilogyStatus"},
}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(["scriptorium", *parts])


def _absolute(node: ast.ImportFrom, module: str) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")[: -node.level]
    return ".".join(package + ([node.module] if node.module else []))


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def violations(root: Path) -> list[str]:
    """`file:line module.name` for every import of the engine outside the allowed places."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if path.name == "model.py" or rel in WIRING:
            continue
        module = _module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported = [(alias.name, "") for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, module)
                imported = [(base, alias.name) for alias in node.names]
            else:
                continue
            for target, name in imported:
                if not (target == "scriptorium.core" or target.startswith("scriptorium.core.")):
                    continue
                allowed = RUNTIME_ALLOWED.get(target, set())
                if node.lineno in typing_only:
                    allowed = allowed | TYPES_ALLOWED.get(target, set())
                if name not in allowed:
                    found.append(f"{rel}:{node.lineno} {target}{'.' + name if name else ''}")
    return found


def test_screens_and_widgets_reach_the_engine_only_through_their_model() -> None:
    assert violations(TUI) == []


@pytest.mark.parametrize("source, expected", [
    ("def load():\n    from scriptorium.core.memory import Workspace\n", "scriptorium.core.memory.Workspace"),
    ("import scriptorium.core.search\n", "scriptorium.core.search"),
    ("from ...core.writer import sleep\n", "scriptorium.core.writer.sleep"),
    ("from scriptorium.core.memory import TopicDoc\n", "scriptorium.core.memory.TopicDoc"),  # a type, at run time
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from scriptorium.core.memory import Workspace\n",
     "scriptorium.core.memory.Workspace"),  # not a data type the models hand out
])
def test_a_widget_importing_the_engine_is_caught(tmp_path: Path, source: str, expected: str) -> None:
    root = tmp_path / "tui"
    (root / "topics").mkdir(parents=True)
    (root / "topics" / "widget.py").write_text(source)
    (root / "topics" / "model.py").write_text(source)  # the model may
    (root / "topics" / "fine.py").write_text(
        "from typing import TYPE_CHECKING\nfrom scriptorium.core.sanitize import sanitize_line\n"
        "if TYPE_CHECKING:\n    from scriptorium.core.memory import TopicDoc\n")
    assert [v.split(" ", 1)[1] for v in violations(root)] == [expected]
    assert all(v.startswith("topics/widget.py:") for v in violations(root))
