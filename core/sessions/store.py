"""Sessions as DAGs on disk, compatible with an OpenProgram state directory (formats §1).

`<state>/sessions/<id>/` is one git repository per session: `meta.json` (head_id,
updated_at, title, ...), `history/NNNN-<u|l|c>-<node>.json` (one file per node),
and our git-excluded cache in `.scriptorium/` (the compact index and a lock).
Positions are never identities: everything here is keyed by node id.

`SessionStore` is the one object callers hold: it reads (`reading.SessionReader`, its
base) and hands every write to the locked write unit (`writing.SessionWriter`), marks
to `marks.py` and registry updates to `registry.RegistryWriter`.
"""

from __future__ import annotations

import os

from ..values import TYPE_CHECKING
from .reading import HEAD, SessionReader

if TYPE_CHECKING:
    from collections.abc import Mapping
    from contextlib import AbstractContextManager
    from typing import Any

    from ..redact import Redactor
    from .nodes import Node
    from .writing import SessionWriter


class SessionStore(SessionReader):
    """All sessions of one state directory: reads, writes, marks. Cheap to create; the
    writing side loads with the first write, never for a listing."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        super().__init__(state_dir)
        self._writing: SessionWriter | None = None

    @property
    def _writer(self) -> SessionWriter:
        if self._writing is None:
            from ..paths import StatePaths
            from .registry import RegistryWriter
            from .writing import LOCK_TIMEOUT_S, SessionWriter

            registry = RegistryWriter(StatePaths(self.state_dir).sessions_registry, lock_timeout=LOCK_TIMEOUT_S)
            self._writing = SessionWriter(self, registry)
        return self._writing

    @property
    def redactor(self) -> Redactor:
        """Secrets never enter a session (DESIGN §16): every node passes this at `append`."""
        return self._writer.redactor

    def create_session(self, title: str = "", session_id: str | None = None, *, commit: bool = True,
                       started_at: float | None = None, **extra: Any) -> str:
        return self._writer.create_session(title, session_id, commit=commit, started_at=started_at, **extra)

    def batch(self, sid: str, message: str = "import") -> AbstractContextManager[None]:
        return self._writer.batch(sid, message)

    def append(self, sid: str, role: str, content: Any, *, predecessor: Any = HEAD,
               metadata: Mapping[str, Any] | None = None, node_id: str | None = None, name: str = "",
               caller: str = "", created_at: float | None = None, move_head: bool = True,
               input: Any = None) -> Node:
        return self._writer.append(sid, role, content, predecessor=predecessor, metadata=metadata,
                                   node_id=node_id, name=name, caller=caller, created_at=created_at,
                                   move_head=move_head, input=input)

    def append_summary(self, sid: str, covers_ids: list[str], text: str, *, node_id: str | None = None,
                       created_at: float | None = None, at: str | None = None) -> Node:
        return self._writer.append_summary(sid, covers_ids, text, node_id=node_id, created_at=created_at, at=at)

    def spawn_branch(self, sid: str, prompt: str, *, caller: str, source: str = "agent_spawn",
                     node_id: str | None = None, register_head: bool = False, created_at: float | None = None,
                     metadata: Mapping[str, Any] | None = None) -> Node:
        return self._writer.spawn_branch(sid, prompt, caller=caller, source=source, node_id=node_id,
                                         register_head=register_head, created_at=created_at, metadata=metadata)

    def rewind(self, sid: str, nid: str) -> list[str]:
        return self._writer.rewind(sid, nid)

    def merge_node_metadata_batch(self, sid: str, patches: Mapping[str, Mapping[str, Any]], *,
                                  message: str = "memory: mark written") -> list[str]:
        return self._writer.merge_node_metadata_batch(sid, patches, message=message)

    def mark_nodes(self, sid: str, patches: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """Written marks at the cost of what they write (`marks.mark_nodes`); inside a
        batch, merged into the batch's commit."""
        if self._writing is not None and self._writing.in_batch(sid):
            return self._writing.merge_node_metadata_batch(sid, patches)
        from .marks import mark_nodes

        return mark_nodes(self, sid, patches)

    def registry_deferred(self) -> AbstractContextManager[None]:
        return self._writer.registry.deferred()
