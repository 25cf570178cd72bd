"""Where memory stands against its remotes, without touching the network: for the TUI,
`remote list` and `doctor`. Ahead/behind count against what the last fetch brought."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..memory.workspace import Workspace
from . import remote as git_remote
from .conflicts import SyncConflict, list_conflicts
from .run import last_sync


@dataclass(frozen=True)
class RemoteState:
    name: str
    url: str
    ahead: int | None  # None: never fetched
    behind: int | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "ahead": self.ahead, "behind": self.behind}


@dataclass(frozen=True)
class SyncStatus:
    remotes: list[RemoteState] = field(default_factory=list)
    last: dict[str, Any] | None = None
    conflicts: list[SyncConflict] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"remotes": [r.to_json() for r in self.remotes], "last_sync": self.last,
                "conflicts": [c.to_json() for c in self.conflicts]}


def sync_status(state_dir: str | os.PathLike[str]) -> SyncStatus:
    ws = Workspace(state_dir)
    if not (ws.root / ".git").is_dir():
        return SyncStatus()
    states = []
    for r in git_remote.list_remotes(ws.root):
        tracked = git_remote.rev(ws.root, git_remote.tracking_ref(r.name))
        if tracked is None:
            states.append(RemoteState(r.name, r.url, None, None))
            continue
        states.append(RemoteState(r.name, r.url, git_remote.count(ws.root, f"{tracked}..HEAD"),
                                  git_remote.count(ws.root, f"HEAD..{tracked}")))
    return SyncStatus(states, last_sync(state_dir), list_conflicts(state_dir))
