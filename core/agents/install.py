"""`scriptorium install|uninstall AGENT`: wire the hooks and the MCP server into an agent.

Each agent's module (install_claude_code, install_codex, install_pi) knows its files and
returns, for the current contents, what they become; this module turns that into a
`Plan` of file changes, shows it as a unified diff, and applies it. Everything else in
the user's files is kept: JSON key order and indentation (config_json), TOML comments
(tomlkit). Install is idempotent, and uninstall takes out exactly the entries install
put in, recognised by their command line (`<…>/scriptorium … hook AGENT …` / `… mcp`).

The command written into the agent's configuration is this installation's absolute
`scriptorium`, with `--state DIR`, so it works from any shell and any environment.
"""

from __future__ import annotations

import difflib
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_text
from .config_json import ConfigError
from .target import Edit, Target, read_text

AGENTS = ("claude-code", "codex", "pi")
SCOPES = ("user", "project")


@dataclass
class FileChange:
    path: Path
    before: str | None  # None: the file does not exist
    after: str | None  # None: the file is removed

    @property
    def kind(self) -> str:
        if self.before == self.after:
            return "unchanged"
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "modify"

    def diff(self) -> str:
        if self.before == self.after:
            return ""
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(a, b, fromfile=str(self.path) if self.before is not None else "/dev/null",
                                     tofile=str(self.path) if self.after is not None else "/dev/null")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "change": self.kind, "diff": self.diff()}


@dataclass
class Plan:
    agent: str
    scope: str
    action: str  # "install" / "uninstall"
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    keep: tuple[Path, ...] = ()  # directories a removal never prunes (home, project)

    @property
    def changed(self) -> bool:
        return any(c.kind != "unchanged" for c in self.changes)

    def diff(self) -> str:
        return "".join(c.diff() for c in self.changes)

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "scope": self.scope, "action": self.action, "changed": self.changed,
                "files": [c.to_json() for c in self.changes], "notes": self.notes}


def scriptorium_command() -> str:
    """The absolute path of this installation's `scriptorium` executable."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name.startswith("scriptorium") and argv0.is_file():
        return str(argv0.absolute())
    beside = Path(sys.executable).parent / "scriptorium"
    if beside.is_file():
        return str(beside.absolute())
    found = shutil.which("scriptorium")
    if found:
        return str(Path(found).absolute())
    return str(beside.absolute())


def make_target(agent: str, scope: str, state_dir: Path, *, home: Path | None = None, project: Path | None = None,
                command: str | None = None) -> Target:
    if agent not in AGENTS:
        raise ConfigError(f"unknown agent {agent!r} (one of {', '.join(AGENTS)})")
    if scope not in SCOPES:
        raise ConfigError(f"unknown scope {scope!r} (user or project)")
    return Target(agent, scope, Path(home or Path.home()), Path(project or Path.cwd()).absolute(),
                  command or scriptorium_command(), Path(state_dir).absolute())


def _module(agent: str):
    from . import install_claude_code, install_codex, install_pi

    return {"claude-code": install_claude_code, "codex": install_codex, "pi": install_pi}[agent]


def plan(target: Target, action: str) -> Plan:
    """What install/uninstall would change, computed from the files as they are now."""
    module = _module(target.agent)
    result = Plan(target.agent, target.scope, action, keep=(target.home, target.project))
    edits: list[tuple[Path, Edit]] = module.edits(target, action)
    for path, edit in edits:
        before = read_text(path)
        result.changes.append(FileChange(path, before, edit(before)))
    result.notes += module.notes(target, action)
    return result


def apply(p: Plan) -> None:
    for change in p.changes:
        if change.kind == "unchanged":
            continue
        if change.after is None:
            change.path.unlink(missing_ok=True)
            _prune(change.path.parent, p.keep)
            continue
        change.path.parent.mkdir(parents=True, exist_ok=True)
        mode = change.path.stat().st_mode & 0o777 if change.path.exists() else 0o644
        atomic_write_text(change.path, change.after, mode=mode)


def _prune(directory: Path, keep: tuple[Path, ...]) -> None:
    """Remove directories emptied by an uninstall (`~/.claude/`, `.pi/extensions/`), up to home."""
    stops = {k.absolute() for k in keep}
    while directory.absolute() not in stops and directory != directory.parent:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


@dataclass
class Status:
    agent: str
    scope: str
    installed: bool
    partial: bool
    where: list[str]  # the files holding our entries

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "scope": self.scope, "installed": self.installed, "partial": self.partial,
                "where": self.where}


def status(target: Target) -> Status:
    """Whether our entries are in the agent's files (all of them, some, none)."""
    module = _module(target.agent)
    try:
        found: dict[Path, bool] = module.present(target)
    except ConfigError:
        found = {}
    where = [str(p) for p, ok in found.items() if ok]
    complete = bool(found) and all(found.values())
    return Status(target.agent, target.scope, complete, bool(where) and not complete, where)
