"""One agent session's view of a project's trilogy: what was injected, what is owed.

Injection is deduplicated by content SHA-1: a session holds one copy, and the same
content is never delivered twice. When the files change during the session, the block
is not re-sent (rewriting the middle of a conversation invalidates the prompt cache from
there to the end); a ~200-byte notice rides along with the next step instead.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

from ..fence import fence_memory
from . import templates
from .archive import archive_overflow
from .checkpoint import CheckpointResult, checkpoint, memory_read
from .injection import Injection, build_injection
from .layout import ScaffoldReport, memory_lock, scaffold, trilogy_paths
from .nudge import Nudge
from .recall import recall, render_hits
from .settings import TrilogySettings
from .snapshot import Snapshot, read_snapshot

FENCED_RE = re.compile(r"<memory-context>\n.*?\n</memory-context>", re.DOTALL)


class TrilogySession:
    def __init__(
        self,
        start_dir: Path,
        settings: TrilogySettings,
        *,
        window: int | None = None,
        clock: Callable[[], float] = time.time,
        today: Callable[[], date] = date.today,
    ) -> None:
        self.settings = settings
        self.paths = trilogy_paths(start_dir, settings)
        self.window = window
        self.clock = clock
        self.today = today
        self.nudge = Nudge(settings)
        self.injection: Injection | None = None  # what this session holds
        self._announced: dict[str, str] = {}  # file -> SHA-1 the model was last told about
        self._wrote_this_turn = False

    def open(self) -> ScaffoldReport:
        """Session start: scaffold what is missing (if enabled), repair legacy headings."""
        return scaffold(self.paths, self.settings, create=self.settings.autoScaffold)

    def snapshot(self) -> Snapshot:
        return read_snapshot(self.paths)

    def build(self, snapshot: Snapshot | None = None) -> Injection:
        snapshot = snapshot or self.snapshot()
        return build_injection(snapshot, self.settings, window=self.window, today=self.today())

    def inject(self, held: Iterable[str] = ()) -> str:
        """The block to inject, or "" when the session already holds identical content.

        `held` is the text the conversation already carries (a resumed session): a block
        there with the same SHA-1 is not sent again.
        """
        if not self.settings.injectOnSessionStart or self.injection is not None:
            return ""
        snapshot = self.snapshot()
        injection = self.build(snapshot)
        self.injection = injection
        self._announced = _digests(snapshot)
        held_digests = {_sha1(block) for text in held for block in FENCED_RE.findall(text)}
        return "" if injection.digest in held_digests else injection.text

    def forget_injection(self, discarded_texts: list[str]) -> bool:
        """A compaction dropped the messages holding the block: the next inject() re-sends it."""
        if self.injection is None or not any(self.injection.text in text for text in discarded_texts):
            return False
        self.injection = None
        self._announced = {}
        return True

    def pre_step(self, query: str = "", top_k: int = 5) -> str:
        """What rides along with the next user message: notices, the owed nudge, recall."""
        parts: list[str] = []
        snapshot = self.snapshot()
        notice = self._update_notice(snapshot)
        if notice:
            parts.append(notice)
        if self.nudge.take(self.clock()):
            parts.append(templates.NUDGE)
        if query.strip():
            hits = recall(self.paths, snapshot, self.injection, query, top_k)
            if hits:
                parts.append(fence_memory(render_hits(hits)))
        return "\n\n".join(parts)

    def turn_ended(self, *, did_work: bool) -> bool:
        """End of a turn: owe a nudge if it did work and wrote nothing. True if owed."""
        wrote, self._wrote_this_turn = self._wrote_this_turn, False
        return self.nudge.turn_ended(did_work=did_work, wrote=wrote, now=self.clock())

    def checkpoint(self, items: list[dict[str, Any]]) -> CheckpointResult:
        result = checkpoint(self.paths, items, max_entries=self.settings.sessionsMaxEntries, today=self.today())
        if result.wrote:
            self._wrote_this_turn = True
            self.nudge.wrote()
        return result

    def read(self, file: str, section: str | None = None) -> str:
        return memory_read(self.paths, file, section)

    def archive(self) -> int:
        with memory_lock(self.paths):
            return archive_overflow(self.paths, self.settings.sessionsMaxEntries)

    def _update_notice(self, snapshot: Snapshot) -> str:
        if self.injection is None:
            return ""
        current = _digests(snapshot)
        changed = [name for name in templates.FILES if current.get(name) != self._announced.get(name)]
        if not changed:
            return ""
        self._announced = current
        return templates.updated_notice(changed)


def _digests(snapshot: Snapshot) -> dict[str, str]:
    return {name: _sha1(snapshot.text(name)) for name in templates.FILES}


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()
