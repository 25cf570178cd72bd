"""What a transaction did or would do: `TransactionResult` (outcome, diagnostics, the change)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from ..core_render import CoreRender
from ..names import Skipped
from ..validate import Diagnostic

_DIFFED = ("topics/", "sources/", "core.md")


@dataclass
class TransactionResult:
    outcome: str  # "installed" | "rejected" | "previewed"
    kind: str
    summary: str
    commit: str | None = None
    changed_files: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    created_blocks: list[str] = field(default_factory=list)
    retired: list[dict[str, str | None]] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)  # source ids newly appended
    redactions: dict[str, int] = field(default_factory=dict)  # placeholders in what it archived or saved, by kind
    core: CoreRender | None = None
    skipped: list[Skipped] = field(default_factory=list)  # topic files left alone for their names (names.py)
    before: dict[str, bytes | None] = field(default_factory=dict, repr=False)
    after: dict[str, bytes | None] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return self.outcome != "rejected"

    @property
    def changed_topics(self) -> list[str]:
        return [f for f in self.changed_files if f.startswith("topics/")]

    @property
    def diff(self) -> str:
        """Unified diff of what the edit did (topics, sources, the rendered core)."""
        out: list[str] = []
        for path in self.changed_files:
            if not path.startswith(_DIFFED):
                continue
            old = (self.before.get(path) or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
            new = (self.after.get(path) or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
            out.extend(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"))
        return "".join(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "commit": self.commit,
            "changed_files": self.changed_files,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "redactions": self.redactions,
            **({"skipped": [s.to_json() for s in self.skipped]} if self.skipped else {}),
        }
