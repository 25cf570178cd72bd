"""Write-pipeline benchmark (issue: the write pipeline).

A 2,000-turn session with forks is written batch by batch (100 unforced passes of ~18
turns each) by a scripted model that answers instantly: one block per batch, citing
the batch's first record, in a new topic. Measured per batch:

  * the engine's overhead: the whole pass (pending walk, evidence archive, write
    transaction, marks, counters, a due sleep) minus the time spent in model calls;
  * the growth of the session's git repository: marks go only on the batch's nodes,
    so the bytes added per batch must stay flat over the session's life.

`--state DIR`: write the one session of a state built before (bench/reference_paths.py builds
it once with `build` and hands each fresh process a copy) instead of building one here.

Last line: {"overhead_ms": …, "repo_bytes_per_batch_first10": …, "repo_bytes_per_batch_last10": …}
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scriptorium.core.config import set_config_value
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.tokens import count_tokens
from scriptorium.core.writer import agent, register_provider, write
from scriptorium.core.writer.model import Reply

MAIN_TURNS = 2_000
FORKS = 20
FORK_TURNS = 5
BATCH_TURNS = 18  # >100 batches on the head branch: a warm-up and 100 measured
BATCHES = 100
TEXT = "we discussed the runner cache, eviction order and the disk budget for turn {i}"


class Instant:
    """Writes one cited block per batch into a new topic, at once."""

    def __init__(self) -> None:
        self.batch = 0

    def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 timeout: float) -> Reply:
        if len(messages) > 2:
            return Reply.of("done")
        if not messages[1]["content"].startswith("Integrate"):  # an organizer run
            return Reply.of("nothing to reorganize")
        ref = next(json.loads(line)["ref"] for line in messages[1]["content"].splitlines() if line.startswith('{"ref"'))
        self.batch += 1
        content = (f"# Batch {self.batch}\n\nThe runner cache discussion, part {self.batch}.[^e1]\n\n"
                   f"[^e1]: Time: `2026-01-02`; Sources: [cache]({ref})\n")
        return Reply.of([("write_file", {"path": f"bench/b{self.batch:03d}.md", "content": content})])


def build(store: SessionStore) -> str:
    sid = store.create_session("bench write")
    with store.batch(sid, "bench build"):
        main: list[str] = []
        for i in range(MAIN_TURNS):
            main.append(store.append(sid, "user" if i % 2 == 0 else "assistant", TEXT.format(i=i)).id)
        head = main[-1]
        for f in range(FORKS):
            prev = main[(f + 1) * (MAIN_TURNS // (FORKS + 1))]
            for j in range(FORK_TURNS):
                prev = store.append(sid, "assistant" if j % 2 == 0 else "user", f"fork {f} " + TEXT.format(i=j),
                                    predecessor=prev, move_head=False).id
    assert store.head(sid) == head
    return sid


def repo_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path / ".git").rglob("*") if p.is_file())


def main() -> None:
    global BATCHES
    if "--batches" in sys.argv:  # fewer, for a bench that runs this in several fresh processes
        BATCHES = int(sys.argv[sys.argv.index("--batches") + 1])
    with tempfile.TemporaryDirectory() as tmp:
        if "--state" in sys.argv:
            store = SessionStore(sys.argv[sys.argv.index("--state") + 1])
            (sid,) = store.session_ids()
        else:
            store = SessionStore(Path(tmp) / "state")
            t = time.perf_counter()
            sid = build(store)
            print(f"built a {MAIN_TURNS + FORKS * FORK_TURNS}-turn session in {time.perf_counter() - t:.1f} s",
                  file=sys.stderr)
        per_turn = count_tokens(TEXT.format(i=1000))
        set_config_value(store.state_dir, "writer.trigger_tokens", per_turn * BATCH_TURNS)
        register_provider("bench", Instant())

        model_s = [0.0]
        real = agent.completion

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                model_s[0] += time.perf_counter() - t0

        agent.completion = timed
        write(store, sid, model="bench/instant", tip=store.head(sid))  # warm-up: imports, first sleep
        session_dir = store.session_dir(sid)
        sizes = [repo_bytes(session_dir)]
        overhead, totals, models, turns = [], [], [], []
        for _ in range(BATCHES):
            model_s[0] = 0.0
            t0 = time.perf_counter()
            result = write(store, sid, model="bench/instant")
            total = time.perf_counter() - t0
            assert result.outcome == "ok" and len(result.batches) == 1, result.message
            turns.append(len(result.batches[0].turns))
            totals.append(total * 1000)
            models.append(model_s[0] * 1000)
            overhead.append((total - model_s[0]) * 1000)
            sizes.append(repo_bytes(session_dir))
    growth = [b - a for a, b in zip(sizes, sizes[1:])]
    first10, last10 = statistics.mean(growth[:10]), statistics.mean(growth[-10:])
    print(f"{'batch':>6}{'turns':>7}{'total ms':>10}{'model ms':>10}{'overhead ms':>13}{'repo +bytes':>13}")
    for i in sorted({*range(min(5, BATCHES)), *range(max(BATCHES - 5, 0), BATCHES)}):
        print(f"{i + 1:>6}{turns[i]:>7}{totals[i]:>10.1f}{models[i]:>10.1f}{overhead[i]:>13.1f}{growth[i]:>13}")
    print(f"median overhead per batch: {statistics.median(overhead):.1f} ms "
          f"(p90 {sorted(overhead)[int(0.9 * len(overhead))]:.1f} ms); median model-call time {statistics.median(models):.1f} ms")
    print(f"session repo growth per batch: first 10 {first10:.0f} B, last 10 {last10:.0f} B")
    print(json.dumps({"overhead_ms": round(statistics.median(overhead), 1),
                      "repo_bytes_per_batch_first10": round(first10), "repo_bytes_per_batch_last10": round(last10)}))


if __name__ == "__main__":
    main()
