"""The memory workspace `<state>/memory/`: layout, git, revision, recovery, reads.

```
memory/                       dir 0700, files 0600, a git repository
  topics/**/*.md              canonical memory; topics/core.md is the canonical core
  sources/<origin>/_v2/*.md   the append-only evidence archive
  core.md, timeline/, relations.json, recent_events.jsonl   derived views
  .scriptorium/               runtime: workspace-id, runtime.json, write.lock,
                              audit.jsonl, retired.json, journal.json (mid-install),
                              core-render.json and token-counts.json (the last core render)
```

`Workspace.open(state_dir)` makes sure the layout and the repository exist and
repairs an install a crash interrupted (when no live transaction holds the lock).
Every change goes through a `Transaction(workspace, ...)` (transaction/lifecycle.py).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import load_config
from ..git_locks import clear_stale_locks
from ..paths import RUNTIME_DIR, StatePaths
from . import audit
from .core_render import CORE_TOPIC, DEFAULT_BUDGET, injection
from .derived import RECENT_LIMIT
from .errors import LockBusy
from .names import TopicFiles, list_topic_files
from .topics import TopicDoc, former_names, parse_cached, topic_rel

if TYPE_CHECKING:
    import git

    from .core_status import CoreStatus

_INTERNAL_PREFIXES = (RUNTIME_DIR, ".nativemem")


def _internal(name: str) -> bool:
    return name == ".git" or any(name == p or name.startswith(p + "-") for p in _INTERNAL_PREFIXES)


class Workspace:
    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.paths = StatePaths(self.state_dir)
        self.root = self.paths.memory
        self.runtime = self.paths.runtime
        self.topics = self.paths.topics
        self.sources = self.paths.sources
        self._locked_at: float | None = None  # when this object took the write lock (held now)

    @classmethod
    def open(cls, state_dir: str | os.PathLike[str]) -> Workspace:
        ws = cls(state_dir)
        ws.ensure()
        try:
            with ws.lock(0):
                ws.recover_locked()
        except LockBusy:
            pass  # a live transaction holds the lock; it repairs before it begins
        return ws

    def ensure(self) -> None:
        """Create the layout and the repository if missing (idempotent)."""
        for directory in (self.root, self.topics, self.sources, self.runtime):
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.repo  # noqa: B018 - creates the repository on first use

    @cached_property
    def repo(self) -> git.Repo:
        from . import history  # GitPython: loaded by what touches the repository, not by readers

        return history.ensure_repo(self.root)

    @property
    def id(self) -> str:
        from ..workspace_id import workspace_id

        return workspace_id(self.state_dir)

    @contextmanager
    def lock(self, timeout: float) -> Iterator[None]:
        from .lock import write_lock

        with write_lock(self.runtime, timeout):
            self._locked_at = time.time()
            try:
                yield
            finally:
                self._locked_at = None

    def recover_locked(self) -> bool:
        """Repair an interrupted install; the caller holds the write lock. Git lock files
        older than our hold are a killed git's (git_locks.py): cleared first."""
        from . import install

        stale = clear_stale_locks(self.root / ".git", self._locked_at or 0.0)
        return install.recover(self.root, self.runtime, self.repo) or bool(stale)

    # -- reading ------------------------------------------------------------------------------

    def topic_files(self) -> TopicFiles:
        """Every topic file, relative to `topics/`, sorted, and the `.md` files skipped for
        their names (names.py: not UTF-8, a control character, a backslash, hidden)."""
        return list_topic_files(self.topics)

    def topic_paths(self) -> list[str]:
        """Every topic file, relative to `topics/`, sorted (see `topic_files`)."""
        return self.topic_files().paths

    def read_topic(self, topic: str) -> str | None:
        try:
            return (self.topics / topic_rel(topic)).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None

    def renamed_to(self, topic: str) -> str | None:
        """The topic that a name no file has now was renamed to (its `<!-- formerly: … -->`
        line says so, topics.former_names), or None: a read of an old name is not a dead end."""
        rel = topic_rel(topic)
        if (self.topics / rel).is_file():
            return None
        for other in self.topic_paths():
            text = self.read_topic(other)
            if text is not None and "<!-- formerly:" in text and rel in former_names(text):
                return other
        return None

    def topic(self, topic: str) -> TopicDoc | None:
        """The parsed live topic (cached per content)."""
        rel = topic_rel(topic)
        text = self.read_topic(rel)
        return None if text is None else parse_cached(rel, text)

    def cited_targets(self) -> frozenset[str]:
        """Every evidence record a live topic cites, as `sources/…#anchor`."""
        return frozenset(t for rel in self.topic_paths() if (doc := self.topic(rel)) is not None
                         for t in doc.cited_targets)

    def revision(self) -> str:
        """sha256 over every visible file (and runtime.json), formats §2.3: first 32 hex."""
        digest = hashlib.sha256()
        files = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            base = Path(dirpath)
            if base == self.root:
                dirnames[:] = [d for d in dirnames if not _internal(d)]
                filenames = [f for f in filenames if not _internal(f)]
            dirnames[:] = [d for d in dirnames if not (base / d).is_symlink()]
            files += [base / f for f in filenames if not (base / f).is_symlink()]
        runtime_json = self.runtime / "runtime.json"
        if runtime_json.is_file():
            files.append(runtime_json)
        for path in sorted(files, key=lambda p: p.relative_to(self.root).as_posix()):
            digest.update(path.relative_to(self.root).as_posix().encode("utf-8", "surrogateescape") + b"\0")
            digest.update(path.read_bytes() + b"\0")
        return digest.hexdigest()[:32]

    def audit_log(self) -> list[dict[str, Any]]:
        """Audit records of installed transactions, newest first."""
        return audit.read_records(self.runtime)

    # -- settings and the core ------------------------------------------------------------------

    def core_budget(self) -> int:
        return load_config(self.state_dir).integer("core.budget", DEFAULT_BUDGET)

    def core_inject(self) -> bool:
        return load_config(self.state_dir).flag("core.inject", True)

    def recent_limit(self) -> int:
        return load_config(self.state_dir).integer("recent.limit", RECENT_LIMIT, low=0)

    def core_injection(self) -> str:
        """The effective always-on injection: the rendered `core.md`, fenced once; "" when
        injection is off or there is nothing to inject."""
        try:
            rendered = (self.root / CORE_TOPIC).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        return injection(rendered, self.core_inject())

    def core_status(self) -> CoreStatus:
        """Budget, sizes and the blocks left out, for `core --json` and the Core screen: from
        the last render's record while it describes the files, else measured now."""
        from .core_status import RECORD, CoreStatus, recorded_status

        budget, inject = self.core_budget(), self.core_inject()
        status = recorded_status(self.runtime / RECORD, self.topics / CORE_TOPIC, self.root / CORE_TOPIC, budget, inject)
        if status is not None:
            return status
        from ..tokens import count_tokens
        from .core_render import render_core
        from .sources import SourceIndex

        doc = self.topic(CORE_TOPIC)
        render = render_core(doc, budget, SourceIndex(self.root)) if doc is not None else None
        return CoreStatus(
            budget=budget,
            canonical_tokens=count_tokens(doc.text) if doc is not None else 0,
            rendered_tokens=render.tokens if render is not None else 0,
            effective_tokens=count_tokens(self.core_injection()),
            inject=inject,
            omitted_blocks=render.left_out if render is not None else [],
        )
