"""The fork-stress world (issue 9): random operations on several sessions, run through
the real engine with crashes injected at every step boundary of a write, and mirrored
in a pure-Python DAG on which two baselines run the same operation sequence.

* Operations: append, tool call, retry (fork at the head), re-ask (fork from any
  earlier user turn), rewind, compaction, sub-agent spawn, per-turn `write`, `finish`,
  `sleep`. A write-type operation may carry a `CrashPlan`: the process "dies" (a
  `Crash`, which nothing in the engine catches) after the batch's evidence is archived,
  at any step of any install, after the install before marking, or halfway through
  the marks. The world then restarts as a new process would: a fresh `SessionStore`
  and `Workspace.open` (which repairs the interrupted install).
* "Handed to the writer" is counted at the model boundary: `Recorder` is a scripted
  instant model, registered like any litellm provider, that logs the record ids of
  every writer run it serves. Each run writes one block carrying a unique marker, so
  a hand-over *landed* (the writer changed memory) exactly when its marker is in the
  live topic after recovery.
* Invariants (`check`): the workspace validates and git agrees with the files; the
  store's live tips are the mirror's; every mark sits on a landed turn; every
  reachable turn has landed or is still pending on a live tip (nothing is silently
  lost). After `final` (a finish of every session, then an explicit write of the
  short abandoned branches finish leaves pending by design): missed = 0, and a turn
  landed twice only when a crash fell between its install and its marking.
* Baselines, on the same sequence and the same crashes: a position cursor per session
  (OpenProgram before the marker: written up to an ordinal of the head branch's rows)
  and a per-thread watermark where a fork is a new thread extracted from scratch
  (codex-cli's memories).

No relative imports: bench/stress.py imports this as `stress.world`, with tests/ on the path.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scriptorium.core.sessions import writing as session_store_module
from scriptorium.core.config import set_config_value
from scriptorium.core.sessions.repo import leftovers
from scriptorium.core.sessions.marker import MARK_KEY, PendingTurn, cut_batch, pending_branches, workspace_id
from scriptorium.core.memory import Workspace, install
from scriptorium.core.memory.audit import read_records
from scriptorium.core.memory.check import workspace_problems  # the stress world judges with core's own check
from scriptorium.core.memory.history import TRAILER
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.tokens import count_tokens
from scriptorium.core.writer import finish, register_provider, sleep, write
from scriptorium.core.writer.model import Reply
from stress.gitkill import MEMORY_TARGETS, MODES, SESSION_TARGETS, KillPlan

PROVIDER = "stress"
MODEL = f"{PROVIDER}/recorder"
THRESHOLD = 150  # writer.trigger_tokens: batches of a handful of turns
PART = 40  # hand-overs per topic file before the recorder starts the next file
MAX_NODES = 90  # a session this big is retired (left for the final finish) and a new one opened
CRASH_POINTS = ("batch-archived", "prepared", "journal", "replace", "installed", "committed", "audited",
                "batch-installed", "marking")
WORDS = ("cache", "runner", "disk", "budget", "evict", "deploy", "window", "latency", "checkout", "branch", "merge",
         "review", "index", "shard", "replica", "backup", "restore", "quota", "alert", "pager", "rollout", "canary",
         "schema", "migration", "token", "session", "queue", "worker", "retry", "timeout", "the", "we", "should",
         "because", "then", "later", "decided", "prefer", "keep", "drop", "measure", "tomorrow", "Ada", "Lin")


class Crash(BaseException):
    """Stands for the process dying: no `except Exception` in the engine stops it."""


def turn_text(n: int) -> str:
    """Deterministic text of the n-th generated turn (8 to 30 words)."""
    rng = random.Random(n)
    return f"t{n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))


# -- the writer: a scripted instant model that records what it is handed -------------------


@dataclass
class HandOver:
    serial: int
    sid: str
    ids: list[str]
    path: str  # the topic (under topics/) its block goes into
    marker: str
    landed: bool | None = None  # decided after the operation (and any recovery)


def _make_recorder(tag: str, log: Path | None) -> Any:
    class Recorder:
        """Writer runs: read the session's current topic part, append one cited block
        with a unique marker, done. Organizer runs: retitle one topic (a real, harmless
        reorganization, so every sleep installs something)."""

        def __init__(self) -> None:
            self.handovers: list[HandOver] = []
            self.per_session: Counter[str] = Counter()
            self.sleeps = 0

        def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                     timeout: float) -> Reply:
            names = {t["function"]["name"] for t in tools}
            step = self._organize(messages) if "retire_block" in names else self._write(messages)
            return Reply.of(step, len(messages))

        def _write(self, messages: list[dict[str, Any]]) -> Any:
            if len(messages) == 2:  # a new writer run: this is the hand-over
                refs = [json.loads(line)["ref"] for line in messages[1]["content"].splitlines()
                        if line.startswith('{"ref"')]
                if not refs:
                    return "nothing to write"
                sid = urllib.parse.unquote(refs[0].split("/")[1])
                part = self.per_session[sid] // PART
                self.per_session[sid] += 1
                ho = HandOver(len(self.handovers) + 1, sid, [urllib.parse.unquote(r.rsplit("/", 1)[1]) for r in refs],
                              f"stress/{sid}-{part}.md", f"{tag}{len(self.handovers) + 1:06d}")
                self.handovers.append(ho)
                if log is not None:
                    with log.open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps({"marker": ho.marker, "sid": sid, "ids": ho.ids, "path": ho.path}) + "\n")
                self.refs = refs
                return [("read_file", {"path": ho.path})]
            called, result = _last_call(messages)
            if called == "read_file":
                ho = self.handovers[-1]
                base = result.rstrip("\n") if not result.startswith("error:") else f"# Stress {ho.path[7:-3]}"
                block = (f"Hand-over {ho.marker} gave the writer {len(ho.ids)} turn(s).[^e1]\n\n"
                         f"[^e1]: Time: `2026-01-02`; Sources: [talk]({self.refs[0]})")
                return [("write_file", {"path": ho.path, "content": f"{base}\n\n{block}\n"})]
            return "done"

        def _organize(self, messages: list[dict[str, Any]]) -> Any:
            if len(messages) == 2:
                return [("list_files", {})]
            called, result = _last_call(messages)
            if called == "list_files":
                files = [line.split("  (")[0] for line in result.splitlines() if line.endswith(" bytes)")]
                if not files:
                    return "nothing to reorganize"
                self.sleeps += 1
                return [("read_file", {"path": files[self.sleeps % len(files)]})]
            if called == "read_file" and not result.startswith("error:"):
                path = _last_arguments(messages)["path"]
                title, _, rest = result.partition("\n")
                title = re.sub(r" \(sleep \d+\)$", "", title) + f" (sleep {self.sleeps})"
                return [("write_file", {"path": path, "content": f"{title}\n{rest}"})]
            return "done"

    return Recorder()


def _last_call(messages: list[dict[str, Any]]) -> tuple[str, str]:
    """(name of the last tool called, its result)."""
    result = (messages[-1].get("content") or "") if messages[-1].get("role") == "tool" else ""
    for m in reversed(messages):
        if m.get("role") == "assistant" and m.get("tool_calls"):
            return m["tool_calls"][-1]["function"]["name"], result
    return "", result


def _last_arguments(messages: list[dict[str, Any]]) -> dict[str, Any]:
    for m in reversed(messages):
        if m.get("role") == "assistant" and m.get("tool_calls"):
            return json.loads(m["tool_calls"][-1]["function"]["arguments"])
    return {}


def recorder(tag: str = "h", log: Path | None = None) -> Any:
    """Register a fresh recording model as `stress/…` (returns it; use `MODEL`)."""
    model = _make_recorder(tag, log)
    register_provider(PROVIDER, model)
    return model


# -- checks shared with the concurrency and adversarial tests ------------------------------


def git_out(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def history_problems(state_dir: Path) -> list[str]:
    """Every install has its commit and its audit record, and the other way round: each
    commit after the first carries a transaction trailer with exactly one audit record
    naming that commit, and each audit record's commit exists."""
    paths = StatePaths(Path(state_dir))
    log = git_out(paths.memory, "log", "--format=%H%x00%B%x01")
    commits = {}
    for entry in log.split("\x01")[:-1]:
        sha, _, body = entry.strip("\n").partition("\x00")
        txn = next((line[len(TRAILER):].strip() for line in body.splitlines() if line.startswith(TRAILER)), None)
        commits[sha] = txn
    out = []
    records = read_records(paths.runtime)
    by_txn = Counter(r.get("txn") for r in records)
    for sha, txn in commits.items():
        if txn is None:
            if "memory: initialize history" not in git_out(paths.memory, "log", "-1", "--format=%s", sha):
                out.append(f"commit {sha[:10]} has no transaction trailer")
        elif by_txn[txn] != 1:
            out.append(f"commit {sha[:10]} (txn {txn}) has {by_txn[txn]} audit records")
    for r in records:
        if r.get("commit") and r["commit"] not in commits:
            out.append(f"audit record {r.get('txn')} names a missing commit {r['commit'][:10]}")
        if r.get("commit") and commits.get(r["commit"]) != r.get("txn"):
            out.append(f"audit record {r.get('txn')} and its commit disagree")
    return out


# -- the mirror DAG and the baselines --------------------------------------------------------


@dataclass
class MNode:
    id: str
    pred: str | None
    kind: str  # user | assistant | tool | summary | root
    tokens: int
    seq: int
    rewound: bool = False


class Mirror:
    """One session's DAG in plain Python, with the store's branch semantics."""

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.nodes: dict[str, MNode] = {"ROOT": MNode("ROOT", None, "root", 0, 0)}
        self.head: str | None = None

    def add(self, nid: str, pred: str | None, kind: str, tokens: int, move_head: bool) -> None:
        self.nodes[nid] = MNode(nid, pred, kind, tokens, len(self.nodes))
        if move_head:
            self.head = nid

    def branch(self, tip: str | None) -> list[MNode]:
        """Root -> tip, rewound and ROOT hidden."""
        out = []
        current = tip
        while current is not None and current in self.nodes:
            node = self.nodes[current]
            if not node.rewound and node.kind != "root":
                out.append(node)
            current = node.pred
        out.reverse()
        return out

    def records(self, tip: str | None) -> list[MNode]:
        return [n for n in self.branch(tip) if n.kind in ("user", "assistant")]

    def tips(self) -> list[str]:
        """Every live tip, the head's first, then newest first (as `list_branches`)."""
        chain = {n.id for n in self.nodes.values() if not n.rewound and n.kind not in ("summary", "root")}
        parents = {self.nodes[c].pred for c in chain}
        tips = sorted((n for n in chain if n not in parents), key=lambda n: -self.nodes[n].seq)
        if self.head in chain:
            tips = [self.head] + [t for t in tips if t != self.head]
        return tips

    def reachable(self) -> set[str]:
        return {n.id for tip in self.tips() for n in self.records(tip)}

    def rewind(self, nid: str) -> None:
        chain = self.branch(self.head)
        for node in chain[[n.id for n in chain].index(nid):]:
            node.rewound = True
        self.head = self.nodes[nid].pred


def _turns(nodes: list[MNode]) -> list[PendingTurn]:
    return [PendingTurn(n.id, n.kind, n.tokens, float(n.seq)) for n in nodes]


class Baseline:
    """What a baseline hands over: `landed[id]` counts the hand-overs that reached memory.

    A crash in the engine's operation is replayed here as (batches completed before it,
    whether it fell between an install and its bookkeeping): the baseline completes as
    many batches, then the next one lands without being recorded (a duplicate later) or
    does not land at all, and the operation stops — the process died."""

    def __init__(self, mirrors: dict[str, Mirror], threshold: int) -> None:
        self.mirrors = mirrors
        self.threshold = threshold
        self.landed: Counter[str] = Counter()

    def _hand_over(self, batches: Iterator[tuple[list[PendingTurn], Any]], crash: tuple[int, bool] | None) -> None:
        """Hand each batch over and record it (`_record`), unless the crash strikes."""
        for i, (batch, where) in enumerate(batches):
            if crash is not None and i == crash[0]:
                if crash[1]:
                    self.landed.update(t.id for t in batch)
                return
            self.landed.update(t.id for t in batch)
            self._record(where, batch)

    def _record(self, where: Any, batch: list[PendingTurn]) -> None:
        raise NotImplementedError

    def missed(self) -> int:
        return sum(1 for m in self.mirrors.values() for r in m.reachable() if not self.landed[r])

    def duplicates(self) -> int:
        return sum(n - 1 for n in self.landed.values() if n > 1)


class CursorBaseline(Baseline):
    """One ordinal per session: the position, in the head branch's unrolled rows, of the
    last row written. Only the head branch is ever written."""

    def __init__(self, mirrors: dict[str, Mirror], threshold: int) -> None:
        super().__init__(mirrors, threshold)
        self.cursor: dict[str, int] = {}

    def _ordinals(self, sid: str) -> dict[str, int]:
        """Each row's position in the head branch as it is unrolled now (tool rows count)."""
        return {n.id: i for i, n in enumerate(self.mirrors[sid].branch(self.mirrors[sid].head))}

    def _batches(self, sid: str, drain: bool) -> Iterator[tuple[list[PendingTurn], Any]]:
        while True:
            ordinal = self._ordinals(sid)
            cursor = self.cursor.get(sid, -1)
            turns = _turns([n for n in self.mirrors[sid].records(self.mirrors[sid].head) if ordinal[n.id] > cursor])
            if not turns or (not drain and sum(t.tokens for t in turns) < self.threshold):
                return
            yield cut_batch(turns, self.threshold), sid
            if not drain:
                return

    def _record(self, sid: str, batch: list[PendingTurn]) -> None:
        self.cursor[sid] = max(self.cursor.get(sid, -1), self._ordinals(sid)[batch[-1].id])

    def write(self, sid: str, crash: tuple[int, bool] | None = None) -> None:
        self._hand_over(self._batches(sid, False), crash)

    def finish(self, sid: str, crash: tuple[int, bool] | None = None) -> None:
        self._hand_over(self._batches(sid, True), crash)


@dataclass
class _Thread:
    tip: str | None
    watermark: int = 0
    order: int = 0


class WatermarkBaseline(Baseline):
    """One watermark per thread (how many of its records were extracted). Appending to a
    thread's tip continues it; any fork (retry, re-ask, spawn) is a new thread whose
    copied history is extracted from scratch. A rewind moves the thread's tip back."""

    def __init__(self, mirrors: dict[str, Mirror], threshold: int) -> None:
        super().__init__(mirrors, threshold)
        self.threads: dict[str, list[_Thread]] = {}
        self.made = 0

    def _thread(self, sid: str, tip: str | None) -> _Thread | None:
        found = [t for t in self.threads.get(sid, []) if t.tip == tip]
        return max(found, key=lambda t: t.order) if found else None

    def on_append(self, sid: str, nid: str, pred: str | None) -> None:
        thread = self._thread(sid, pred) if pred is not None else None
        if thread is not None:
            thread.tip = nid
        else:
            self.made += 1
            self.threads.setdefault(sid, []).append(_Thread(nid, 0, self.made))

    def on_rewind(self, sid: str, old_head: str | None, new_head: str | None) -> None:
        thread = self._thread(sid, old_head)
        if thread is not None:
            thread.tip = new_head

    def _batches(self, sid: str, threads: list[_Thread], drain: bool) -> Iterator[tuple[list[PendingTurn], Any]]:
        for thread in threads:
            while True:
                records = self.mirrors[sid].records(thread.tip)
                turns = _turns(records[thread.watermark:])
                if not turns or (not drain and sum(t.tokens for t in turns) < self.threshold):
                    break
                yield cut_batch(turns, self.threshold), thread
                if not drain:
                    return

    def _record(self, thread: _Thread, batch: list[PendingTurn]) -> None:
        thread.watermark += len(batch)

    def write(self, sid: str, crash: tuple[int, bool] | None = None) -> None:
        thread = self._thread(sid, self.mirrors[sid].head)
        self._hand_over(self._batches(sid, [thread] if thread else [], False), crash)

    def finish(self, sid: str, crash: tuple[int, bool] | None = None) -> None:
        self._hand_over(self._batches(sid, list(self.threads.get(sid, [])), True), crash)


# -- crash plans ----------------------------------------------------------------------------


@dataclass
class CrashPlan:
    """Die the `nth` time `point` is reached since the plan was armed ("marking": after
    the nth node file of the marks is written). A plan that did not fire stays armed
    for the next write-type operation."""

    point: str
    nth: int = 1
    seen: int = 0
    marking: bool = False
    fired: bool = False

    def hook(self, name: str) -> None:
        if self.point == "marking":
            if name == "batch-installed":
                self.marking = True
            return
        if name == self.point:
            self.seen += 1
            if self.seen == self.nth:
                self.fired = True
                raise Crash(f"crash at {name} #{self.nth}")

    def after_node_write(self) -> None:
        if self.marking:
            self.seen += 1
            if self.seen == self.nth:
                self.fired = True
                raise Crash(f"crash after {self.nth} mark(s)")

    @contextmanager
    def armed(self) -> Iterator[None]:
        real = session_store_module.atomic_write_bytes

        def write_then_maybe_die(*args: Any, **kwargs: Any) -> None:
            real(*args, **kwargs)
            self.after_node_write()

        install.crash_hook = self.hook
        session_store_module.atomic_write_bytes = write_then_maybe_die
        try:
            yield
        finally:
            install.crash_hook = None
            session_store_module.atomic_write_bytes = real
            self.marking = False


# -- the world --------------------------------------------------------------------------------


@dataclass
class Figures:
    operations: int
    crashes: int
    missed: int
    duplicates: int
    exposed: int  # turns caught landed-but-unmarked by a crash (the duplicates allowed)
    exposing_crashes: int
    bound_violations: int  # turns landed more often than 1 + their exposures
    handovers: int  # writer runs (hand-overs at the model boundary)
    landed_handovers: int
    deferred: int  # turns finish left pending by design (short abandoned branches), written by the final drain
    sessions: int
    nodes: int
    reachable: int
    cursor: dict[str, int]
    watermark: dict[str, int]
    outcomes: dict[str, int]
    ops: dict[str, int]
    violations: list[str] = field(default_factory=list)
    git_kills: dict[str, int] = field(default_factory=dict)  # "inside"/"after" and "<repo>:<subcommand>"

    def line(self) -> dict[str, Any]:
        """The bench's last line: issue 9's shape, extended by the kills inside git (issue 19)."""
        return {"operations": self.operations, "crashes": self.crashes, "missed": self.missed,
                "duplicates": self.duplicates, "baselines": {"cursor": self.cursor, "watermark": self.watermark},
                "git_kills": {"total": self.git_kills.get("inside", 0) + self.git_kills.get("after", 0),
                              "inside": self.git_kills.get("inside", 0),
                              "wedged": sum(1 for v in self.violations if v.startswith("wedged"))}}


class World:
    """One state directory driven by operations; see the module docstring."""

    def __init__(self, state_dir: Path, *, threshold: int = THRESHOLD) -> None:
        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        set_config_value(self.state_dir, "writer.trigger_tokens", threshold)
        self.recorder = recorder()
        self.store = SessionStore(self.state_dir)
        self.wid = workspace_id(self.state_dir)
        self.threshold = threshold
        self.mirrors: dict[str, Mirror] = {}
        self.open_sessions: list[str] = []
        self.cursor = CursorBaseline(self.mirrors, threshold)
        self.watermark = WatermarkBaseline(self.mirrors, threshold)
        self.landed: Counter[str] = Counter()
        self.exposure: Counter[str] = Counter()
        self.crashes = 0
        self.exposing_crashes = 0
        self.counter = 0
        self.ops: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.violations: list[str] = []
        self.touched: str | None = None  # the session of the last operation
        self._ws_seen: tuple[Any, ...] | None = None
        self._ws_problems: list[str] = []
        self.git_kills: Counter[str] = Counter()  # "inside"/"after": where git was when a kill came
        self.kill_serial = 0

    # -- sessions ---------------------------------------------------------------------

    def new_session(self) -> str:
        sid = self.store.create_session(f"stress {len(self.mirrors) + 1}", session_id=f"s{len(self.mirrors) + 1:03d}")
        self.mirrors[sid] = Mirror(sid)
        self.open_sessions.append(sid)
        return sid

    def session(self, pick: int) -> str:
        """An open session (`pick` chooses); a session grown past MAX_NODES is retired —
        left for the final finish — and a new one takes its place."""
        if not self.open_sessions:
            self.new_session()
        sid = self.open_sessions[pick % len(self.open_sessions)]
        if len(self.mirrors[sid].nodes) > MAX_NODES:
            self.open_sessions.remove(sid)
            sid = self.new_session()
        self.touched = sid
        return sid

    def _append(self, sid: str, role: str, *, pred: Any = None, move_head: bool = True, spawn_caller: str | None = None) -> str:
        self.counter += 1
        nid, text = f"n{self.counter}", turn_text(self.counter)
        mirror = self.mirrors[sid]
        if spawn_caller is not None:
            self.store.spawn_branch(sid, text, caller=spawn_caller, node_id=nid)
            pred, kind, move_head = None, "user", False
        else:
            if pred is None:
                pred = mirror.head or "ROOT"
            content = text if role != "tool" else f"ran a tool for {text[:30]}"
            self.store.append(sid, role, content, predecessor=pred, node_id=nid, move_head=move_head)
            kind, text = role, content
        mirror.add(nid, pred, kind, count_tokens(text) if kind in ("user", "assistant") else 0, move_head)
        self.watermark.on_append(sid, nid, pred)
        return nid

    def _next_role(self, sid: str) -> str:
        head = self.mirrors[sid].nodes.get(self.mirrors[sid].head or "ROOT")
        return "assistant" if head is not None and head.kind == "user" else "user"

    def append(self, pick: int) -> bool:
        sid = self.session(pick)
        self._append(sid, self._next_role(sid))
        self.ops["append"] += 1
        return True

    def tool(self, pick: int) -> bool:
        sid = self.session(pick)
        self._append(sid, "tool")
        self.ops["tool"] += 1
        return True

    def retry(self, pick: int) -> bool:
        """Fork at the head: another answer to the same question."""
        sid = self.session(pick)
        mirror = self.mirrors[sid]
        head = mirror.nodes.get(mirror.head or "")
        if head is None or head.kind != "assistant" or head.pred is None:
            return False
        self._append(sid, "assistant", pred=head.pred)
        self.ops["retry"] += 1
        return True

    def reask(self, pick: int, which: int) -> bool:
        """Fork anywhere: ask again in place of an earlier user turn of the head branch."""
        sid = self.session(pick)
        mirror = self.mirrors[sid]
        users = [n for n in mirror.branch(mirror.head) if n.kind == "user" and n.pred is not None]
        if not users:
            return False
        self._append(sid, "user", pred=users[which % len(users)].pred)
        self.ops["reask"] += 1
        return True

    def rewind(self, pick: int, back: int) -> bool:
        sid = self.session(pick)
        mirror = self.mirrors[sid]
        chain = mirror.branch(mirror.head)
        if not chain:
            return False
        nid = chain[-(1 + back % min(3, len(chain)))].id
        old = mirror.head
        self.store.rewind(sid, nid)
        mirror.rewind(nid)
        self.watermark.on_rewind(sid, old, mirror.head)
        self.ops["rewind"] += 1
        return True

    def compact(self, pick: int, where: int) -> bool:
        """A compaction summary over 2-5 consecutive turns of the head branch."""
        sid = self.session(pick)
        mirror = self.mirrors[sid]
        chain = mirror.branch(mirror.head)
        if len(chain) < 2:
            return False
        size = 2 + where % min(4, len(chain) - 1)
        start = (where // 7) % (len(chain) - size + 1)
        covers = [n.id for n in chain[start:start + size]]
        self.counter += 1
        nid = f"n{self.counter}"
        self.store.append_summary(sid, covers, f"summary of {len(covers)} turns", node_id=nid)
        mirror.add(nid, mirror.nodes[covers[0]].pred, "summary", 0, False)
        self.ops["compact"] += 1
        return True

    def spawn(self, pick: int, where: int, turns: int) -> bool:
        """A sub-agent: a branch root linked to a turn of the head branch, then its own turns."""
        sid = self.session(pick)
        mirror = self.mirrors[sid]
        chain = mirror.branch(mirror.head)
        caller = chain[where % len(chain)].id if chain else "ROOT"
        prev = self._append(sid, "user", spawn_caller=caller)
        for i in range(1 + turns % 4):
            prev = self._append(sid, "assistant" if i % 2 == 0 else "user", pred=prev, move_head=False)
        self.ops["spawn"] += 1
        return True

    # -- writes, with crashes -------------------------------------------------------------

    def write(self, pick: int, crash: CrashPlan | None = None) -> bool:
        """A per-turn write of the head branch (one batch, at the threshold)."""
        self._engine("write", self.session(pick), crash)
        self.ops["write"] += 1
        return True

    def finish(self, pick: int, crash: CrashPlan | None = None) -> bool:
        self._engine("finish", self.session(pick), crash)
        self.ops["finish"] += 1
        return True

    def sleep(self, crash: CrashPlan | None = None) -> bool:
        self.touched = None
        self._engine("sleep", None, crash)
        self.ops["sleep"] += 1
        return True

    def _engine(self, kind: str, sid: str | None, crash: CrashPlan | None, tip: str | None = None) -> None:
        before = len(self.recorder.handovers)
        crashed = False
        try:
            with crash.armed() if crash is not None and not crash.fired else _nothing():
                if kind == "write":
                    result = write(self.store, sid, model=MODEL)
                elif kind == "finish":
                    result = finish(self.store, sid, model=MODEL)
                elif kind == "drain":
                    result = write(self.store, sid, force=True, tip=tip, model=MODEL)
                else:
                    result = sleep(self.state_dir, model=MODEL)
        except Crash:
            crashed = True
            self.crashes += 1
            self.store = SessionStore(self.state_dir)  # the next process
            Workspace.open(self.state_dir)  # repairs the interrupted install
        else:
            self.outcomes[f"{kind}:{result.outcome}:{result.code}"] += 1
            if result.outcome != "ok":
                self.violations.append(f"{kind} on {sid}: {result.outcome} {result.code}: {result.message}")
        self._account(kind, sid, before, crashed)

    def _account(self, kind: str, sid: str | None, before: int, crashed: bool) -> None:
        """What the hand-overs since `before` did: landed, marked, or exposed by a crash."""
        completed, exposed = 0, False
        for ho in self.recorder.handovers[before:]:
            ho.landed = self._landed(ho)
            if not ho.landed:
                continue
            self.landed.update(ho.ids)
            unmarked = [i for i in ho.ids if i not in self.marked(ho.sid)]
            if not unmarked:
                completed += 1
            elif crashed:
                exposed = True
                self.exposure.update(unmarked)
            else:
                self.violations.append(f"hand-over {ho.marker} landed but {unmarked} were not marked")
        self.exposing_crashes += exposed
        if kind in ("write", "finish"):
            for baseline in (self.cursor, self.watermark):
                getattr(baseline, kind)(sid, (completed, exposed) if crashed else None)

    # -- kills inside git operations (stress/gitkill.py) ---------------------------------

    def killed(self, kind: str, pick: int, plan: Any, size: int = 0) -> bool:
        """`kind` done by a worker process that is SIGKILLed inside `plan`'s git operation
        (a plan that never comes up lets it finish): "import" (a new session of `size`
        nodes, as an importer makes it), "import-more" (`size` nodes into an open session),
        "append" (`size` turns), "write", "finish" or "sleep". Then, as the next process:
        the memory repaired, the mirror told what reached the disk, and the probe that
        nothing is wedged — the next append to that session (or a sleep, after a kill on
        the memory side) succeeds and leaves git in step with the files."""
        from stress import gitkill

        self.kill_serial += 1
        work = self.state_dir.parent / "gitkill"
        job: dict[str, Any] = {"state": str(self.state_dir), "kind": kind.replace("-more", "")}
        sid: str | None = None
        if kind in ("import", "import-more", "append"):
            if kind == "import":
                sid = f"s{len(self.mirrors) + 1:03d}"
                self.mirrors[sid] = Mirror(sid)
                self.open_sessions.append(sid)
                self.touched = sid
            else:
                sid = self.session(pick)
            mirror = self.mirrors[sid]
            first = self.counter + 1
            self.counter += size
            head = mirror.nodes.get(mirror.head or "ROOT")
            job.update(sid=sid, new=kind == "import", pred=mirror.head or "ROOT", first=first, count=size,
                       user_first=0 if head is None or head.kind != "user" else 1)
        else:
            sid = self.session(pick) if kind != "sleep" else None
            self.touched = sid
            log = work / f"handovers-{self.kill_serial}.jsonl"
            job.update(sid=sid, tag=f"k{self.kill_serial}-", log=str(log), sleeps=self.recorder.sleeps,
                       per_session=dict(self.recorder.per_session))
        before = len(self.recorder.handovers)
        outcome = gitkill.run_worker(work, job, plan)
        self.store = SessionStore(self.state_dir)  # the next process
        if outcome.killed:
            self.crashes += 1
            self.git_kills["inside" if outcome.inside else "after"] += 1
            self.git_kills[f"{plan.where}:{plan.sub}"] += 1
            try:
                Workspace.open(self.state_dir)  # repairs an interrupted install
            except Exception as exc:  # noqa: BLE001 - a wedge is what this looks for
                self.violations.append(f"wedged: memory does not open after a kill at {plan}: {exc!r}")
        elif outcome.problem is not None:
            self.violations.append(outcome.problem)
        if kind in ("import", "import-more", "append"):
            assert sid is not None
            self._sync_mirror(sid)
            if outcome.killed:
                self._probe_session(sid, plan)
            self.ops[f"killed-{kind}" if outcome.killed else kind] += 1
            return True
        self._adopt_handovers(Path(job["log"]))
        result = outcome.result
        if result is not None:
            self.outcomes[f"{kind}:{result['outcome']}:{result['code']}"] += 1
            if result["outcome"] != "ok":
                self.violations.append(f"{kind} on {sid}: {result['outcome']} {result['code']}: {result['message']}")
        self._account(kind, sid, before, outcome.killed)
        self.ops[f"killed-{kind}" if outcome.killed else kind] += 1
        if outcome.killed:  # the probe: memory's next install goes through
            failed = len(self.violations)
            self._engine("sleep", None, None)
            if len(self.violations) > failed:
                self.violations.append(f"wedged: the sleep after a kill at {plan} failed")
            self.touched = sid
        return True

    def _sync_mirror(self, sid: str) -> None:
        """Add the nodes a worker left on disk (however far it got) to the mirror."""
        from stress.gitkill import node_text

        mirror = self.mirrors[sid]
        if not self.store.has_session(sid):
            self.violations.append(f"{sid}: a killed import left no session")
            return
        entries = sorted((e for e in self.store.index(sid).entries.values() if e.id not in mirror.nodes),
                         key=lambda e: e.seq)
        for e in entries:
            tokens = count_tokens(node_text(int(e.id[1:]), e.kind)) if e.kind in ("user", "assistant") else 0
            mirror.add(e.id, e.predecessor, e.kind, tokens, False)
            self.watermark.on_append(sid, e.id, e.predecessor)
        mirror.head = self.store.head(sid)

    def _probe_session(self, sid: str, plan: Any) -> None:
        """Nothing is wedged: the next turn goes in, and git then agrees with every file."""
        d = self.store.session_dir(sid)
        try:
            self._append(sid, self._next_role(sid))
        except Exception as exc:  # noqa: BLE001 - a wedge is what this looks for
            self.violations.append(f"wedged: {sid} takes no append after a kill at {plan}: {exc!r}")
            return
        if left := leftovers(d):  # node files and meta.json: a killed writer's stray temp file is no content
            self.violations.append(f"{sid}: git disagrees with the files after a kill at {plan} and an append: "
                                   f"{left[:3]}")
        if (d / ".git" / "index.lock").exists():
            self.violations.append(f"{sid}: a stale index.lock survived a kill at {plan} and an append")

    def _adopt_handovers(self, log: Path) -> None:
        """A worker's hand-overs, as if the world's own recorder had served them."""
        if not log.exists():
            return
        for line in log.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            self.recorder.handovers.append(HandOver(len(self.recorder.handovers) + 1, entry["sid"], entry["ids"],
                                                    entry["path"], entry["marker"]))
            self.recorder.per_session[entry["sid"]] += 1
        log.unlink()

    def _landed(self, ho: HandOver) -> bool:
        try:
            text = (StatePaths(self.state_dir).memory / "topics" / ho.path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return False
        return f"Hand-over {ho.marker} " in text

    def marked(self, sid: str) -> set[str]:
        return {e.id for e in self.store.index(sid).entries.values() if e.marks.get(MARK_KEY) == self.wid}

    # -- invariants ---------------------------------------------------------------------

    def check(self, sids: list[str] | None = None) -> list[str]:
        """The invariants after a step, for the given sessions (default: the last
        operation's; after a sleep none). Returns the problems found ([] = all hold)
        and keeps them in `violations`."""
        if sids is None:
            sids = [self.touched] if self.touched else []
        problems = list(self._workspace())
        for sid in sids:
            problems += self._session(sid)
        self.violations += problems
        return problems

    def _workspace(self) -> list[str]:
        """Full validation whenever the workspace may have changed — git's index or
        reflog, the audit log, a journal, or a topic file moved — else the last verdict
        stands (session operations never touch memory/, and this shows it)."""
        paths = StatePaths(self.state_dir)
        probes = [paths.memory / ".git" / "index", paths.memory / ".git" / "logs" / "HEAD",
                  paths.runtime / "audit.jsonl", paths.runtime / install.JOURNAL, paths.memory / install.BACKUP]
        if (paths.memory / "topics").is_dir():
            probes += sorted((paths.memory / "topics").rglob("*"))
        seen = []
        for p in probes:
            try:
                st = p.stat()
                seen.append((str(p), st.st_mtime_ns, st.st_size, st.st_ino))
            except FileNotFoundError:
                seen.append((str(p), None))
        if tuple(seen) != self._ws_seen:
            self._ws_seen = tuple(seen)
            self._ws_problems = workspace_problems(self.state_dir)
        return self._ws_problems

    def _session(self, sid: str) -> list[str]:
        mirror = self.mirrors[sid]
        out = []
        tips = self.store.list_branches(sid)
        if tips != mirror.tips():
            out.append(f"{sid}: the store's tips {tips} are not the mirror's {mirror.tips()}")
        marked = self.marked(sid)
        out += [f"{sid}: {nid} is marked but never landed" for nid in sorted(marked) if not self.landed[nid]]
        waiting = {t.id for b in pending_branches(self.store, sid, self.wid) for t in b.turns}
        out += [f"{sid}: {nid} is silently lost (never landed, not pending)"
                for nid in sorted(mirror.reachable()) if not self.landed[nid] and nid not in waiting]
        return out

    # -- the end ---------------------------------------------------------------------------

    def final(self) -> Figures:
        """Finish every session, then write what finish leaves pending by design (short
        abandoned branches), and count. Baselines get their own session boundary."""
        for sid in self.mirrors:
            self._engine("finish", sid, None)
        deferred = 0
        for sid in self.mirrors:
            while branches := [b for b in pending_branches(self.store, sid, self.wid) if b.turns]:
                deferred += len(branches[0].turns)
                self._engine("drain", sid, None, tip=branches[0].tip)
        self.check(list(self.mirrors))
        self.violations += history_problems(self.state_dir)
        reachable = set().union(*(m.reachable() for m in self.mirrors.values())) if self.mirrors else set()
        missed = sum(1 for r in reachable if not self.landed[r])
        over = [i for i, n in self.landed.items() if n - 1 > self.exposure[i]]
        self.violations += [f"{i} landed {self.landed[i]} times with {self.exposure[i]} exposure(s)" for i in over]
        return Figures(
            operations=sum(self.ops.values()), crashes=self.crashes, missed=missed,
            duplicates=sum(n - 1 for n in self.landed.values() if n > 1), exposed=sum(self.exposure.values()),
            exposing_crashes=self.exposing_crashes, bound_violations=len(over),
            handovers=len(self.recorder.handovers), landed_handovers=sum(1 for h in self.recorder.handovers if h.landed),
            deferred=deferred, sessions=len(self.mirrors), nodes=sum(len(m.nodes) - 1 for m in self.mirrors.values()),
            reachable=len(reachable),
            cursor={"missed": self.cursor.missed(), "duplicates": self.cursor.duplicates()},
            watermark={"missed": self.watermark.missed(), "duplicates": self.watermark.duplicates()},
            outcomes=dict(self.outcomes), ops=dict(self.ops), violations=list(self.violations),
            git_kills=dict(self.git_kills))


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# -- the seeded run -----------------------------------------------------------------------------

WEIGHTS = {"append": 46, "tool": 4, "retry": 4, "reask": 3, "rewind": 4, "compact": 3, "spawn": 3,
           "write": 18, "finish": 6, "sleep": 2}
CRASH_RATE = 0.3  # of write-type operations that arm a crash (a plan waits until it fires)
KILL_WEIGHT = 2  # operations by a worker process killed inside a git operation (stress/gitkill.py)
KILL_KINDS = ("import", "import-more", "append", "write", "finish", "sleep")
IMPORT_SIZES = (30, 150, 400, 1000)  # below and above the pack's MIN_FILES


def kill_plan(rng: random.Random, kind: str) -> KillPlan:
    """Where a worker doing `kind` is killed: a session's git for imports and appends
    (a new session's `git init` and `config` too), the memory's for writes."""
    if kind in ("write", "finish", "sleep"):
        return KillPlan(rng.choice(MEMORY_TARGETS), "memory", rng.randint(1, 3), rng.choice(MODES))
    targets = SESSION_TARGETS if kind == "import" else SESSION_TARGETS[:4]
    return KillPlan(rng.choice(targets), "session", rng.randint(1, 2), rng.choice(MODES))


def run(operations: int, seed: int, state_dir: Path, *, check_every: int = 1, progress: Any = None,
        kill_weight: float = KILL_WEIGHT) -> Figures:
    """`operations` seeded random operations, invariants checked after each, then `final`."""
    rng = random.Random(seed)
    world = World(state_dir)
    for _ in range(3):
        world.new_session()
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    if kill_weight > 0:
        names.append("kill")
        weights.append(kill_weight)
    plan: CrashPlan | None = None
    done = 0
    while done < operations:
        name = rng.choices(names, weights)[0]
        pick = rng.randrange(1 << 20)
        if name in ("write", "finish", "sleep"):
            if plan is None and rng.random() < CRASH_RATE:
                plan = CrashPlan(rng.choice(CRASH_POINTS), rng.randint(1, 2))
            applied = world.sleep(plan) if name == "sleep" else getattr(world, name)(pick, plan)
            if plan is not None and plan.fired:
                plan = None
        elif name == "kill":
            kind = rng.choice(KILL_KINDS)
            size = rng.choice(IMPORT_SIZES) if kind.startswith("import") else rng.randint(1, 3)
            applied = world.killed(kind, pick, kill_plan(rng, kind), size)
        elif name in ("append", "tool", "retry"):
            applied = getattr(world, name)(pick)
        elif name == "spawn":
            applied = world.spawn(pick, rng.randrange(1 << 20), rng.randrange(4))
        else:
            applied = getattr(world, name)(pick, rng.randrange(1 << 20))
        if not applied:
            continue
        done += 1
        if done % check_every == 0:
            world.check()
        if progress is not None:
            progress(done, world)
    return world.final()
