"""What the Sessions screen shows and does, through the engine's public API: the session
list, one session's graph, writing a branch or finishing a session, importing an agent's
transcripts.

No Textual here: everything runs in worker threads (each with its own
`SessionStore`, so no engine object is shared between threads) and the results
are snapshots handed to the widgets, which only read them. Pending turns and the next
batch come from `scriptorium.core.sessions.marker` unchanged — the screen shows exactly
what the writer would get. The write pipeline (and with it the memory package, and
litellm when the model is called) and the importers are imported inside the runs, so
opening the app never loads them.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scriptorium.core.sessions.graph_layout import GraphItem, LaneRow, display_order, layout
from scriptorium.core.sessions.marker import (
    MARK_KEY,
    BranchPending,
    PendingTurn,
    WorkspaceIdError,
    counted_ids,
    cut_batch,
    pending,
    pending_branches,
    trigger_tokens,
)
from scriptorium.core.sessions.nodes import Node
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.index import IndexEntry, NodeFileError, read_node_file
from scriptorium.core.sessions.paths import SessionPaths
from scriptorium.core.sessions.errors import SessionError
from scriptorium.core.sessions.reading import SessionProblem
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer_status import session_failures

from .states import (  # noqa: F401  (re-exported: the model's vocabulary)
    ELSEWHERE,
    IMPORT_KINDS,
    PENDING,
    REWOUND,
    ROLE_LABELS,
    STATES,
    UNRECORDED,
    WRITTEN,
    short_id,
)

# What reading the sessions (or one session) can raise that the screen reports instead.
LIST_ERRORS = (OSError, WorkspaceIdError)
GRAPH_ERRORS = (SessionError, OSError, WorkspaceIdError)

def node_state(entry: IndexEntry, workspaces: frozenset[str]) -> str:
    """The state a node is drawn in; marks by workspaces that do not share this memory
    are shown, not trusted (`workspaces`: the ids whose marks count, see counted_ids)."""
    if entry.rewound:
        return REWOUND
    if not entry.is_record:
        return UNRECORDED
    mark = entry.marks.get(MARK_KEY)
    if mark in workspaces:
        return WRITTEN
    return ELSEWHERE if mark else PENDING


# --- the session list ---------------------------------------------------------


@dataclass(frozen=True)
class WriteFailure:
    """The session's last write ended `permanent` (retrying gives the same answer): a person must look.
    Read from the writer's record; the strings are untrusted."""

    code: str
    message: str
    at: str


@dataclass(frozen=True)
class SessionRow:
    id: str
    title: str
    last_activity: float  # newest turn's time (import-safe), else the session's updated_at
    branches: int
    pending_turns: int
    pending_tokens: int
    failure: WriteFailure | None = None
    redactions: int = 0  # secrets redacted from its turns (flagged in the list)


@dataclass(frozen=True)
class SessionListing:
    rows: list[SessionRow]
    problems: list[SessionProblem]  # sessions that could not be read, reported not hidden

    def row(self, session_id: str) -> SessionRow | None:
        return next((row for row in self.rows if row.id == session_id), None)


def list_sessions(state_dir: Path) -> SessionListing:
    """Every session with its branch count, pending backlog (shared prefixes counted once) and
    permanent write failure."""
    return _list(SessionStore(state_dir), None)[0]


@dataclass(frozen=True)
class NextGraph:
    """The graph the screen opens next, still to be read (`read()`, in the listing's thread)."""

    session_id: str
    read: Callable[[], SessionGraph]


def list_and_open(state_dir: Path, prefer: str | None) -> tuple[SessionListing, NextGraph | None]:
    """The session list, and a function reading the graph of the session the screen opens next:
    `prefer` when it is still listed, else the first row (None when no readable session is
    listed first). That graph reuses the store and the walk of every branch the listing made,
    so call it in the same thread, soon after."""
    store = SessionStore(state_dir)
    listing, kept = _list(store, prefer)
    target = prefer if prefer is not None and listing.row(prefer) else (listing.rows[0].id if listing.rows else None)
    if target is None:
        return listing, None
    walked = kept.get(target)
    return listing, NextGraph(target, lambda: _load_graph(store, target, walked))


def _list(store: SessionStore, prefer: str | None) -> tuple[SessionListing, dict[str, list[BranchPending]]]:
    """The listing, and the branch walks of `prefer` and of the newest session (what opens next)."""
    state_dir = store.state_dir
    summaries, problems = store.list_sessions()
    problems = list(problems)
    rows: list[SessionRow] = []
    wid = counted_ids(state_dir) if summaries else frozenset()
    failures = session_failures(StatePaths(state_dir)) if summaries else {}
    kept: dict[str, list[BranchPending]] = {}
    newest: SessionRow | None = None
    for summary in summaries:
        try:
            entries = store.index(summary.id).entries.values()
            branches = pending_branches(store, summary.id, wid)  # one walk shared by every branch
        except SessionError as exc:
            problems.append(SessionProblem(summary.id, str(exc)))
            continue
        owed = _owed(b.turns for b in branches)  # counts the turns no one counted yet...
        _keep_counts(store, summary.id)  # ...and keeps them: the next start does not count again
        times = [e.created_at for e in entries if e.kind != "root"]
        row = SessionRow(summary.id, summary.title, max(times, default=summary.updated_at),
                         len(branches), len(owed), sum(owed.values()), _failure(failures.get(summary.id)),
                         summary.redactions)
        rows.append(row)
        if summary.id == prefer:
            kept[row.id] = branches
        elif newest is None or _order(row) < _order(newest):  # keep only the newest's walk, not every one
            if newest is not None:
                kept.pop(newest.id, None)
            newest = row
            kept[row.id] = branches
    rows.sort(key=_order)
    return SessionListing(rows, problems), kept


def _keep_counts(store: SessionStore, session_id: str) -> None:
    """Save the tokens just counted into the session's index (pending turns are counted when
    first read, which loads the tokenizer: a second start of the app should not pay again).
    A read-only state directory only loses the hint."""
    try:
        store.save_index(session_id)
    except OSError:
        pass


def _order(row: SessionRow) -> tuple[float, str]:
    """The list's order: newest activity first."""
    return -row.last_activity, row.id


def _owed(branches: Iterable[list[PendingTurn]]) -> dict[str, int]:
    """Pending turns of all branches, shared prefixes counted once: id -> tokens.

    A branch's pending turns are a path ending at its tip; once a turn is known from another
    branch, so is the rest of the path down to the mark (the same on both), so each branch
    is read from its tip only until it meets a known turn: every turn once, not 2,000
    branches times their length."""
    owed: dict[str, int] = {}
    for turns in branches:
        for turn in reversed(turns):
            if turn.id in owed:
                break
            owed[turn.id] = turn.tokens
    return owed


def _failure(record: dict | None) -> WriteFailure | None:
    if record is None:
        return None
    return WriteFailure(str(record.get("code") or "UNKNOWN"), str(record.get("message") or ""),
                        str(record.get("at") or ""))


# --- one session as a graph ---------------------------------------------------


@dataclass(frozen=True)
class TurnRow:
    entry: IndexEntry
    lane: LaneRow
    state: str
    is_head: bool

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def role_label(self) -> str:
        return ROLE_LABELS.get(self.entry.kind, self.entry.kind)

    @property
    def foreign_mark(self) -> str | None:
        """The other workspace's id when this turn was written elsewhere."""
        return self.entry.marks.get(MARK_KEY) if self.state == ELSEWHERE else None


@dataclass(frozen=True)
class Branch:
    tip: str
    is_head: bool
    pending: list[PendingTurn]
    threshold: int  # the writer's trigger, which cuts `batch`
    spawned: bool = False  # a sub-agent's branch: written in full at the session's end, like the head

    # Computed when first asked (two thousand branches are listed, one is described).
    @functools.cached_property
    def batch(self) -> list[PendingTurn]:
        """What the writer gets next: `cut_batch(pending, threshold)`."""
        return cut_batch(self.pending, self.threshold)

    @functools.cached_property
    def pending_tokens(self) -> int:
        return sum(t.tokens for t in self.pending)

    @property
    def batch_tokens(self) -> int:
        return sum(t.tokens for t in self.batch)


@dataclass
class SessionGraph:
    session_id: str
    title: str
    head: str | None
    workspace: str
    threshold: int
    session_dir: Path
    rows: list[TurnRow]
    lanes: int
    branches: list[Branch]
    pending_turns: int = 0  # of every branch, shared prefixes counted once
    pending_tokens: int = 0
    _row_of: dict[str, int] = field(default_factory=dict, repr=False)
    _children: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _branch_of: dict[str, Branch] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._row_of = {row.id: i for i, row in enumerate(self.rows)}
        self._branch_of = {b.tip: b for b in self.branches}
        for row in sorted(self.rows, key=lambda r: r.entry.seq):
            if row.entry.predecessor is not None:
                self._children.setdefault(row.entry.predecessor, []).append(row.id)
        self.node = functools.lru_cache(maxsize=512)(self._read_node)

    def row_index(self, node_id: str) -> int | None:
        return self._row_of.get(node_id)

    def entry(self, node_id: str) -> IndexEntry | None:
        index = self._row_of.get(node_id)
        return None if index is None else self.rows[index].entry

    def branch(self, tip: str) -> Branch | None:
        return self._branch_of.get(tip)

    def walk(self, node_id: str) -> Iterator[IndexEntry]:
        """Entries from `node_id` toward the root along predecessors (the engine's branch path)."""
        seen: set[str] = set()
        entry = self.entry(node_id)
        while entry is not None and entry.id not in seen:
            seen.add(entry.id)
            yield entry
            entry = self.entry(entry.predecessor) if entry.predecessor else None

    def branch_ids(self, tip: str) -> set[str]:
        return {e.id for e in self.walk(tip)}

    def branches_through(self, node_id: str) -> list[Branch]:
        """Live branches whose path contains `node_id` (the head's first): the tips among the
        node's descendants along predecessors, found by walking down from it, not up from every tip."""
        below: set[str] = set()
        stack = [node_id]
        while stack:
            current = stack.pop()
            if current not in below:
                below.add(current)
                stack.extend(self._children.get(current, ()))
        return [b for b in self.branches if b.tip in below]

    def children(self, node_id: str) -> list[str]:
        """Ids whose predecessor is `node_id`, oldest first."""
        return self._children.get(node_id, [])

    def _read_node(self, node_id: str) -> Node | None:
        """The full node, read from its file on demand (only for rows on screen)."""
        entry = self.entry(node_id)
        if entry is None:
            return None
        try:
            return read_node_file(SessionPaths(self.session_dir).node(entry.filename))
        except NodeFileError:
            return None


def _parent(entry: IndexEntry, entries: dict[str, IndexEntry]) -> tuple[str | None, bool]:
    """The row a node hangs from in the graph, and whether that link is a sub-agent spawn."""
    if entry.predecessor is not None:
        return entry.predecessor, False
    if entry.caller and entry.caller in entries:  # a spawned branch or a tool call off its caller
        return entry.caller, entry.spawn_root
    return None, False


def _line_to(node_id: str | None, entries: dict[str, IndexEntry]) -> set[str]:
    """The graph path from a root down to `node_id`: drawn as the straight trunk."""
    line: set[str] = set()
    while node_id is not None and node_id in entries and node_id not in line:
        line.add(node_id)
        node_id = _parent(entries[node_id], entries)[0]
    return line


def _spawn_rooted(entries: dict[str, IndexEntry]) -> Callable[[str], bool]:
    """Does the predecessor chain ending at a node start at a sub-agent's spawn root (the
    engine's `is_spawn_branch`)? Each node's answer is remembered, so two thousand branches
    off one line walk the line once."""
    known: dict[str, bool] = {}

    def spawned(tip: str) -> bool:
        path: dict[str, None] = {}
        node: str | None = tip
        answer = False
        while node is not None and node in entries and node not in path:  # (a corrupt cycle ends it)
            if node in known:
                answer = known[node]
                break
            path[node] = None
            entry = entries[node]
            if entry.predecessor not in entries:  # the chain's root (no predecessor, or a missing one)
                answer = entry.spawn_root
                break
            node = entry.predecessor
        for walked in path:
            known[walked] = answer
        return answer

    return spawned


def load_graph(state_dir: Path, session_id: str) -> SessionGraph:
    """Build the graph snapshot of one session: layout, node states, branches and batches."""
    return _load_graph(SessionStore(state_dir), session_id, None)


def _load_graph(store: SessionStore, session_id: str, walked: list[BranchPending] | None) -> SessionGraph:
    """`load_graph` on `store`; `walked`: the session's `pending_branches`, when just read."""
    state_dir = store.state_dir
    meta = store.meta(session_id)
    entries = store.index(session_id).entries
    head = store.head(session_id)
    # The writer's own threshold, so the batch shown is the batch it would cut.
    wid = counted_ids(state_dir)
    threshold = trigger_tokens(state_dir)
    ordered = sorted(entries.values(), key=lambda e: e.seq)
    items = [GraphItem(e.id, *_parent(e, entries), side=e.rewound or e.kind == "summary", hangs=e.kind == "tool")
             for e in ordered]
    graph_layout = layout(display_order(items, trunk=_line_to(head, entries)))
    rows = [TurnRow(entries[lane.id], lane, node_state(entries[lane.id], wid), lane.id == head)
            for lane in graph_layout.rows]
    spawned = _spawn_rooted(entries)
    branches = [Branch(b.tip, b.is_head, b.turns, threshold,
                       spawned=not b.is_head and spawned(b.tip))
                for b in (walked if walked is not None else pending_branches(store, session_id, wid))]
    owed = _owed(b.pending for b in branches)
    _keep_counts(store, session_id)
    return SessionGraph(session_id, str(meta.get("title") or ""), head, wid, threshold,
                        store.session_dir(session_id), rows, graph_layout.lanes, branches,
                        pending_turns=len(owed), pending_tokens=sum(owed.values()))


# --- write actions: write one branch now, or finish a session ---------------------------


@dataclass(frozen=True)
class WriteJob:
    session_id: str
    tip: str | None  # the branch to write now (forced); None: finish the session

    @property
    def action(self) -> str:
        return "finish" if self.tip is None else "write"


@dataclass(frozen=True)
class WriteOutcome:
    """What the pipeline answered (`WriteResult` without the engine types)."""

    job: WriteJob
    outcome: str  # "ok" | "retryable" | "permanent"
    code: str
    message: str  # untrusted in part (model and exception text): sanitize before display
    turns: int  # turns written (and marked)
    files: list[str] = field(default_factory=list)  # topic files changed
    elapsed: float = 0.0
    usage: dict[str, Any] | None = None  # the model's: id, input_tokens, output_tokens, cost_usd (None: unpriced)

    @property
    def usage_line(self) -> str:
        """E.g. `openai/gpt-4o-mini · 1,234 tokens in, 56 out · $0.0012`; empty when nothing was spent."""
        u = self.usage
        if not u or not (u.get("input_tokens") or u.get("output_tokens") or u.get("cost_usd")):
            return ""  # no model called, or the offline one: nothing spent
        cost = u.get("cost_usd")
        price = f"${cost:.4f}" if isinstance(cost, (int, float)) else "no price known"
        return f"{u.get('id')} · {u.get('input_tokens', 0):,} tokens in, {u.get('output_tokens', 0):,} out · {price}"


def owed_ids(state_dir: Path, job: WriteJob) -> set[str]:
    """The turns still pending in the job's scope: its branch, or every live branch of the session.
    Progress is read this way while the pipeline works: each batch is marked when it is
    installed, so the turns of the job that are no longer pending are the turns written so far."""
    store = SessionStore(state_dir)
    wid = counted_ids(state_dir)
    if job.tip is not None:
        return {turn.id for turn in pending(store, job.session_id, job.tip, wid)}
    return {turn.id for branch in pending_branches(store, job.session_id, wid) for turn in branch.turns}


def run_job(state_dir: Path, job: WriteJob) -> WriteOutcome:
    """Run the job through the write pipeline with the configured model. The pipeline turns
    its own failures into outcomes; anything it raises is the caller's to report."""
    from scriptorium.core.writer import finish, write

    started = time.monotonic()
    store = SessionStore(state_dir)
    if job.tip is None:
        result = finish(store, job.session_id)
    else:
        result = write(store, job.session_id, tip=job.tip, force=True)
    files = sorted({f for batch in result.batches for f in batch.changed_files})
    turns = sum(len(batch.turns) for batch in result.batches)
    return WriteOutcome(job, result.outcome, result.code, result.message, turns, files, time.monotonic() - started,
                        result.model)


# --- the import action: read an agent's transcripts into sessions -----------------------


@dataclass(frozen=True)
class ImportJob:
    kind: str  # a key of IMPORT_KINDS
    paths: tuple[Path, ...] = ()  # empty: the agent's default location


@dataclass(frozen=True)
class ImportOutcome:
    """What an import did (`ImportReport` without the engine types), or why it stopped."""

    job: ImportJob
    ok: bool
    sessions: int = 0
    created: int = 0
    added: int = 0
    unchanged: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)  # untrusted text: sanitize before display
    message: str = ""  # why it stopped, when not ok (untrusted as well)
    elapsed: float = 0.0


def import_locations() -> dict[str, list[Path]]:
    """Each agent's default transcript directories (that exist or not), for the dialog to
    show what an import would read."""
    from scriptorium.core.importers import importer

    return {kind: list(importer(kind).default_roots()) for kind in IMPORT_KINDS}


def run_import(state_dir: Path, job: ImportJob, progress: Callable[[int, int, str], None]) -> ImportOutcome:
    """Import and summarize. A missing explicit path is an outcome, not an exception."""
    from scriptorium.core.importers.run import import_sources

    started = time.monotonic()
    try:
        report = import_sources(SessionStore(state_dir), job.kind, list(job.paths) or None, progress=progress)
    except FileNotFoundError as exc:
        return ImportOutcome(job, False, message=str(exc), elapsed=time.monotonic() - started)
    return ImportOutcome(job, True, sessions=len(report.sessions), created=sum(1 for s in report.sessions if s.created),
                         added=report.nodes_added, unchanged=report.nodes_unchanged,
                         skipped=sum(report.skipped.values()), errors=report.errors,
                         elapsed=time.monotonic() - started)
