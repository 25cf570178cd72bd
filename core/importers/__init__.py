"""Importers: real agents' transcripts (Claude Code, pi, Codex) as Scriptorium sessions.

Each kind is a module with `default_roots()`, `discover(paths)` (transcript files
under the given paths, plus the family files a given file needs) and
`plan_sessions(files)` (pure: files -> `SessionPlan`s). `run.import_sources` ties
them to the store; `follow.ImportFollower` re-imports files as agents write them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# kind -> module; a module is loaded on first use (the CLI lists the kinds without the parsers)
_MODULES: dict[str, str] = {"claude-code": "claude_code", "pi": "pi", "codex": "codex"}
KINDS: tuple[str, ...] = tuple(_MODULES)


def importer(kind: str) -> ModuleType:
    """The module reading `kind`'s transcripts; KeyError for an unknown kind."""
    return importlib.import_module(f"{__name__}.{_MODULES[kind]}")
