"""The hooks' slow half: import a transcript and write it, in a detached process.

`queue` (in the hook, while the agent waits) checks the call, then starts
`scriptorium hook AGENT EVENT --foreground` in a new session with the same payload on
its stdin, at a lower priority (`NICE`), and returns: no model call, import or git happens
while the agent waits, nor takes the CPU it is waiting on.
`run` (in that process) imports the one transcript incrementally and then, by event:
stop → `write(force=False)` (one pass, only at the threshold); pre-compact → the head
branch with `force` (what the compactor drops is in memory first); session end →
`finish`. Afterwards the search index is refreshed and saved, so that the next
prompt's recall loads it instead of rebuilding, and the core injection's token count is
noted for the hook log (session start never loads the tokenizer).

Jobs of one agent session coalesce: a job that finds another running leaves its
request (the strongest asked for wins: session end > pre-compact > stop) and exits;
the running one picks it up before it ends, so no request is lost and no two jobs
import the same transcript at once.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..fsutil import atomic_write_text
from ..paths import StatePaths
from ..values import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from .event import HookEvent
    from .hook_log import HookCall

STRENGTH = {"stop": 0, "pre-compact": 1, "session-end": 2}
NICE = 10  # a job yields the CPU to the agent it came from (measured: a Stop's job took a core from
# `claude -p`'s last second on 2 cores); weight 110 against 1024, so it still runs on a busy machine
LOWER = "import os, sys\ntry:\n    os.nice(%d)\nexcept OSError:\n    pass\n" % NICE  # the child's first lines


def jobs_dir(state_dir: Path) -> Path:
    return StatePaths(Path(state_dir)).runtime / "hooks" / "jobs"


def queue(module: ModuleType, ev: HookEvent, state_dir: Path, call: HookCall, *, foreground: bool) -> None:
    """Start the work for `ev` (or, `foreground`, do it now). Raises on an unusable call,
    so the caller logs it: no session id, or a transcript that is not there."""
    if not ev.session_id:
        raise ValueError("the hook input has no session_id")
    transcript = module.locate_transcript(ev)
    if transcript is not None and not transcript.is_file():
        raise FileNotFoundError(f"transcript not found: {transcript}")
    if transcript is None and ev.agent != "codex":  # Codex's is looked up by thread id, in the job
        raise ValueError("the hook input names no transcript")
    call.detail["transcript"] = str(transcript) if transcript else None
    if foreground:
        call.detail["phase"] = "foreground"
        _work(module, ev, Path(state_dir), call)
        return
    call.detail["phase"] = "queued"
    call.detail["pid"] = spawn(ev, Path(state_dir))


def spawn(ev: HookEvent, state_dir: Path) -> int:
    """`scriptorium hook … --foreground` in a new session, the payload on its stdin."""
    payload = {"session_id": ev.session_id, "cwd": ev.cwd, "reason": ev.reason,
               "transcript_path" if ev.agent != "pi" else "session_file": ev.transcript}
    code = LOWER + "from scriptorium.core.agents.hook_entry import main\nsys.exit(main(sys.argv[1:]))\n"
    argv = ["-c", code, "--state", str(state_dir), "hook", ev.agent,
            ev.event if ev.agent != "pi" else "session-shutdown", "--foreground"]
    from .detach import spawn as detached

    # a job that dies at once logs nothing, and the next turn's job imports the transcript
    return detached(argv, stdin=json.dumps(payload).encode("utf-8"))


REBUILD_MARK = "search-rebuild.started"
REBUILD_WAIT_S = 120  # one detached rebuild at a time (unless one died: then again after this)


def spawn_index_refresh(state_dir: Path) -> bool:
    """Rebuild and save the search model in a detached process; False when one is running."""
    import time

    mark = jobs_dir(state_dir) / REBUILD_MARK
    try:
        if time.time() - mark.stat().st_mtime < REBUILD_WAIT_S:
            return False
    except OSError:
        pass
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.touch()
    code = (LOWER + "from scriptorium.core.agents.recall_tokens import count_ahead\n"
            "try:\n    count_ahead(sys.argv[1])\nfinally:\n"
            "    try:\n        os.unlink(sys.argv[2])\n    except OSError:\n        pass\n")
    from .detach import spawn as detached

    detached(["-c", code, str(state_dir), str(mark)])
    return True


def _work(module: ModuleType, ev: HookEvent, state_dir: Path, call: HookCall) -> None:
    """Coalesce with any job of the same agent session, then do what is asked."""
    import hashlib

    from filelock import FileLock, Timeout

    key = hashlib.sha1(f"{ev.agent}\0{ev.session_id}".encode("utf-8")).hexdigest()[:16]
    folder = jobs_dir(state_dir)
    folder.mkdir(parents=True, exist_ok=True)
    request, lock = folder / f"{key}.request", FileLock(str(folder / f"{key}.lock"), thread_local=False)
    _ask(request, ev.event)
    while True:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            call.detail["coalesced"] = True  # the running job will do it
            return
        try:
            while (event := _take(request)) is not None:
                _one(module, ev.but(event), state_dir, call)
        finally:
            lock.release()
        if not request.exists():  # a request that arrived while we released is ours to do
            return


def _ask(request: Path, event: str) -> None:
    try:
        current = request.read_text(encoding="utf-8").strip()
    except OSError:
        current = ""
    if STRENGTH.get(current, -1) < STRENGTH[event]:
        atomic_write_text(request, event, durable=False)


def _take(request: Path) -> str | None:
    try:
        event = request.read_text(encoding="utf-8").strip()
        request.unlink()
    except OSError:
        return None
    return event if event in STRENGTH else None


def _one(module: ModuleType, ev: HookEvent, state_dir: Path, call: HookCall) -> None:
    from ..importers.jsonl import LONG_LINE
    from ..importers.run import import_sources
    from ..sessions.store import SessionStore
    from ..writer import finish, write

    transcript = module.locate_transcript(ev)
    if transcript is None or not transcript.is_file():
        raise FileNotFoundError(f"transcript not found for session {ev.session_id}")
    store = SessionStore(state_dir)
    report = import_sources(store, module.IMPORT_KIND, [transcript], workers=1)
    sid = _session_of(module, ev, [s.session_id for s in report.sessions], store)
    step: dict[str, Any] = {"event": ev.event, "session": sid, "nodes_added": report.nodes_added}
    if report.errors:
        step["import_errors"] = report.errors[:5]
    too_long = report.skipped.get(LONG_LINE, 0)
    if too_long:  # a transcript line no import will ever read: someone should look at the file
        step["skipped"] = {LONG_LINE: too_long}
        call.outcome, call.error = "error", f"{too_long} {LONG_LINE} skipped in {transcript}"
    if sid is None:
        step["write"] = "nothing imported yet"
    else:
        result = finish(store, sid) if ev.event == "session-end" else write(store, sid, force=ev.event == "pre-compact")
        step["write"] = {"outcome": result.outcome, "code": result.code, "message": result.message,
                         **{k: v for k, v in result.to_json().items() if k in ("retry_after_s", "model")}}
        if result.outcome == "permanent":
            call.outcome, call.error = "error", f"{result.code}: {result.message}"
        elif result.outcome == "retryable" and call.outcome == "ok":
            call.outcome = "skipped"  # the next turn's job tries again
    call.detail.setdefault("steps", []).append(step)
    call.detail["session"] = sid
    _after_write(state_dir)


def _session_of(module: ModuleType, ev: HookEvent, imported: list[str], store: Any) -> str | None:
    """The Scriptorium session the agent's session was imported as: `<prefix><its id>`, or
    (a Codex fork or sub-agent thread) the session of its family, which the import names."""
    from ..importers.plan import safe_id

    expected = safe_id(ev.session_id, prefix=module.SESSION_PREFIX)
    if expected in imported or store.has_session(expected):
        return expected
    return imported[0] if imported else None


def _after_write(state_dir: Path) -> None:
    """Keep what the next hooks read ready: the saved search models and vectors, the core's token count."""
    from ..tokens import count_tokens
    from .inject import note_tokens, session_start_injection
    from .recall_tokens import count_ahead

    count_ahead(state_dir)
    text = session_start_injection(state_dir).text
    if text:
        note_tokens(state_dir, text, count_tokens(text))
