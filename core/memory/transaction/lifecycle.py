"""The one transaction every change to memory goes through (DESIGN §6).

    with Transaction(ws, "edit", "fix Ada's drink") as txn:
        txn.write_topic("people/ada.md", new_text)     # a human's new text
        # or: txn.apply(lambda topics_dir: ...)         # a writer/organizer working in the stage
        result = txn.commit()                           # installed, or rejected with diagnostics

Order, as the design fixes it: the write lock is taken (a wait longer than the
timeout raises the retryable `LockBusy`); an interrupted earlier install is repaired;
the baseline is read BEFORE anything is copied and the stage is made (stage.py); the
edit is applied; the edit is judged (judge.py: the transaction's rules, normalization,
manual sources, validation); only then is the change set built (changes.py: derived
views, the core render, runtime counters) and installed (install.py), committed to
git and audited. A rejection changes no byte.

`check()` (or `Transaction(..., preview=True)` then `commit()`) judges and computes
the result and its diff without installing: the sleep preview. `reset()` puts the
stage back for a repair attempt. `archive(records)` appends evidence into the stage
as the transaction itself (the editor never writes `sources/`); its ids become the
batch whose records a writer's new blocks must cite. `count(update)` adds counters to
`runtime.json` in the same install (the writer's batch counters).
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import git

from ...redact import for_state as redactor_for, placeholder_counts
from .. import derived, install
from ..core_render import CORE_TOPIC, promoted_legacy_core
from ..errors import TransactionClosed
from ..sources import SourceRecord, anchor_for, archive_path
from ..topics import parse_cached, topic_rel, without_block
from ..validate import Diagnostic
from ..workspace import Workspace
from .changes import RuntimeUpdate, change_set
from .judge import judge
from .result import TransactionResult
from .stage import Baseline, Stage, read_bytes, remove_stale_stages, stage_prefix

KINDS = ("write", "sleep", "edit", "revert", "migrate", "sync")
VERSIONED_FILES = ("workspaces.json", "purges.json")  # root files a transaction may write besides topics and sources
LOCK_TIMEOUT = 1.0  # seconds; a longer wait is a retryable failure: a user must never wait on memory


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _evidence_refs(source_ids: Iterable[str]) -> set[str]:
    return {f"{archive_path(s)}#{anchor_for(s)}" for s in source_ids}


class Transaction:
    """A staged change to the workspace; use as a context manager (holds the write lock)."""

    def __init__(
        self, workspace: Workspace, kind: str, summary: str = "", *,
        evidence: Iterable[str] | None = None, lock_timeout: float = LOCK_TIMEOUT,
        preview: bool = False, manual_sources: bool | None = None, admit_ids: Iterable[str] = (),
        creation_order: dict[str, int] | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"transaction kind must be one of {', '.join(KINDS)}: {kind!r}")
        self.ws = workspace
        self.kind = kind
        self.summary = summary
        self.preview = preview
        self.lock_timeout = lock_timeout
        self.manual_sources = kind == "edit" if manual_sources is None else manual_sources
        self.evidence: set[str] | None = None if evidence is None else _evidence_refs(evidence)
        self._admit = frozenset(admit_ids)  # sync: block ids another machine committed keep their id
        self._order = creation_order  # sync: the creation order of the machine whose render we match
        self._stack: ExitStack | None = None
        self._closed = False
        self._retire: dict[str, str] = {}
        self._conflicts: list[Diagnostic] = []
        self._updates: list[RuntimeUpdate] = []
        self._core_in_head: bool | None = None  # see _core_committed
        self._at = time.time()
        self._redactor = redactor_for(workspace.state_dir)
        self._archive_redactions: Counter[str] = Counter()  # placeholders in the records archived
        self._topic_redactions: Counter[str] = Counter()  # secrets redacted from the changed topics
        self.model_usage: dict[str, Any] | None = None  # the model that made the change: tokens, cost (audited)

    # -- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Transaction:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        if self._stack is not None or self._closed:
            raise TransactionClosed("a transaction opens once")
        with ExitStack() as stack:
            stack.enter_context(self.ws.lock(self.lock_timeout))
            self.ws.recover_locked()
            remove_stale_stages(self.ws)  # a killed transaction's, under the lock: none is live
            self._stage = Stage(Baseline.read(self.ws), stage_prefix(self.ws))  # the baseline before the copy
            stack.callback(self._stage.remove)
            self._stack = stack.pop_all()

    def close(self) -> None:
        self._closed = True
        if self._stack is not None:
            stack, self._stack = self._stack, None
            stack.close()

    def _ensure_open(self) -> Stage:
        if self._stack is None:
            raise TransactionClosed("the transaction is not open (use it as a context manager)")
        return self._stage

    @property
    def stage(self) -> Path:
        """The stage's workspace root (`topics/`, `sources/`)."""
        return self._ensure_open().root

    @property
    def topics_dir(self) -> Path:
        """The stage's `topics/`: where an editor works."""
        return self._ensure_open().topics

    @property
    def sources_dir(self) -> Path:
        """The stage's read-only `sources/` (the batch's records included once archived)."""
        return self._ensure_open().sources

    # -- edits ---------------------------------------------------------------------------------

    def live_text(self, topic: str) -> str | None:
        """The topic as it is in the live workspace (the baseline), or None."""
        data = self._ensure_open().baseline.topics.get(topic_rel(topic))
        return None if data is None else data.decode("utf-8", errors="replace")

    def read_topic(self, topic: str) -> str | None:
        data = read_bytes(self.topics_dir / topic_rel(topic))
        return None if data is None else data.decode("utf-8", errors="replace")

    def write_topic(self, topic: str, text: str | bytes, *, base: str | None = None) -> None:
        """Replace a topic's text (creating it if new); bytes are checked as UTF-8 by
        validation. With `base`, the text the editor started from: if the live topic
        differs, the transaction is rejected (`conflict`)."""
        rel = topic_rel(topic)
        if base is not None and self.live_text(rel) != base:
            self._conflicts.append(Diagnostic(
                "conflict", f"topics/{rel}", None, None, f"topics/{rel} changed on disk since the edit began",
                "reload the topic (or keep your draft) and save again"))
        target = self.topics_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))

    def delete_topic(self, topic: str) -> None:
        (self.topics_dir / topic_rel(topic)).unlink(missing_ok=True)

    def apply(self, edit: Callable[[Path], object]) -> None:
        """Let `edit(topics_dir)` change the staged topics (a writer's or organizer's tools)."""
        edit(self.topics_dir)

    def retire(self, block_id: str, reason: str) -> None:
        """Allow `block_id` to leave memory, for `reason` (recorded in the audit log)."""
        reason = _one_line(reason, 500)
        if not reason:
            raise ValueError("retiring a block needs a reason")
        self._retire[block_id] = reason

    def archive(self, records: Iterable[SourceRecord]) -> list[str]:
        """Append `records` to the staged archive (idempotent); their ids join this
        transaction's evidence. Returns the ids of all `records`."""
        records = [self._redacted(r) for r in records]
        stage = self._ensure_open()
        before = len(stage.archived)
        stage.archive(records)
        added = set(stage.archived[before:])
        for record in records:  # counted once, when archived: a batch archived earlier is not counted again
            if record.source_id in added:
                self._archive_redactions.update(placeholder_counts(record.content))
        ids = [r.source_id for r in records]
        self.evidence = (self.evidence or set()) | _evidence_refs(ids)
        return ids

    def _redacted(self, record: SourceRecord) -> SourceRecord:
        """Evidence never holds a secret (DESIGN §16), even from a session stored before
        redaction existed; the placeholders of the records it adds are counted for the audit."""
        content = self._redactor.text(record.content)
        return record if content == record.content else replace(record, content=content)

    def _redact_topic(self, text: str) -> str:
        return self._redactor.text(text, self._topic_redactions)

    def merge_archive(self, rel: str, data: bytes) -> None:
        """Sync: replace the staged archive `rel` (`sources/…`) by `data`, which keeps every
        record it holds byte for byte and adds the incoming ones (their evidence joins this
        transaction's)."""
        refs = self._ensure_open().merge_archive(rel, data)
        if self.evidence is not None:
            self.evidence |= set(refs)

    def write_versioned(self, name: str, data: bytes) -> None:
        """Write one of the few versioned files outside topics/ and sources/ (`VERSIONED_FILES`)."""
        if name not in VERSIONED_FILES:
            raise ValueError(f"not a versioned workspace file: {name!r}")
        self._ensure_open().versioned[name] = data

    def count(self, update: RuntimeUpdate) -> None:
        """Have `update(state, changed_topics)` change runtime.json's counters in this
        transaction's install (under its lock, all or nothing with the edit)."""
        self._updates.append(update)

    def reset(self) -> None:
        """Put the staged topics back as they are live (a repair attempt starts over);
        archived evidence and counters stay, retirements are forgotten."""
        self._ensure_open().reset_topics()
        self._retire.clear()
        self._conflicts.clear()

    # -- judging and installing ------------------------------------------------------------

    def check(self) -> TransactionResult:
        """Judge the staged edit and compute what installing it would change.

        A legacy root `core.md` (formats §4.6) is promoted into `topics/core.md` along
        with the edit when the result passes; when it would not, the edit is judged
        without it and the legacy file is left as it is."""
        legacy = self._legacy_core()
        if legacy is None:
            return self._check(None)
        result = self._check(legacy)
        if result.outcome == "rejected" and any(d.file == f"topics/{CORE_TOPIC}" for d in result.diagnostics):
            return self._check(None)
        return result

    def _check(self, legacy_core: bytes | None) -> TransactionResult:
        stage = self._ensure_open()
        result = TransactionResult("previewed", self.kind, self.summary, skipped=list(stage.baseline.skipped))
        self._topic_redactions = Counter()
        verdict = judge(stage, conflicts=self._conflicts, retire=self._retire, evidence=self.evidence,
                        manual_at=self._at if self.manual_sources else None, legacy_core=legacy_core,
                        redact=self._redact_topic, admit=self._admit)
        if not verdict.ok:
            result.outcome = "rejected"
            result.diagnostics = sorted(verdict.diagnostics, key=lambda d: (d.file or "", d.line or 0, d.rule))
            return result
        change_set(self.ws, stage, verdict, result, retire=self._retire, updates=self._updates,
                   core_committed=self._core_committed, order_hint=self._order)
        result.archived = stage.archived + verdict.manual_ids
        result.redactions = dict((self._archive_redactions + self._topic_redactions).most_common())
        self._docs = verdict.docs
        return result

    def _legacy_core(self) -> bytes | None:
        """The promotable root `core.md`: there is no `topics/core.md` on disk, in the stage
        or in the last commit (a core deleted since must not come back from its render)."""
        if CORE_TOPIC in self._ensure_open().baseline.topics or (self.topics_dir / CORE_TOPIC).exists():
            return None
        root = read_bytes(self.ws.root / "core.md")
        if root is None or self._core_committed():
            return None
        text = promoted_legacy_core(root.decode("utf-8", errors="replace"))
        return text.encode("utf-8") if text is not None else None

    def _core_committed(self) -> bool:
        """Whether the last commit has `topics/core.md` (asked only when the disk has none)."""
        if self._core_in_head is None:
            try:
                self.ws.repo.git.cat_file("-e", f"HEAD:topics/{CORE_TOPIC}")
                self._core_in_head = True
            except git.GitCommandError:  # never committed, or no commit yet
                self._core_in_head = False
        return self._core_in_head

    def commit(self) -> TransactionResult:
        """Judge and, unless rejected or previewing, install, commit and audit."""
        result = self.check()
        if result.outcome == "rejected" or self.preview:
            return result
        ws = self.ws
        txn = secrets.token_hex(8)
        message = _one_line(f"{self.kind}: {self.summary or 'update memory'}")
        record = {
            "txn": txn, "at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "kind": self.kind,
            "summary": _one_line(self.summary, 500), "changed_files": result.changed_files,
            "created_blocks": result.created_blocks, "retired": result.retired, "archived": result.archived,
            "workspace": ws.id, "redactions": result.redactions,
            **({"model": self.model_usage} if self.model_usage is not None else {}),
        }
        changes = [install.Change(path, result.after[path]) for path in sorted(result.after)]
        if changes:
            result.commit = install.install(ws.root, ws.runtime, ws.repo, changes, txn=txn, message=message,
                                            audit_record=record)
        derived.remember_build(str(ws.root), self._docs)
        result.outcome = "installed"
        self.close()
        return result


def save_topic(workspace: Workspace, topic: str, text: str | bytes, *, summary: str | None = None,
               base: str | None = None, lock_timeout: float = LOCK_TIMEOUT) -> TransactionResult:
    """A human's edit of one topic (`people/ada.md`; `core.md` is the canonical core)."""
    rel = topic_rel(topic)
    with Transaction(workspace, "edit", summary or f"topics/{rel}", lock_timeout=lock_timeout) as txn:  # "edit: topics/x.md"
        txn.write_topic(rel, text, base=base)
        return txn.commit()


def retire_block(workspace: Workspace, topic: str, block_id: str, reason: str, *,
                 lock_timeout: float = LOCK_TIMEOUT) -> TransactionResult:
    """Take block `block_id` out of `topic` and record it as retired with `reason`.
    Links elsewhere that still point at it reject the transaction."""
    rel = topic_rel(topic)
    with Transaction(workspace, "edit", f"retire ^{block_id} from topics/{rel}: {reason}",
                     lock_timeout=lock_timeout) as txn:
        txn.retire(block_id, reason)
        text = txn.read_topic(rel)
        if text is not None:
            txn.write_topic(rel, without_block(parse_cached(rel, text), block_id))
        return txn.commit()
