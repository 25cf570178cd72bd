"""Trilogy: per-project memory in three Markdown files (spec: dsh-trilogy).

`memory/PROJECT.md` says what the project is now (five fixed sections, edited in
place), `DECISIONS.md` why it is so, `SESSIONS.md` what happened and when (both
append-only, newest first). The harness, not the model, guarantees the three things
that matter: the files exist (scaffold), they are loaded (budgeted injection with an
accounting line), and progress gets recorded (routed checkpoints and an owed nudge).
"""

from .archive import archive_overflow, restore_archived
from .checkpoint import CheckpointError, CheckpointResult, checkpoint, memory_read
from .injection import Injection, build_injection, effective_budget
from .layout import ScaffoldReport, TrilogyPaths, memory_lock, scaffold, trilogy_paths
from .session import TrilogySession
from .settings import TrilogySettings
from .snapshot import read_snapshot
from .status import TrilogyStatus, trilogy_status

__all__ = [
    "CheckpointError",
    "CheckpointResult",
    "Injection",
    "ScaffoldReport",
    "TrilogyPaths",
    "TrilogySession",
    "TrilogySettings",
    "TrilogyStatus",
    "archive_overflow",
    "build_injection",
    "checkpoint",
    "effective_budget",
    "memory_lock",
    "memory_read",
    "read_snapshot",
    "restore_archived",
    "scaffold",
    "trilogy_paths",
    "trilogy_status",
]
