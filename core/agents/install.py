"""`scriptorium install|uninstall AGENT`: wire the hooks and the MCP server into an agent.

Each agent's module (install_claude_code, install_codex, install_pi) knows its files and
returns, for the current contents, what they become; this module turns that into a
`Plan` of file changes, shows it as a unified diff, and applies it. Everything else in
the user's files is kept byte for byte (JSON edited as text, json_text; TOML through
tomlkit, line endings kept), and a symlinked file is written through its link. Install
is idempotent, and uninstall takes out exactly the entries install put in, recognised by
their command line (`<…>/scriptorium … hook AGENT …` / `… mcp`). What each install added
— whether it created the file, the JSON containers, the folders — is recorded in
`<state>/memory/.scriptorium/agent-installs.json`, so uninstall removes only those (no
record: it removes our entries and leaves every file and folder).

The command written into the agent's configuration is this installation's absolute
`scriptorium`, with `--state DIR`, so it works from any shell and any environment.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_text
from ..paths import StatePaths
from .config_json import ConfigError
from .target import Edit, FileRecord, Target, read_text

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
    target: Target | None = None
    records: dict[Path, FileRecord] = field(default_factory=dict)  # what install put into each file

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


REMEMBER = ("ask", "allow")


def make_target(agent: str, scope: str, state_dir: Path, *, home: Path | None = None, project: Path | None = None,
                command: str | None = None, remember: str = "ask") -> Target:
    if agent not in AGENTS:
        raise ConfigError(f"unknown agent {agent!r} (one of {', '.join(AGENTS)})")
    if scope not in SCOPES:
        raise ConfigError(f"unknown scope {scope!r} (user or project)")
    if remember not in REMEMBER:
        raise ConfigError(f"unknown --remember {remember!r} (ask or allow)")
    return Target(agent, scope, Path(home or Path.home()), Path(project or Path.cwd()).absolute(),
                  command or scriptorium_command(), Path(state_dir).absolute(), remember)


def _module(agent: str):
    from . import install_claude_code, install_codex, install_pi

    return {"claude-code": install_claude_code, "codex": install_codex, "pi": install_pi}[agent]


RECORD_FILE = "agent-installs.json"  # under <state>/memory/.scriptorium/: what each install put where


def _record_path(target: Target) -> Path:
    return StatePaths(target.state_dir).runtime / RECORD_FILE


def _load_records(target: Target) -> dict[str, Any]:
    try:
        doc = json.loads(_record_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _record_of(entry: Any) -> FileRecord:
    if not isinstance(entry, dict):
        return FileRecord()
    keys = [list(k) for k in entry.get("keys", []) if isinstance(k, list)]
    dirs = [str(d) for d in entry.get("dirs", []) if isinstance(d, str)]
    return FileRecord(True, bool(entry.get("created")), keys, dirs, str(entry.get("written", "")))


class DemoStateError(ConfigError):
    """Install was pointed at a demo state: the user's real agent would write into the demo."""


def plan(target: Target, action: str, *, force: bool = False) -> Plan:
    """What install/uninstall would change, computed from the files as they are now. An
    install into a demo state is refused (DemoStateError) unless `force`: the agent's real
    sessions would go into the demo's memory, and the demo's facts into the agent."""
    from ..paths import StatePaths

    if action == "install" and not force and StatePaths(target.state_dir).is_demo():
        raise DemoStateError(f"{target.state_dir} is the demo state: wiring {target.agent} to it would send your real "
                             f"sessions into the demo (and the demo's memory into {target.agent}); install with your "
                             f"own --state, or pass --force to do it anyway")
    module = _module(target.agent)
    result = Plan(target.agent, target.scope, action, target=target)
    saved = _load_records(target)
    edits: list[tuple[Path, Edit]] = module.edits(target, action)
    for path, edit in edits:
        _written_path(path)  # a symlink that leads nowhere is refused before anything is written
        before = read_text(path)
        record = _record_of(saved.get(str(path)))
        if action == "install" and before is None:
            record = FileRecord(True, True)
        elif action == "install" and not record.known:
            record = FileRecord(True)
        result.records[path] = record
        result.changes.append(FileChange(path, before, edit(before, record)))
    result.notes += module.notes(target, action, result.records)
    return result


def apply(p: Plan) -> None:
    emptied: set[str] = set()
    for change in p.changes:
        if change.kind == "unchanged":
            continue
        record = p.records.get(change.path, FileRecord())
        if change.after is None:
            change.path.unlink(missing_ok=True)
            emptied.update(record.dirs)
            continue
        dest = _written_path(change.path)
        record.dirs = record.dirs or [str(d) for d in _missing_dirs(dest.parent)]
        dest.parent.mkdir(parents=True, exist_ok=True)
        mode = dest.stat().st_mode & 0o777 if dest.exists() else 0o644
        atomic_write_text(dest, change.after, mode=mode)
    for directory in sorted(emptied, key=lambda d: -len(Path(d).parts)):  # only folders install made, deepest first
        try:
            Path(directory).rmdir()
        except OSError:
            pass  # the user put something in it: it stays
    if p.target is not None:
        _save_records(p)


def _written_path(path: Path) -> Path:
    """Where a file's new text goes: through a symlink to its target (dotfiles kept in a
    repository stay links), refused when the link leads nowhere we can write."""
    if not path.is_symlink():
        return path
    dest = Path(os.path.realpath(path))
    if not dest.parent.is_dir():
        raise ConfigError(f"{path} is a symbolic link to {dest}, whose folder does not exist; fix the link first")
    return dest


def _missing_dirs(directory: Path) -> list[Path]:
    """The folders a mkdir of `directory` creates, deepest first."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    return missing


def _save_records(p: Plan) -> None:
    assert p.target is not None
    saved = _load_records(p.target)
    for change in p.changes:
        record = p.records.get(change.path)
        if change.kind == "unchanged" or record is None:
            continue
        if p.action == "uninstall":
            saved.pop(str(change.path), None)
        else:
            saved[str(change.path)] = {"agent": p.agent, "created": record.created, "keys": record.keys,
                                       "dirs": record.dirs, "written": record.written}
    path = _record_path(p.target)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(saved, indent=2, ensure_ascii=False) + "\n")


@dataclass
class Status:
    agent: str
    scope: str
    installed: bool
    partial: bool
    where: list[str]  # the files holding our entries
    elsewhere: dict[str, str] = field(default_factory=dict)  # file -> the other state its entries point at

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "scope": self.scope, "installed": self.installed, "partial": self.partial,
                "where": self.where, "points_elsewhere": self.elsewhere}


def status(target: Target) -> Status:
    """Whether our entries are in the agent's files (all of them, some, none)."""
    module = _module(target.agent)
    try:
        found: dict[Path, bool] = module.present(target)
    except ConfigError:
        found = {}
    where = [str(p) for p, ok in found.items() if ok]
    complete = bool(found) and all(found.values())
    return Status(target.agent, target.scope, complete, bool(where) and not complete, where, _elsewhere(module, target))


def _elsewhere(module: Any, target: Target) -> dict[str, str]:
    """Our entries that point at another state directory than the target's (the demo's, an
    old one): the agent writes there, and this state never hears of it."""
    try:
        pointed: dict[Path, set[str | None]] = module.states(target)
    except ConfigError:
        return {}
    mine = target.state_dir.absolute()
    out = {}
    for path, found in pointed.items():
        other = sorted(str(s) for s in found if s is None or Path(s).expanduser().absolute() != mine)
        if other:
            out[str(path)] = ", ".join("the default state" if s == "None" else s for s in other)
    return out
