"""write / finish: conversations into memory (DESIGN §4, §5).

One pass: the branch's pending records (after the newest mark of this workspace) →
a batch cut from the OLDEST pending record up to the threshold → the batch's
evidence archived (its own transaction; archiving twice changes no byte) → the
writer edits topics in a write transaction, with one repair attempt → the batch's
nodes marked, only if the install succeeded AND the audit shows a changed topic
file → sleep if due. A crash between any two steps leaves the batch unmarked, so
it is redone: a duplicate at worst, which sleep merges; never a loss.

`write(force=False)` is one pass, and only when the pending records reach the
threshold; `write(force=True)` loops until nothing is pending. `finish` is the
session boundary: the head branch and every spawn branch (a sub-agent's delegated
work: its findings reach the main line only as a runtime notification, never a
record) written completely, then every other live branch only while its backlog
reaches the threshold (a short abandoned branch is a retry, not knowledge). A cross-process lock guards the whole call; waiting more than 1 s
for it, or for the workspace lock, is `retryable`.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from filelock import FileLock, Timeout

from ..sessions.marker import PendingTurn, counted_ids, cut_batch, mark_written, pending, trigger_tokens, workspace_id
from ..memory import LockBusy, SourceIndex, SourceRecord, Transaction, Workspace, install, records_to_sources
from ..memory.sources import anchor_for, archive_path, speaker_label
from ..paths import StatePaths
from ..sessions.records import records_for
from ..sessions.errors import SessionBusy, SessionError
from ..sessions.store import SessionStore
from .classify import Failure, PassResult, classify
from .counters import batch_written, sleep_due
from .agent import ModelMisbehaved, describe_calls
from .editing import Rejected, changed_files, edit_with_repair, model_usage
from .migration import migrate, needs_migration
from .model import context_window, model_endpoint, model_timeout, resolve_model
from .prompts import CONTRACT, NOTHING_TO_KEEP, Evidence, SessionContext, session_context, write_task
from .reorganize import organize
from ..writer_status import record_outcome, record_session_outcome
from .tools import EDIT_TOOLS, WRITER_TOOLS
from ..wording import count

LOCK_TIMEOUT_S = 1.0
MARK_WAIT_NOTE_S = 1.0  # a longer wait for the session lock while marking is noted in the result's message
PASS_LOCK = "write-pass.lock"


@dataclass
class BatchResult:
    turns: list[str]  # node ids handed to the writer (and now marked)
    changed_files: list[str]
    commit: str | None
    redactions: dict[str, int] = field(default_factory=dict)  # redacted secrets in the batch's evidence, by kind
    model: dict[str, Any] | None = None  # model_usage(): id, input_tokens, output_tokens, cost_usd

    def to_json(self) -> dict[str, Any]:
        return {"turns": self.turns, "changed_files": self.changed_files, "commit": self.commit,
                "redactions": self.redactions, **({"model": self.model} if self.model is not None else {})}


class WriteResult(PassResult[BatchResult]):
    """ok codes: "WRITTEN" | "NOTHING_PENDING" | "BELOW_THRESHOLD". `model`: what the pass's
    model runs cost, failed ones included (None: no model was called)."""

    model: dict[str, Any] | None = None

    @property
    def redactions(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for b in self.batches:
            total.update(b.redactions)
        return dict(total.most_common())

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "redactions": self.redactions,
                **({"model": self.model} if self.model is not None else {})}


def batch_limit(window: int | None) -> int | None:
    """The most tokens a batch's turns may hold for a model with this context window: half
    of what the contract and the tools' schemas leave (the other half is the memory core,
    the topics the writer reads, tool results and its answers). None: no window known."""
    if window is None:
        return None
    from ..tokens import count_tokens
    from .tools import SCHEMAS

    fixed = count_tokens(CONTRACT) + count_tokens(json.dumps([SCHEMAS[n] for n in WRITER_TOOLS]))
    return max(1, (window - fixed) // 2)


def fit(batch: list[PendingTurn], limit: int | None) -> list[PendingTurn]:
    """The leading turns of `batch` within `limit` tokens (the first turn always: alone, a
    turn over the window is refused by the agent loop before anything is sent)."""
    if limit is None:
        return batch
    total = 0
    for i, turn in enumerate(batch):
        total += turn.tokens
        if total > limit:
            return batch[: max(i, 1)]
    return batch


class _Stop(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def write(store: SessionStore, session_id: str, *, force: bool = False, tip: str | None = None,
          model: str | None = None) -> WriteResult:
    """Write the branch ending at `tip` (default: the head): one pass at threshold, or
    everything pending with `force`."""
    return _Run(store, model).run(session_id, tip, lambda w: w.drain(session_id, tip, "all" if force else "once"))


def finish(store: SessionStore, session_id: str, *, model: str | None = None) -> WriteResult:
    """The session boundary: the head branch and every spawn branch completely, then each
    other live branch (a retry, a re-ask) while its backlog reaches the threshold. Shared
    prefixes are written once (marks)."""
    def body(w: _Run) -> None:
        tips = store.list_branches(session_id)
        head = store.head(session_id)
        if head in tips:
            w.drain(session_id, head, "all")
        for tip in tips:
            if tip != head:
                w.drain(session_id, tip, "all" if store.is_spawn_branch(session_id, tip) else "full")

    return _Run(store, model).run(session_id, None, body)


def _nothing_to_keep(audit: list[dict[str, Any]]) -> bool:
    """The writer edited nothing and answered that the batch holds nothing worth keeping
    (silence, or an edit that failed, is not that: WRITER_NO_PROGRESS)."""
    edits = [e for e in audit if e.get("tool") in EDIT_TOOLS]
    replies = [str(e.get("reply", "")).strip() for e in audit if e.get("tool") == "agent"]
    return not edits and bool(replies) and replies[-1] == NOTHING_TO_KEEP


@contextmanager
def _pass_lock(paths: StatePaths) -> Iterator[None]:
    paths.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = FileLock(str(paths.runtime / PASS_LOCK), mode=0o600, thread_local=False)
    try:
        lock.acquire(timeout=LOCK_TIMEOUT_S)
    except Timeout:
        raise LockBusy("another write pass holds the writer lock; retry later") from None
    try:
        yield
    finally:
        lock.release()


class _Run:
    """One write or finish call: its settings, the batches done, notes for the message."""

    def __init__(self, store: SessionStore, model: str | None) -> None:
        self.store = store
        self.state_dir = store.state_dir
        self.paths = StatePaths(store.state_dir)
        self.model_arg = model
        self.batches: list[BatchResult] = []
        self.notes: list[str] = []
        self.below: tuple[int, int] | None = None  # (pending tokens, threshold) of a skipped pass
        self.usage: list[dict[str, Any]] = []  # model_usage() of every batch's runs, failed ones included

    def run(self, sid: str, tip: str | None, body: Any) -> WriteResult:
        try:
            self._check_input(sid, tip)
            with _pass_lock(self.paths):
                if needs_migration(self.paths):
                    migrated = migrate(self.store, lock_timeout=LOCK_TIMEOUT_S)
                    if migrated.outcome == "failed":
                        raise _Stop(Failure("TRANSACTION_FAILURE_UNKNOWN", True, migrated.message))
                self.ws = Workspace.open(self.state_dir)
                self.wid = workspace_id(self.state_dir)
                self.counted = counted_ids(self.state_dir)
                self.model = resolve_model(self.state_dir, self.model_arg)
                self.timeout = model_timeout(self.state_dir)
                self.threshold = trigger_tokens(self.state_dir)
                self.limit: int | None = None
                body(self)
            result = self._ok()
        except _Stop as stop:
            result = self._failed(stop.failure)
        except Rejected as exc:
            result = self._failed(Failure("COMMIT_REJECTED", False, f"{exc}; the turns stay pending"))
        except SessionError as exc:
            result = self._failed(Failure("SESSION_NODES_UNAVAILABLE", False, str(exc)))
        except Exception as exc:
            result = self._failed(classify(exc))
        if hasattr(self, "ws"):  # the pass left them alone; the caller can rename them
            result.skipped = self.ws.topic_files().skipped
        result.model = self._usage()
        if result.outcome == "ok" and self.batches:
            record_outcome(self.paths, True)
        elif result.outcome != "ok":
            record_outcome(self.paths, False, result.code, result.outcome == "retryable", result.retry_after_s)
        if result.outcome != "retryable" and isinstance(sid, str) and sid:
            record_session_outcome(self.paths, sid, result.code if result.outcome == "permanent" else None,
                                   result.message)
        return result

    def _usage(self) -> dict[str, Any] | None:
        if not self.usage:
            return None
        costs = [u["cost_usd"] for u in self.usage if u.get("cost_usd") is not None]
        return {"id": self.usage[-1]["id"], "input_tokens": sum(u["input_tokens"] for u in self.usage),
                "output_tokens": sum(u["output_tokens"] for u in self.usage),
                "cost_usd": round(sum(costs), 8) if costs else None}

    def _batch_limit(self) -> int | None:
        """The model's context window, cut once per pass (asking litellm imports it: only on the first batch)."""
        if self.limit is None:
            self.limit = batch_limit(context_window(self.model, model_endpoint(self.state_dir))) or 0
        return self.limit or None

    def _check_input(self, sid: str, tip: str | None) -> None:
        if not isinstance(sid, str) or not sid:
            raise _Stop(Failure("MISSING_SESSION_ID", False, "a session id is required"))
        if not self.store.has_session(sid):
            raise _Stop(Failure("SESSION_NODES_UNAVAILABLE", False, f"unknown session: {sid}"))
        if tip is not None and not self.store.has_node(sid, tip):
            raise _Stop(Failure("INVALID_ARGUMENT", False, f"unknown node {tip} in session {sid}"))

    def _ok(self) -> WriteResult:
        if self.batches:
            turns = sum(len(b.turns) for b in self.batches)
            files = sorted({f for b in self.batches for f in b.changed_files})
            text = f"wrote {count(len(self.batches), 'batch')}, {count(turns, 'turn')}, into {count(len(files), 'topic file')}"
            if redacted := WriteResult("ok", "", "", self.batches).redactions:
                text += (f"; {sum(redacted.values())} secret(s) redacted ("
                         + ", ".join(f"{kind} {n}" for kind, n in redacted.items()) + ")")
            return WriteResult("ok", "WRITTEN", "; ".join([text, *self.notes]), self.batches)
        if self.below is not None:
            text = f"{self.below[0]} of {self.below[1]} tokens pending: below the threshold, nothing written"
            return WriteResult("ok", "BELOW_THRESHOLD", "; ".join([text, *self.notes]))
        return WriteResult("ok", "NOTHING_PENDING", "; ".join(["nothing pending", *self.notes]))

    def _failed(self, failure: Failure) -> WriteResult:
        done = f" (after {count(len(self.batches), 'written batch')})" if self.batches else ""
        wait = "" if failure.retry_after_s is None else f"; the provider asks to wait {failure.retry_after_s:g} s"
        return WriteResult(failure.outcome, failure.code, failure.message + wait + done, self.batches,
                           retry_after_s=failure.retry_after_s)

    # -- passes -----------------------------------------------------------------------

    def drain(self, sid: str, tip: str | None, mode: str) -> None:
        """`once`: one pass at threshold; `all`: until nothing is pending; `full`: while
        the backlog reaches the threshold."""
        while True:
            turns = pending(self.store, sid, tip, self.counted)
            if turns and len(self.counted) > 1 and self._already_in_memory(sid, turns):
                continue
            if not turns:
                return
            batch = cut_batch(turns, self.threshold)  # counts only the turns it takes
            total = sum(t.tokens for t in batch)  # all of them when below the threshold
            if mode != "all" and total < self.threshold:
                self.below = (total, self.threshold)
                return
            batch = fit(batch, self._batch_limit())  # the model's context window bounds the batch too
            self.batches.append(self._write_batch(sid, batch))
            self._sleep_if_due()
            if mode == "once":
                return

    def _already_in_memory(self, sid: str, turns: list[PendingTurn]) -> bool:
        """Memory shared through sync may already hold these turns: the same transcript,
        imported and written on another machine, arrives with its evidence cited. Mark the
        oldest turns whose records a topic cites (only a leading run: a mark hides every
        older turn of the branch) and say whether any were. A turn archived but cited by
        nothing (chatter the writer kept no note of) joins the run when a later turn of it
        is cited: that batch was installed."""
        cited = self.ws.cited_targets()
        index = SourceIndex(self.ws.root)
        run: list[str] = []
        uncited: list[str] = []
        for source in records_to_sources(records_for(self.store, sid, [t.id for t in turns])):
            node = source.source_id.rsplit("/", 1)[1]
            if f"{archive_path(source.source_id)}#{anchor_for(source.source_id)}" in cited:
                run += uncited + [node]
                uncited = []
            elif (scan := index.scan(archive_path(source.source_id))) is not None and source.source_id in scan.by_id:
                uncited.append(node)
            else:
                break
        if run:
            self._mark(sid, run, "already in memory through sync")
            self.notes.append(f"{count(len(run), 'turn')} already in memory through sync, marked")
        return bool(run)

    def _write_batch(self, sid: str, batch: list[PendingTurn]) -> BatchResult:
        ids = [t.id for t in batch]
        records = records_for(self.store, sid, ids)
        sources = records_to_sources(records, speakers=self._speakers(sid))
        archived = self._archive(sources, sid)
        install.checkpoint("batch-archived")  # fault injection only (tests, bench/stress.py)
        spawned = self._spawn_roots(sid, ids)
        items = [Evidence(s.source_id, r.role, speaker_label(s.speaker_display, s.speaker_id, s.role), r.text,
                          s.timestamp, r.id in spawned) for s, r in zip(sources, records)]
        with Transaction(self.ws, "write", f"{len(ids)} turn(s) of session {sid}", evidence=[],
                                 lock_timeout=LOCK_TIMEOUT_S) as txn:
            txn.archive(sources)
            txn.count(batch_written(sum(t.tokens for t in batch)))
            try:
                result, audit = edit_with_repair(txn, paths=self.paths, model=self.model,
                                                 task=write_task(items, txn.topics_dir, self._context(sid)),
                                                 tools=WRITER_TOOLS,
                                                 stage="write", turns=len(records), timeout=self.timeout)
            except ModelMisbehaved as exc:  # the transaction closes unapplied: nothing of the run installs
                self.usage.append(model_usage(self.model, exc.run.audit))
                raise _Stop(Failure(exc.code, False, f"{exc}; the {count(len(ids), 'turn')} stay pending")) from exc
            except Rejected as exc:
                self.usage.append(model_usage(self.model, exc.audit))
                raise
        self.usage.append(model_usage(self.model, audit))
        install.checkpoint("batch-installed")  # between install and marking: a crash here is a duplicate
        changed = changed_files(audit)
        if not changed and _nothing_to_keep(audit):  # said so explicitly: the turns are handled, no topic changes
            self._mark(sid, ids, "handled (nothing to keep)")
            return BatchResult(ids, [], None, model=self.usage[-1])
        if not changed:
            raise _Stop(Failure("WRITER_NO_PROGRESS", False,
                                f"the writer changed no topic file for {len(ids)} turn(s) ({describe_calls(audit)}); "
                                "nothing marked, the turns stay pending"))
        self._mark(sid, ids, f"installed{f' as {result.commit[:12]}' if result.commit else ''}")
        redactions = dict((Counter(archived) + Counter(result.redactions)).most_common())  # each secret once
        return BatchResult(ids, changed, result.commit, redactions, self.usage[-1])

    def _mark(self, sid: str, ids: list[str], done: str) -> None:
        """Mark turns whose batch is `done` (installed): waiting for the session lock as long
        as its holder works (an import), since giving up would only have them written
        again. What stops marking is named for what it is, never a model timeout:
        SESSION_BUSY (the holder shows no sign of work; retryable) or MARKING_FAILED
        (the marks cannot be written: permissions, a full disk)."""
        started = time.monotonic()
        try:
            mark_written(self.store, sid, ids, self.wid)
        except SessionBusy as exc:
            raise _Stop(Failure("SESSION_BUSY", True, f"{len(ids)} turn(s) {done}, but not marked: {exc}; "
                                "they stay pending and are written again")) from exc
        except (OSError, SessionError) as exc:
            raise _Stop(Failure("MARKING_FAILED", False, f"{len(ids)} turn(s) {done}, but marking them failed: "
                                f"{classify(exc).message}; they stay pending and are written again")) from exc
        waited = time.monotonic() - started
        if waited >= MARK_WAIT_NOTE_S:
            self.notes.append(f"marking waited {waited:.0f} s for session {sid}'s lock (another writer held it)")

    def _meta(self, sid: str) -> dict:
        try:
            return self.store.meta(sid)
        except (OSError, ValueError, SessionError):
            return {}

    def _spawn_roots(self, sid: str, ids: list[str]) -> set[str]:
        """The turns of `ids` that start a sub-agent's branch: the prompt the agent gave it."""
        entries = self.store.index(sid).entries
        return {i for i in ids if (entry := entries.get(i)) is not None and entry.spawn_root}

    def _context(self, sid: str) -> SessionContext:
        return session_context(self._meta(sid), self.ws.core_budget())

    def _speakers(self, sid: str) -> dict[str, str]:
        """The names the session's `speakers` metadata gives its roles: the archive labels
        their turns with them ("Caroline", not "Owner"), so evidence reads who said it."""
        raw = self._meta(sid).get("speakers")
        return {role: name for role, name in raw.items() if isinstance(name, str) and name.strip()} \
            if isinstance(raw, dict) else {}

    def _archive(self, sources: list[SourceRecord], sid: str) -> dict[str, int]:
        """Evidence first, in its own transaction, unless the archive already holds it
        (a redone batch): the archive never lags behind the marks. Returns the redactions
        its records carry (counted by the transaction that archives them, and only there)."""
        index = SourceIndex(self.ws.root)
        if all((scan := index.scan(archive_path(s.source_id))) is not None and s.source_id in scan.by_id
               for s in sources):
            return {}
        with Transaction(self.ws, "write", f"evidence: {len(sources)} record(s) of session {sid}",
                                 lock_timeout=LOCK_TIMEOUT_S) as txn:
            txn.archive(sources)
            return txn.commit().redactions

    def _sleep_if_due(self) -> None:
        due = sleep_due(self.paths)
        if not due.due:
            return
        try:
            result = organize(self.ws, model=self.model, timeout=self.timeout, lock_timeout=LOCK_TIMEOUT_S,
                              is_global=due.is_global)
        except Exception as exc:  # the batch is written; a failed sleep is retried when next due
            failure = Failure("COMMIT_REJECTED", False, str(exc)) if isinstance(exc, Rejected) else classify(exc)
            self.notes.append(f"sleep ({due.reason}) failed: {failure.code}: {failure.message}")
            return
        if result.changed_files:
            self.notes.append(f"sleep ({due.reason}) reorganized {len(result.changed_files)} topic file(s)")
