"""The Topics screen's editing state, without Textual: which topic is open, the text it
had on disk, the diagnostics of the last rejected save, and every decision about a
draft — may another topic be opened, does a save run, what an outcome leaves behind,
what a change on disk means. The screen asks it and does what it answers (dialogs,
widgets, workers); tests drive it directly.

The draft itself lives in the editor, so every question takes the draft's text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from scriptorium.core.memory import Diagnostic, TransactionResult

OpenDecision = Literal["go-to", "ask", "read"]  # move within the draft / ask about the draft first / read the file
SaveDecision = Literal["busy", "clean", "save"]
SavedOutcome = Literal["failed", "rejected", "conflict", "installed"]
DiskDecision = Literal["elsewhere", "keep-draft", "reload"]


@dataclass
class TopicEditing:
    path: str | None = None  # the open topic, relative to topics/
    base: str | None = None  # its text on disk when opened or last saved (None: a new file)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # the last rejected save's
    saving: bool = False  # a save or a retirement is running
    changed_on_disk: bool = False  # the file changed on disk under the draft
    after_save: Callable[[], None] | None = None  # what the user was doing when asked to save first

    @property
    def topic_file(self) -> str:
        """The open topic as diagnostics name it (relative to the workspace)."""
        return f"topics/{self.path}"

    def dirty(self, text: str) -> bool:
        """Does the draft differ from the file it started from?"""
        return self.path is not None and text != (self.base or "")

    # --- opening -------------------------------------------------------------------

    def open(self, path: str, text: str, *, jump: bool) -> OpenDecision:
        """Opening `path` (`jump`: at a line or a block): a draft is never dropped silently."""
        if path == self.path and jump and self.dirty(text):
            return "go-to"
        return "ask" if self.dirty(text) else "read"

    def accepts(self, path: str, text: str) -> bool:
        """May a topic read from disk replace the editor? Not when a draft of another was started meanwhile."""
        return not (self.dirty(text) and path != self.path)

    def opened(self, path: str, disk_text: str | None) -> None:
        self.path, self.base = path, disk_text
        self.changed_on_disk = False
        self.diagnostics = []

    def discarded(self) -> str:
        """The text the editor goes back to when the draft is discarded."""
        return self.base or ""

    # --- saving --------------------------------------------------------------------

    def begin_save(self, text: str) -> SaveDecision:
        if self.path is None or self.saving:
            return "busy"
        if not self.dirty(text):
            return "clean"
        self.saving = True
        return "save"

    def begin_retire(self, text: str) -> bool:
        """A retirement changes the file on disk: only without a draft."""
        if self.dirty(text) or self.saving:
            return False
        self.saving = True
        return True

    def finished(self, path: str, draft: str, result: TransactionResult | None, action: str) -> SavedOutcome:
        """A save or a retirement ended: `result` None when it could not run at all."""
        self.saving = False
        if result is None:
            self.after_save = None
            return "failed"
        if result.outcome == "rejected":
            self.after_save = None
            self.diagnostics = list(result.diagnostics)
            if any(d.rule == "conflict" for d in result.diagnostics):
                self.changed_on_disk = True
                return "conflict"
            return "rejected"
        if path == self.path:
            self.base = installed_text(path, draft, self.base, result, action)
        self.diagnostics = []
        self.changed_on_disk = False
        return "installed"

    def take_after_save(self) -> Callable[[], None] | None:
        """What to do now that the save the user asked for went through (once)."""
        then, self.after_save = self.after_save, None
        return then

    def kept_over(self, path: str, disk_text: str | None) -> bool:
        """A conflict resolved by keeping the draft: from now on it replaces `disk_text`."""
        if path != self.path:
            return False
        self.base = disk_text
        self.changed_on_disk = False
        return True

    # --- diagnostics -----------------------------------------------------------------

    def problem_lines(self) -> list[int]:
        """The lines of the open topic the diagnostics point at, in order."""
        return sorted({d.line for d in self.diagnostics if d.file == self.topic_file and d.line})

    def next_problem(self, line: int) -> int | None:
        """The first problem line after `line`, wrapping around."""
        lines = self.problem_lines()
        return next((n for n in lines if n > line), lines[0]) if lines else None

    # --- changes on disk ---------------------------------------------------------------

    def disk_changed(self, topics: frozenset[str], text: str) -> DiskDecision:
        """Other topics changed (backlinks may have), the open one under a draft (kept), or without one."""
        if self.path not in topics:
            return "elsewhere"
        if self.dirty(text):
            self.changed_on_disk = True
            return "keep-draft"
        return "reload"


def installed_text(path: str, draft: str, base: str | None, result: TransactionResult, action: str) -> str | None:
    """The topic's text after an installed transaction: as installed (normalized), else the
    draft of a save or the unchanged text of a retirement that did not touch it."""
    key = f"topics/{path}"
    if key in result.after:
        data = result.after[key]
        return data.decode("utf-8", errors="replace") if data is not None else None
    return base if action == "retire" else draft
