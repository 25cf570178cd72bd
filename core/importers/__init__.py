"""Importers: real agents' transcripts (Claude Code, pi, Codex) as Scriptorium sessions.

Each kind is a module with `default_roots()`, `discover(paths)` (transcript files
under the given paths, plus the family files a given file needs) and
`plan_sessions(files)` (pure: files -> `SessionPlan`s). `run.import_sources` ties
them to the store; `follow.ImportFollower` re-imports files as agents write them.
"""

from __future__ import annotations

from types import ModuleType

from . import claude_code, codex, pi

IMPORTERS: dict[str, ModuleType] = {
    claude_code.KIND: claude_code,
    pi.KIND: pi,
    codex.KIND: codex,
}
KINDS: tuple[str, ...] = tuple(IMPORTERS)
