"""Kills inside git operations (issue 19), for the stress world.

A worker process does one thing to the state directory — an import (a batch of many
nodes, into a new session or an existing one), a few appends, or a write, finish or
sleep — with a `git` wrapper first on its PATH. The wrapper runs every git command
untouched except the planned one (its subcommand, in a session's repository or the
memory's, the nth time): that one it starts, waits until git is inside it (one of
git's lock files or fast-import's temporary pack exists) or for a delay, and then SIGKILLs
the worker's whole process group — the worker and git together, as a killed terminal
or an OOM kill would. It notes whether git was still running when the kill came.

The world then carries on as the next process would and checks that nothing is
wedged: the next operation on that session, or on the memory, succeeds.

Run a worker: `python -m stress.gitkill JOB.json` with tests/ on PYTHONPATH (`run_worker` does this).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent
# what can be planned: (subcommand, repository) — the session side of an import or an
# append, the memory side of a write's install
SESSION_TARGETS = ("fast-import", "update-index", "commit", "status", "init", "config")
MEMORY_TARGETS = ("read-tree", "update-index", "write-tree", "commit-tree", "update-ref", "status")
MODES = ("lock", "0", "0.003", "0.01", "0.03")  # "lock": once git holds its lock; else a delay in seconds

WRAPPER = r"""#!/bin/sh
# stress/gitkill.py: SIGKILL this process group while git runs the planned subcommand.
sub=
skip=
for a in "$@"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  case "$a" in
    -c|-C) skip=1 ;;
    -*) ;;
    *) sub=$a; break ;;
  esac
done
case "$(pwd -P)" in
  */sessions/*) where=session ;;
  */memory) where=memory ;;
  *) where=other ;;
esac
if [ "$sub" != "$STRESS_KILL_SUB" ] || [ "$where" != "$STRESS_KILL_WHERE" ]; then
  exec "$STRESS_REAL_GIT" "$@"
fi
echo >> "$STRESS_KILL_DIR/count"
if [ "$(wc -l < "$STRESS_KILL_DIR/count")" -ne "$STRESS_KILL_NTH" ]; then
  exec "$STRESS_REAL_GIT" "$@"
fi
"$STRESS_REAL_GIT" "$@" 0<&0 &
pid=$!
alive() {
  [ -r /proc/$pid/stat ] || return 1
  read -r _ _ state _ < /proc/$pid/stat 2>/dev/null || return 1
  [ "$state" != Z ]
}
inside() {
  for f in .git/*.lock .git/refs/heads/*.lock .git/objects/pack/tmp_pack_*; do
    [ -e "$f" ] && return 0
  done
  return 1
}
if [ "$STRESS_KILL_MODE" = lock ]; then
  while alive && ! inside; do :; done
elif [ "$STRESS_KILL_MODE" != 0 ]; then
  sleep "$STRESS_KILL_MODE"
fi
if alive; then echo inside > "$STRESS_KILL_DIR/fired"; else echo after > "$STRESS_KILL_DIR/fired"; fi
kill -KILL 0
"""


@dataclass
class KillPlan:
    sub: str  # git subcommand
    where: str  # "session" | "memory"
    nth: int = 1
    mode: str = "lock"

    def __str__(self) -> str:
        return f"git {self.sub} in the {self.where} repository (#{self.nth}, {self.mode})"


@dataclass
class Outcome:
    killed: bool  # the worker died by the plan's SIGKILL
    inside: bool  # git was still running when it came
    result: dict[str, Any] | None  # the worker's own report when it was not killed
    problem: str | None  # a worker that failed on its own


def wrapper_dir(work: Path) -> Path:
    """A directory holding the `git` wrapper (made once)."""
    d = work / "bin"
    if not (d / "git").exists():
        d.mkdir(parents=True, exist_ok=True)
        (d / "git").write_text(WRAPPER)
        (d / "git").chmod(0o755)
    return d


def run_worker(work: Path, job: dict[str, Any], plan: KillPlan | None) -> Outcome:
    """Run one worker with `plan` armed; how it ended."""
    work.mkdir(parents=True, exist_ok=True)
    for name in ("count", "fired", "result.json"):
        (work / name).unlink(missing_ok=True)
    (work / "job.json").write_text(json.dumps(job))
    real_git = shutil.which("git")
    assert real_git is not None
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])))
    if plan is not None:
        env.update(PATH=f"{wrapper_dir(work)}{os.pathsep}{env.get('PATH', '')}", STRESS_REAL_GIT=real_git,
                   STRESS_KILL_SUB=plan.sub, STRESS_KILL_WHERE=plan.where, STRESS_KILL_NTH=str(plan.nth),
                   STRESS_KILL_MODE=plan.mode, STRESS_KILL_DIR=str(work), GIT_PYTHON_GIT_EXECUTABLE="git")
    proc = subprocess.run([sys.executable, "-m", "stress.gitkill", str(work / "job.json")], env=env,
                          capture_output=True, text=True, start_new_session=True, timeout=600, check=False)
    fired = (work / "fired").read_text().strip() if (work / "fired").exists() else None
    if fired is not None:
        return Outcome(True, fired == "inside", None, None)
    if proc.returncode != 0:
        return Outcome(False, False, None, f"worker {job['kind']} exited {proc.returncode}: {proc.stderr[-1500:]}")
    return Outcome(False, False, json.loads((work / "result.json").read_text()), None)


# -- the worker ---------------------------------------------------------------------------------


def node_role(i: int) -> str:
    """The role of an import's i-th node: mostly tool calls (files for git, no work for the writer)."""
    return ("user", "assistant")[i % 8] if i % 8 < 2 else "tool"


def node_text(n: int, role: str) -> str:
    from stress.world import turn_text

    text = turn_text(n)
    return text if role != "tool" else f"ran a tool for {text[:30]}"


def worker(job: dict[str, Any]) -> dict[str, Any]:
    from scriptorium.core.sessions.store import SessionStore
    from stress.world import MODEL, recorder

    state, kind = Path(job["state"]), job["kind"]
    store = SessionStore(state)
    if kind in ("import", "append"):
        sid, pred, first = job["sid"], job["pred"], job["first"]
        if job.get("new"):
            store.create_session(f"imported {sid}", session_id=sid, commit=False)
        if kind == "import":
            with store.registry_deferred(), store.batch(sid, message=f"import: {job['count']} node(s)"):
                for i in range(job["count"]):
                    role = node_role(i)
                    store.append(sid, role, node_text(first + i, role), predecessor=pred, node_id=f"n{first + i}")
                    pred = f"n{first + i}"
        else:
            for i in range(job["count"]):
                role = "user" if (job["user_first"] + i) % 2 == 0 else "assistant"
                store.append(sid, role, node_text(first + i, role), predecessor=pred, node_id=f"n{first + i}")
                pred = f"n{first + i}"
        return {"outcome": "ok"}
    from scriptorium.core.writer import finish, sleep, write

    model = recorder(job["tag"], Path(job["log"]))
    model.per_session = Counter(job["per_session"])
    model.sleeps = job["sleeps"]
    if kind == "write":
        result = write(store, job["sid"], model=MODEL)
    elif kind == "finish":
        result = finish(store, job["sid"], model=MODEL)
    else:
        result = sleep(state, model=MODEL)
    return {"outcome": result.outcome, "code": result.code, "message": result.message}


if __name__ == "__main__":
    job_file = Path(sys.argv[1])
    out = worker(json.loads(job_file.read_text()))
    (job_file.parent / "result.json").write_text(json.dumps(out))
