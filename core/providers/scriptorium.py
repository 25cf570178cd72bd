"""The `scriptorium` provider: the branch-aware memory workspace of a state directory.

`system_prompt` is the rendered core (fenced, honouring `core.inject`); `search` is
BM25 over topic blocks, top 5, fenced; `write` is the write pipeline on the session's
DAG (one pass at threshold after a turn, everything with `force`); `reorganize` is
sleep; `shutdown` is the session boundary (`finish`: every live branch visited).
`extract_before_discard` writes the unwritten turns among the messages a compactor is
about to drop (forced), and returns whatever still could not be written so that the
compactor keeps it in its summary.

Messages are identified by their node ids (`"id"`), never by position: a message
without one is not a turn of this session and is left to the compactor.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..sessions.marker import pending
from ..memory import Workspace, read_consistent
from ..paths import StatePaths
from ..search import DEFAULT_TOP_K, Hit, SearchIndex, render_hits, workspace_index
from ..sessions.store import SessionStore
from .base import MemoryProvider, Message


class ScriptoriumProvider(MemoryProvider):
    def __init__(self, state_dir: Path, *, model: str | None = None, **_: Any) -> None:
        self.state_dir = Path(state_dir)
        self.model = model
        self.session_id = ""
        self.last_finish: Any = None  # the WriteResult of the last session boundary
        self._workspace: Workspace | None = None
        self._store: SessionStore | None = None

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
        self.workspace  # noqa: B018 - opened (and repaired) once, as before
        return read_consistent(self.state_dir, lambda state: Workspace(state).core_injection())

    def search(self, query: str, *, top_k: int | None = None) -> str:
        root = self.workspace.root

        def read(state: Path) -> list[Hit]:
            index = workspace_index(root) if state == self.state_dir else SearchIndex(StatePaths(state).memory)
            return index.search(query, top_k=top_k or DEFAULT_TOP_K)
        return render_hits(read_consistent(self.state_dir, read))

    def write(self, messages: list[Message] | None = None, *, session_id: str = "", force: bool = False) -> Any:
        """The pipeline's `WriteResult` (outcome ok / retryable / permanent)."""
        from ..writer import write

        return write(self.store, session_id or self.session_id, force=force, model=self.model)

    def reorganize(self, **options: Any) -> dict[str, Any]:
        from ..writer import sleep

        return sleep(self.state_dir, preview=bool(options.get("preview")), model=self.model).to_json()

    def extract_before_discard(self, messages: list[Message]) -> str:
        ids = [m["id"] for m in messages if m.get("id")]
        if not ids or not self.session_id or not self.store.has_session(self.session_id):
            return ""
        if self._unwritten(ids):
            self.write(session_id=self.session_id, force=True)
        left = self._unwritten(ids)
        return "\n".join(f"{m['role']}: {m.get('text', m.get('content', ''))}" for m in messages if m.get("id") in left)

    def shutdown(self) -> None:
        if self.session_id and self.store.has_session(self.session_id):
            from ..writer import finish

            self.last_finish = finish(self.store, self.session_id, model=self.model)

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            self._workspace = Workspace.open(self.state_dir)
        return self._workspace

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            self._store = SessionStore(self.state_dir)
        return self._store

    def _unwritten(self, ids: list[str]) -> set[str]:
        """Which of `ids` are still pending on the head branch."""
        waiting = {t.id for t in pending(self.store, self.session_id)}
        return waiting.intersection(ids)
