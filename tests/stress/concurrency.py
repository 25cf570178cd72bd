"""Several processes on one state directory at once (issue 9): per-turn writers on
their own sessions, a finisher (its own session and one writer's), a sleeper and a
human editing a topic — for a bounded time, all starting together.

Every process logs each call's outcome and, through its recording model, every
hand-over. Afterwards the parent finishes every session and checks: every refused
lock was reported retryable (and nothing else failed), every appended turn landed in
memory exactly once, every installed human paragraph is still there (no lost
update), the workspace validates, and every install has its commit and its audit
record.

Run a worker: `python -m stress.concurrency ROLE STATE DIR SECONDS [SESSION ...]`
with tests/ on PYTHONPATH (`run` does this).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scriptorium.core.memory import LockBusy, Workspace, save_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep, write

from .world import MODEL, git_out, history_problems, recorder, turn_text, workspace_problems

HUMAN_TOPIC = "people/owner.md"
TESTS = Path(__file__).resolve().parent.parent


# -- the workers ----------------------------------------------------------------------------


def _log(out: Path, **entry: Any) -> None:
    with out.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def _turns(store: SessionStore, sid: str, n: int, out: Path) -> None:
    for role in ("user", "assistant"):
        node = store.append(sid, role, turn_text(n * 2 + (role == "assistant")))
        _log(out, kind="append", sid=sid, id=node.id)


def worker(role: str, state: Path, logs: Path, seconds: float, sessions: list[str]) -> None:
    """One process's loop; waits for `logs/go` (holding the common deadline)."""
    out = logs / f"{role}-{os.getpid()}.jsonl"
    if role != "human":  # the human calls no model (and so never imports litellm)
        recorder(f"{role}-{os.getpid()}-", logs / f"handovers-{role}-{os.getpid()}.jsonl")
    store = SessionStore(state)
    (logs / f"ready-{role}-{os.getpid()}").touch()
    while not (logs / "go").exists():
        time.sleep(0.02)
    deadline = float((logs / "go").read_text())
    n = 0
    while time.time() < deadline:
        n += 1
        if role == "writer":
            _turns(store, sessions[0], n, out)
            result = write(store, sessions[0], model=MODEL)
            _log(out, kind="write", outcome=result.outcome, code=result.code, message=result.message)
        elif role == "finisher":
            _turns(store, sessions[0], n, out)
            sid = sessions[n % len(sessions)]
            result = finish(store, sid, model=MODEL)
            _log(out, kind="finish", outcome=result.outcome, code=result.code, message=result.message)
        elif role == "sleeper":
            result = sleep(state, model=MODEL)
            _log(out, kind="sleep", outcome=result.outcome, code=result.code, message=result.message)
        else:
            _human_edit(state, n, out)


def _human_edit(state: Path, n: int, out: Path) -> None:
    """Append one uncited note to the human's topic, saved against the text it was read
    from (a sleep retitling the topic in between is a conflict, never a lost update)."""
    ws = Workspace(state)
    old = ws.read_topic(HUMAN_TOPIC)
    note = f"Owner note {n}: prefers {('green', 'black', 'oolong')[n % 3]} tea after {n} meetings."
    text = (old.rstrip("\n") if old is not None else "# Owner") + f"\n\n{note}\n"
    try:
        result = save_topic(ws, HUMAN_TOPIC, text, base=old)
    except LockBusy as exc:
        _log(out, kind="edit", outcome="retryable", code=exc.code, message=str(exc))
        return
    rules = sorted({d.rule for d in result.diagnostics})
    _log(out, kind="edit", outcome="ok" if result.ok else "rejected", code=",".join(rules) or result.outcome,
         note=note if result.ok else None)


# -- the run ----------------------------------------------------------------------------------


@dataclass
class Report:
    operations: Counter[str] = field(default_factory=Counter)  # "role:outcome:code"
    turns: int = 0
    handovers: int = 0
    missed: int = 0
    duplicates: int = 0
    human_notes: int = 0
    lost_updates: int = 0
    commits: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self) -> dict[str, Any]:
        ops = Counter()
        for key, count in self.operations.items():
            kind, outcome, _code = key.split(":", 2)
            ops[f"{kind}_{outcome}"] += count
        return {"processes_ops": dict(sorted(ops.items())), "turns": self.turns, "handovers": self.handovers,
                "missed": self.missed, "duplicates": self.duplicates, "human_notes": self.human_notes,
                "lost_updates": self.lost_updates, "commits": self.commits, "problems": len(self.problems)}


def run(state: Path, seconds: float, *, writers: int = 2, threshold: int = 60) -> Report:
    """Start the workers together, let them run `seconds`, then finish and check."""
    from scriptorium.core.config import set_config_value

    state.mkdir(parents=True, exist_ok=True)
    set_config_value(state, "writer.trigger_tokens", threshold)
    logs = state.parent / "logs"
    logs.mkdir()
    store = SessionStore(state)
    sids = [store.create_session(f"writer {i}", session_id=f"w{i}") for i in range(writers)]
    sids.append(store.create_session("finisher", session_id="f0"))
    Workspace.open(state)
    plan = [("writer", [sid]) for sid in sids[:writers]] + [("finisher", [sids[-1], sids[0]]),
                                                             ("sleeper", []), ("human", [])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])))
    procs = [subprocess.Popen([sys.executable, "-m", "stress.concurrency", role, str(state), str(logs), str(seconds),
                               *sessions], env=env, stderr=subprocess.PIPE, text=True) for role, sessions in plan]
    report = Report()
    try:
        limit = time.time() + 120
        while len(list(logs.glob("ready-*"))) < len(procs):
            if time.time() > limit or any(p.poll() is not None for p in procs):
                raise RuntimeError("a worker did not start: " + " | ".join(
                    (p.stderr.read() or "")[-500:] for p in procs if p.poll() is not None))
            time.sleep(0.05)
        (logs / "go").write_text(str(time.time() + seconds))
        for p in procs:
            _, err = p.communicate(timeout=seconds + 120)
            if p.returncode != 0:
                report.problems.append(f"worker {p.args[3]} exited {p.returncode}: {err[-1000:]}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    _judge(state, logs, sids, report)
    return report


def _judge(state: Path, logs: Path, sids: list[str], report: Report) -> None:
    appended, notes = [], []
    for path in sorted(logs.glob("*.jsonl")):
        if path.name.startswith("handovers-"):
            continue
        role = path.name.split("-")[0]
        for entry in map(json.loads, path.read_text().splitlines()):
            if entry["kind"] == "append":
                appended.append(entry["id"])
                continue
            report.operations[f"{role}:{entry['outcome']}:{entry['code']}"] += 1
            if entry.get("note"):
                notes.append(entry["note"])
            refused = entry["outcome"] == "retryable" and entry["code"] == "CONCURRENT_UPDATE"
            conflict = role == "human" and entry["outcome"] == "rejected" and entry["code"] == "conflict"
            if entry["outcome"] != "ok" and not refused and not conflict:
                report.problems.append(f"{role}: {entry['outcome']} {entry['code']}: {entry.get('message')}")
    # the session boundary, with nobody else around: everything left is written now
    recorder("final-", logs / "handovers-final.jsonl")
    store = SessionStore(state)
    for sid in sids:
        result = finish(store, sid, model=MODEL)
        if result.outcome != "ok":
            report.problems.append(f"final finish of {sid}: {result.outcome} {result.code}")
    topics = Workspace(state).topics
    landed: Counter[str] = Counter()
    for path in sorted(logs.glob("handovers-*.jsonl")):
        for ho in map(json.loads, path.read_text().splitlines()):
            report.handovers += 1
            target = topics / ho["path"]
            if target.is_file() and f"Hand-over {ho['marker']} " in target.read_text(encoding="utf-8"):
                landed.update(ho["ids"])
    report.turns = len(appended)
    report.missed = sum(1 for nid in appended if not landed[nid])
    report.duplicates = sum(n - 1 for n in landed.values() if n > 1)
    human = Workspace(state).read_topic(HUMAN_TOPIC) or ""
    report.human_notes = len(notes)
    report.lost_updates = sum(1 for note in notes if note not in human)
    report.commits = int(git_out(Workspace(state).root, "rev-list", "--count", "HEAD"))
    report.problems += workspace_problems(state) + history_problems(state)


if __name__ == "__main__":
    worker(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4]), sys.argv[5:])
