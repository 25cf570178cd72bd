"""Big-topic benchmark (issue 19, item 9: big topics don't stall the writer).

One topic of about 330,000 characters (1,600 distinct cited blocks in four `##`
sections, past the tools' 200,000-character read limit) is built through one edit
transaction. Then, with the offline model:

  * one write batch whose notes file into that topic: its outcome and time (before
    the fix the offline writer wrote back the clipped read and the batch was
    COMMIT_REJECTED, every time);
  * one sleep: the split of the topic into sub-topics along its sections (its own
    transaction) and the organizer over all 1,600 blocks (before the fix its duplicate
    search compared every pair of blocks).

Last line: {"topic_chars": …, "batch": "<code>", "batch_ms": …, "sleep": "<code>",
"sleep_ms": …, "split_ms": …, "parts": …, "largest_part_chars": …}
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from scriptorium.core.memory import Workspace, parse_topic
from scriptorium.core.memory.transaction.lifecycle import save_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import sleep, write

BLOCKS = 1_600
SECTIONS = ("Storage", "Scheduling", "Networking", "Security")
FIRST = ("How should we size the build cache for the CI runners?",
         "Start with a 50 GB build cache per runner and evict the least recently used cache entries first.")
SECOND = ("How many runners share one build cache?",
          "Each runner keeps its own build cache; runners never share the runner cache.")
WORDS = ("amber basalt cedar delta ember fjord garnet harbor iris jasper kestrel lagoon marble nectar onyx prairie "
         "quartz raven sierra tundra umber violet willow xenon yarrow zephyr alpine bramble cobalt dune falcon "
         "glacier hazel indigo juniper kelp lotus mesa nimbus orchid pebble quill reef saffron thistle").split()


def fact(i: int) -> str:
    w = [WORDS[(i + k * 7) % len(WORDS)] + WORDS[(i // len(WORDS) + k * 11) % len(WORDS)] for k in range(7)]
    return (f"Runner pool {i} of the {w[0]} {w[1]} region stores {w[2]} artifacts beside {w[3]} {w[4]} logs; "
            f"the {w[5]} team purges it after {i % 13 + 1} days, as {w[6]} review {i} settled.")


def talk(store: SessionStore, title: str, turns: tuple[str, str]) -> str:
    sid = store.create_session(title)
    for role, text in zip(("user", "assistant"), turns):
        store.append(sid, role, text)
    return sid


def build(store: SessionStore) -> tuple[Workspace, str]:
    assert write(store, talk(store, "first", FIRST), force=True).outcome == "ok"
    ws = Workspace.open(store.state_dir)
    (rel,) = ws.topic_paths()
    text = ws.read_topic(rel) or ""
    cite = parse_topic(rel, text).blocks[0].citations[0].id
    definition = next(line for line in text.split("\n") if line.startswith(f"[^{cite}]:"))
    parts = ["\n".join(line for line in text.split("\n") if not line.startswith("[^")).rstrip("\n")]
    per = BLOCKS // len(SECTIONS)
    for k in range(BLOCKS):
        if k % per == 0:
            parts.append(f"## {SECTIONS[k // per]}")
        parts.append(f"{fact(k)}[^{cite}]")
    result = save_topic(ws, rel, "\n\n".join(parts) + "\n\n" + definition + "\n", lock_timeout=30)
    assert result.outcome == "installed", result.diagnostics[:3]
    return ws, rel


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "state")
        ws, rel = build(store)
        size = len(ws.read_topic(rel) or "")
        sid = talk(store, "second", SECOND)
        t0 = time.perf_counter()
        batch = write(store, sid, force=True)
        batch_ms = (time.perf_counter() - t0) * 1000
        print(f"one offline batch into a {size}-character topic: {batch.code} in {batch_ms:.0f} ms", file=sys.stderr)
        t0 = time.perf_counter()
        slept = sleep(store.state_dir, lock_timeout=30)
        sleep_ms = (time.perf_counter() - t0) * 1000
        split = next((r for r in ws.audit_log() if str(r.get("summary", "")).startswith("split ")), None)
        paths = ws.topic_paths()
        largest = max(len(ws.read_topic(p) or "") for p in paths)
    split_ms = _split_alone()  # the split's own cost, timed alone on a fresh copy
    print(f"{'step':<34}{'outcome':>14}{'ms':>10}")
    print(f"{'write batch into the big topic':<34}{batch.code:>14}{batch_ms:>10.0f}")
    print(f"{'sleep (split + organizer)':<34}{slept.code:>14}{sleep_ms:>10.0f}")
    print(f"{'split alone (one transaction)':<34}{'':>14}{split_ms:>10.0f}")
    print(f"topic files after sleep: {len(paths)}, largest {largest} characters; split recorded: {split is not None}")
    print(json.dumps({"topic_chars": size, "batch": batch.code, "batch_ms": round(batch_ms), "sleep": slept.code,
                      "sleep_ms": round(sleep_ms), "split_ms": round(split_ms), "parts": len(paths),
                      "largest_part_chars": largest}))


def _split_alone() -> float:
    """The split transaction by itself, on a fresh copy of the same workspace."""
    try:
        from scriptorium.core.writer.split import split_overgrown
    except ImportError:  # before the split existed
        return 0.0
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore(Path(tmp) / "state")
        ws, _ = build(store)
        t0 = time.perf_counter()
        split_overgrown(ws, 100_000, lock_timeout=30)
        return (time.perf_counter() - t0) * 1000


if __name__ == "__main__":
    main()
