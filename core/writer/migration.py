"""One-time migration from OpenProgram's position cursors to node marks
(written-marker document, layer 3, "从位置游标迁移").

An installation upgraded from cursors has `cursors` in `runtime.json` and no marks,
so every session would be handed over whole. The source archives say which turns
were written, but only as candidates, trusted within each format's limits:

* v2 `sources/openprogram/_v2/<session>.md`: the strict parser's valid prefix only
  (body text never yields an id, nothing after a bad or truncated frame counts);
* legacy `sources/openprogram/<session>.md`: only the first valid header right
  after the `# <session>` title — later legacy records are unframed and a user could
  have typed a perfect header into a message, so they are rewritten rather than trusted.

Candidates never become marks directly: along each node's real DAG path, with the
same record filter as the writer, only the contiguous prefix of candidates from the
first record counts, stopping at the first gap. Marking a tail past a gap would hide
the gap forever; marking too little only writes something twice. The cursors leave
`runtime.json` only after every session's marks were written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..sessions.marker import MARK_KEY, mark_written, workspace_id
from ..memory.lock import write_lock
from ..memory.sources import anchor_for, archive_path, legacy_path, scan_archive
from ..paths import StatePaths
from ..runtime_state import load_runtime, save_runtime
from ..sessions.errors import SessionError
from ..sessions.store import SessionStore

PROVIDER = "openprogram"
LOCK_TIMEOUT_S = 5.0


@dataclass
class MigrationResult:
    outcome: str  # "migrated" | "not_needed" | "failed"
    marked: dict[str, list[str]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    cursors_removed: bool = False

    @property
    def message(self) -> str:
        if self.outcome == "not_needed":
            return "no position cursors: nothing to migrate"
        count = sum(len(v) for v in self.marked.values())
        text = f"marked {count} turn(s) in {len(self.marked)} session(s)"
        if self.failures:
            text += f"; {len(self.failures)} session(s) failed, cursors kept for a retry: " + "; ".join(
                f"{sid}: {why}" for sid, why in sorted(self.failures.items()))
        return text

    def to_json(self) -> dict:
        return {"outcome": self.outcome, "message": self.message, "cursors_removed": self.cursors_removed,
                "sessions": [{"session": sid, "marked": ids} for sid, ids in sorted(self.marked.items())],
                "failures": [{"session": sid, "message": why} for sid, why in sorted(self.failures.items())]}


def needs_migration(paths: StatePaths) -> bool:
    return "cursors" in load_runtime(paths)


def migrate(store: SessionStore, *, lock_timeout: float = LOCK_TIMEOUT_S) -> MigrationResult:
    """Mark the verifiable written prefix of every session, then drop the cursors
    (under the workspace write lock; `LockBusy` if it is not had in time)."""
    paths = StatePaths(store.state_dir)
    with write_lock(paths.runtime, lock_timeout):
        return _migrate(store, paths)


def _migrate(store: SessionStore, paths: StatePaths) -> MigrationResult:
    runtime = load_runtime(paths)
    if "cursors" not in runtime:
        return MigrationResult("not_needed")
    wid = workspace_id(store.state_dir)
    result = MigrationResult("migrated")
    for sid in store.session_ids():
        try:
            ids = safe_prefix(store, sid, candidates(paths.memory, sid))
            fresh = [n for n in ids if store.entry(sid, n).marks.get(MARK_KEY) != wid]
            if fresh:
                mark_written(store, sid, fresh, wid)
            if ids:
                result.marked[sid] = ids
        except (SessionError, OSError) as exc:
            result.failures[sid] = str(exc)
    if result.failures:
        result.outcome = "failed"
        return result
    runtime.pop("cursors", None)
    save_runtime(paths, runtime)
    result.cursors_removed = True
    return result


def candidates(memory: Path, sid: str) -> set[str]:
    """Node ids the archives vouch for: the v2 valid prefix and the first legacy header."""
    out: set[str] = set()
    prefix = f"{PROVIDER}/{sid}/"
    probe = prefix + "x"
    v2_rel = archive_path(probe)
    try:
        data = (memory / v2_rel).read_bytes()
    except OSError:
        data = None
    if data is not None:
        out.update(f.source_id[len(prefix):] for f in scan_archive(data, v2_rel).frames if f.source_id.startswith(prefix))
    legacy_rel = legacy_path(probe)
    if legacy_rel is None:
        return out
    try:
        text = (memory / legacy_rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return out
    title = f"# {sid}\n\n"
    if text.startswith(title):
        lines = text[len(title):].split("\n", 2)
        if len(lines) >= 2 and lines[1].startswith("<!-- source-id:") and lines[1].endswith(" -->"):
            source_id = lines[1][len("<!-- source-id:"):-len(" -->")]
            if (source_id.startswith(prefix) and legacy_path(source_id) == legacy_rel
                    and lines[0] == f'<a id="{anchor_for(source_id)}"></a>'):
                out.add(source_id[len(prefix):])
    return out


def safe_prefix(store: SessionStore, sid: str, found: set[str]) -> list[str]:
    """Records lying on a path whose records, from the first, are all candidates.

    `clean(n)` = every record from the path's start to `n` inclusive is a candidate;
    non-records (tools, runtime turns, summaries, empty or rewound turns) neither
    break the prefix nor get marked. Computed once per node, iteratively."""
    if not found:
        return []
    entries = store.index(sid).entries
    clean: dict[str, bool] = {}
    for start in entries:
        chain = []
        current: str | None = start
        while current is not None and current not in clean and current in entries:
            chain.append(current)
            current = entries[current].predecessor
            if len(chain) > len(entries):
                raise SessionError(f"session {sid}: predecessor cycle at {start}")
        ok = clean.get(current, True) if current is not None else True
        for nid in reversed(chain):
            e = entries[nid]
            if e.is_record and not e.rewound:
                ok = ok and nid in found
            clean[nid] = ok
    return sorted((n for n, ok in clean.items() if ok and entries[n].is_record and not entries[n].rewound),
                  key=lambda n: entries[n].seq)
