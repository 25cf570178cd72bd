from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace

from .support import Seeded, seed


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    return Workspace.open(tmp_path / "state")


@pytest.fixture()
def seeded(ws: Workspace) -> Seeded:
    return seed(ws)
