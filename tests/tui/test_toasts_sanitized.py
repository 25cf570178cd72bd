"""Every toast goes through `ScriptoriumApp.notify`, which sanitizes message and title: no
module of the app builds a notification another way (Textual's `Notification` / `Notify`,
or `App.notify` called past ours), so a name quoted in a toast never reaches the terminal raw."""

from __future__ import annotations

import ast
from pathlib import Path

import scriptorium.tui
from scriptorium.tui.app import ScriptoriumApp

TUI = Path(scriptorium.tui.__file__).parent


def test_no_module_builds_a_toast_past_the_apps_sanitizing_notify() -> None:
    offenders = []
    for path in sorted(TUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual"):
                offenders += [f"{path.name}: imports {a.name}" for a in node.names if a.name in ("Notification", "Notify")]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "notify":
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "App":
                    offenders.append(f"{path.name}:{node.lineno}: App.notify")
                if (isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"
                        and path.name != "app.py"):
                    offenders.append(f"{path.name}:{node.lineno}: super().notify")
    assert offenders == []
    assert "notify" in ScriptoriumApp.__dict__  # the one sink, sanitizing
