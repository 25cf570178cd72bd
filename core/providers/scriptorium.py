"""The `scriptorium` provider: the branch-aware memory workspace of a state directory.

`system_prompt` is the rendered core (fenced, honouring `core.inject`); `search` is
BM25 over topic blocks, top 5, fenced.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..memory import Workspace
from ..search import DEFAULT_TOP_K, render_hits, workspace_index
from .base import MemoryProvider


class ScriptoriumProvider(MemoryProvider):
    def __init__(self, state_dir: Path, **_: Any) -> None:
        self.state_dir = Path(state_dir)
        self.session_id = ""
        self._workspace: Workspace | None = None

    @property
    def name(self) -> str:
        return "scriptorium"

    def is_available(self) -> bool:
        """The workspace is a git repository: without git there is no memory to open."""
        return shutil.which("git") is not None

    def initialize(self, session_id: str = "", **options: Any) -> None:
        self.session_id = session_id
        self._workspace = Workspace.open(self.state_dir)

    def system_prompt(self) -> str:
        return self.workspace.core_injection()

    def search(self, query: str, *, top_k: int | None = None) -> str:
        hits = workspace_index(self.workspace.root).search(query, top_k=top_k or DEFAULT_TOP_K)
        return render_hits(hits)

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            self._workspace = Workspace.open(self.state_dir)
        return self._workspace
