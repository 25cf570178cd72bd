"""Builders for trilogy projects: a scaffolded project and logs of chosen shapes."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from scriptorium.core.trilogy import TrilogySettings, scaffold, trilogy_paths

TODAY = date(2026, 9, 30)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    settings = TrilogySettings()
    scaffold(trilogy_paths(root, settings), settings)
    return root


def sessions_log(entries: list[tuple[int, str]], preamble: str = "# SESSIONS\n\n") -> str:
    """A SESSIONS.md whose entries are (age in days, area), given newest first."""
    parts = [preamble]
    for number, (age, area) in enumerate(entries):
        day = (TODAY - timedelta(days=age)).isoformat()
        heading = f"## {day}" + (f" · {area}" if area else "")
        parts.append(f"{heading}\nDone: entry {number} in {area or 'general'}, verified by test\nOpen: 暂无\nNext: 暂无\n\n")
    return "".join(parts)


def project_with_sections(sizes: dict[str, int]) -> str:
    """A PROJECT.md whose fixed sections have about the given byte sizes."""
    parts = ["# PROJECT\n\n"]
    for name, size in sizes.items():
        heading = f"## {name}\n\n"
        line = f"- {name} fact line, padded to a realistic length for a project memory file\n"
        body = ""
        while len((heading + body + line).encode("utf-8")) + 1 <= size:
            body += line
        parts.append(heading + body + "\n")
    return "".join(parts)
