"""LoCoMo conversations in the two shapes sessions reach the writer (for bench/recall.py and
any bench that measures recall on them, e.g. the hooks' recall).

* `speakers`: each LoCoMo session becomes a session through the store API, speaker A as
  the user and B as the assistant, their names as the session's `speakers` metadata.
* `imported`: each session is written as a Claude Code transcript file (turns
  "Name: text", A's as user records and B's as assistant records, a working directory,
  no speakers metadata) and brought in with `scriptorium import claude-code`: the path
  every real session takes.

Both give every turn the node id `node_id(dia_id)` and the session's date as its time,
so a citation leads back to its LoCoMo turn. `build(shape, conv, state)` writes the
sessions; `write(store, sids, state)` runs the offline writer (`finish` per session,
then one `sleep`) and returns its CPU seconds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev"
WORKDIR = "/home/user/projects/diary"  # the imported shape's working directory (as an agent would record it)
SHAPES = ("speakers", "imported")


@dataclass
class Built:
    store: SessionStore
    turns: dict[str, str]  # dia_id -> the turn's text as the session holds it, in conversation order
    session_ids: list[str]  # in conversation order


def load(path: Path) -> dict:
    """One conversation with its `qa` beside it (the original locomo10.json nests both)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    conv = raw.get("conversation", raw)
    return {**conv, "qa": conv.get("qa") or raw.get("qa", [])}


def turn_text(turn: dict) -> str:
    return turn["text"]  # shared photos' captions are the dataset's, not what was said


def session_time(stamp: str) -> float:
    when = datetime.strptime(stamp.strip(), "%I:%M %p on %d %B, %Y")
    return when.replace(tzinfo=timezone.utc).timestamp()


def node_id(dia_id: str) -> str:
    return "d" + dia_id.replace(":", "-")


def session_numbers(conv: dict) -> list[int]:
    return sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k])


def turns_of(conv: dict, named: bool = False) -> dict[str, str]:
    """Every turn's text by dia_id; `named`: as "Name: text", the way a transcript holds it."""
    return {t["dia_id"]: f"{t['speaker']}: {turn_text(t)}" if named else turn_text(t)
            for n in session_numbers(conv) for t in conv[f"session_{n}"]}


def build_speakers(conv: dict, state: Path) -> Built:
    store = SessionStore(state)
    a, b = conv["speaker_a"], conv["speaker_b"]
    sids = []
    for n in session_numbers(conv):
        start = session_time(conv[f"session_{n}_date_time"])
        sid = store.create_session(f"LoCoMo session {n}", session_id=f"s{n:02d}", speakers={"user": a, "assistant": b})
        with store.batch(sid, message="locomo"):
            for i, turn in enumerate(conv[f"session_{n}"]):
                store.append(sid, "user" if turn["speaker"] == a else "assistant", turn_text(turn),
                             node_id=node_id(turn["dia_id"]), created_at=start + i)
        sids.append(sid)
    return Built(store, turns_of(conv), sids)


def transcript_records(conv: dict, n: int, session_uuid: str) -> list[dict]:
    """Session n as Claude Code records: "Name: text" turns, A typing, B answering."""
    a, turns = conv["speaker_a"], turns_of(conv, named=True)
    start = session_time(conv[f"session_{n}_date_time"])
    records, parent = [], None
    for i, turn in enumerate(conv[f"session_{n}"]):
        uid = node_id(turn["dia_id"])
        stamp = datetime.fromtimestamp(start + i, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        text = turns[turn["dia_id"]]
        common = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": WORKDIR,
                  "sessionId": session_uuid, "version": "2.1.39", "uuid": uid, "timestamp": stamp}
        if turn["speaker"] == a:
            records.append({**common, "type": "user", "message": {"role": "user", "content": text}})
        else:
            records.append({**common, "type": "assistant", "message": {
                "id": f"msg_{uid}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}})
        parent = uid
    return records


def build_imported(conv: dict, state: Path) -> Built:
    folder = state.parent / "transcripts" / WORKDIR.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    stems = []
    for n in session_numbers(conv):
        stem = f"00000000-0000-4000-8000-{n:012d}"
        lines = (json.dumps(r) for r in transcript_records(conv, n, stem))
        (folder / f"{stem}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        stems.append(stem)
    done = subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "import",
                           "claude-code", str(folder), "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"scriptorium import failed ({done.returncode}): {done.stderr.strip()}")
    return Built(SessionStore(state), turns_of(conv, named=True), [f"cc-{stem}" for stem in stems])


BUILDERS: dict[str, Callable[[dict, Path], Built]] = {"speakers": build_speakers, "imported": build_imported}


def build(shape: str, conv: dict, state: Path) -> Built:
    return BUILDERS[shape](conv, state)


def write(built: Built, state: Path) -> float:
    """The offline writer over every session (finish each, then sleep); its CPU seconds."""
    cpu = 0.0
    for sid in built.session_ids:
        t = time.process_time()
        result = finish(built.store, sid)
        cpu += time.process_time() - t
        if result.outcome != "ok":
            print(f"  {sid}: {result.code}: {result.message}", file=sys.stderr)
    t = time.process_time()
    slept = sleep(state)
    cpu += time.process_time() - t
    if slept.outcome != "ok":
        print(f"  sleep: {slept.code}: {slept.message}", file=sys.stderr)
    return cpu
