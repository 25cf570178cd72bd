"""The `trilogy` provider: a project's PROJECT / DECISIONS / SESSIONS files as memory.

How the nine methods map onto the trilogy's behaviours:
`initialize` scaffolds the project (never overwriting) and opens a session;
`system_prompt` is the budgeted injection, deduplicated by SHA-1; `search` is the
pre-step: the "memory updated" notice, the owed nudge, and BM25 recall over what the
injection left out; `write` ends a turn (a turn with tool activity and no checkpoint
owes a nudge) and, forced at the session boundary, archives the log's overflow;
`reorganize` archives; `extract_before_discard` notices when a compaction drops the
injected block, so that the next `system_prompt` sends it again; `shutdown` archives
and closes the session. `checkpoint` and `read` are the model's tools
(memory_checkpoint / memory_read), offered through the runtime's plugin mechanism.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from ..config import load_config
from ..trilogy import CheckpointResult, ScaffoldReport, TrilogySession, TrilogySettings
from .base import MemoryProvider, Message


class TrilogyProvider(MemoryProvider):
    def __init__(
        self,
        state_dir: Path,
        *,
        project_dir: Path | None = None,
        window: int | None = None,
        settings: TrilogySettings | None = None,
        clock: Callable[[], float] = time.time,
        today: Callable[[], date] = date.today,
    ) -> None:
        self.settings = settings or TrilogySettings.from_config(load_config(state_dir))
        self.project_dir = Path(project_dir) if project_dir else Path(os.getcwd())
        self.window = window
        self.clock = clock
        self.today = today
        self.session: TrilogySession | None = None
        self.scaffold_report: ScaffoldReport | None = None
        self._held: list[str] = []

    @property
    def name(self) -> str:
        return "trilogy"

    def is_available(self) -> bool:
        return self.settings.enabled and self.project_dir.is_dir()

    def initialize(self, session_id: str = "", **options: Any) -> None:
        """Options: `project_dir`, `window` (the model's context window, tokens), and
        `messages` (a resumed conversation, so that a block it holds is not re-sent)."""
        if options.get("project_dir"):
            self.project_dir = Path(options["project_dir"])
        if options.get("window"):
            self.window = int(options["window"])
        self._held = [_text(m) for m in options.get("messages") or []]
        self.session = TrilogySession(self.project_dir, self.settings, window=self.window, clock=self.clock, today=self.today)
        self.scaffold_report = self.session.open() if self.settings.enabled else None

    def system_prompt(self) -> str:
        if not self.settings.enabled:
            return ""
        return self._session().inject(self._held)

    def search(self, query: str, *, top_k: int | None = None) -> str:
        if not self.settings.enabled:
            return ""
        return self._session().pre_step(query, top_k or 5)

    def write(self, messages: list[Message] | None = None, *, session_id: str = "", force: bool = False) -> dict[str, Any]:
        if not self.settings.enabled:
            return {"status": "disabled"}
        session = self._session()
        did_work = any(m.get("role") == "tool" or m.get("tool_calls") for m in messages or [])
        owed = session.turn_ended(did_work=did_work)
        archived = session.archive() if force else 0
        return {"status": "ok", "nudge_owed": owed, "archived": archived}

    def reorganize(self, **options: Any) -> dict[str, Any]:
        if not self.settings.enabled:
            return {"status": "disabled"}
        return {"status": "ok", "archived": self._session().archive()}

    def extract_before_discard(self, messages: list[Message]) -> str:
        if self.session is not None and self.session.forget_injection([_text(m) for m in messages]):
            self._held = []
        return ""

    def shutdown(self) -> None:
        if self.session is not None and self.settings.enabled:
            self.session.archive()
        self.session = None

    def checkpoint(self, items: list[dict[str, Any]]) -> CheckpointResult:
        """The model's `memory_checkpoint` tool."""
        return self._session().checkpoint(items)

    def read(self, file: str, section: str | None = None) -> str:
        """The model's `memory_read` tool."""
        return self._session().read(file, section)

    def _session(self) -> TrilogySession:
        if self.session is None:
            self.initialize()
        assert self.session is not None
        return self.session


def _text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""
