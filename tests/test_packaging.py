"""Layout contracts: namespaced packages, every subpackage shipped, core free of Textual/litellm."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {"scriptorium.core": "core", "scriptorium.tui": "tui", "scriptorium.themes": "themes"}


def declared_packages() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def test_every_subpackage_is_listed_in_pyproject() -> None:
    found = []
    for name, folder in MAPPED.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            found.append(".".join([name, *rel.parts]) if rel.parts else name)
    assert sorted(found) == sorted(declared_packages())


def test_core_imports_neither_the_tui_nor_textual_nor_litellm() -> None:
    modules = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        if path.name == "__main__.py":
            continue  # running it is the CLI itself
        rel = path.relative_to(ROOT / "core").with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        modules.append(".".join(["scriptorium.core", *parts]))
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm')\n"
        "             or m == 'scriptorium.tui' or m.startswith('scriptorium.tui.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"scriptorium.core pulled in: {out.stdout.strip()}"


def test_no_bare_core_or_tui_package_is_importable() -> None:
    code = "import importlib.util as u; print(u.find_spec('core'), u.find_spec('tui'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "None None"
