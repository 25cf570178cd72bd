"""Transaction overhead benchmark (issue 3, DESIGN §14): no model, the engine alone.

Workspaces of 20 and 200 topics with 25 cited blocks each; every block's evidence sits
in 500-record v2 archives (one archive for 20 topics, ten for 200), dated across a
year so the timeline has hundreds of files; every topic links into the next one and
there is a canonical core. One transaction = lock, baseline, staging copy (topics and
the read-only sources), a one-topic human edit, normalization and validation, derived
views and the core render, the journaled install, the git commit and the audit record.

The reference implementation spends ~28 s on one such edit at 20 topics, because every
citation re-scans the whole archive; here each archive is scanned once per content and
an edit validates the edited topic fully and the rest only for ids and links.

Usage: python bench/transaction.py [--runs 15]
Last line: {"topics_20_ms": …, "topics_200_ms": …}
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from scriptorium.core.memory import Transaction, Workspace, session_record
from scriptorium.core.memory.sources import anchor_for, archive_path, group_by_archive, plan_append

BLOCKS = 25
RECORDS_PER_ARCHIVE = 500
WORDS = ("cache runner build disk evict policy shared target branch deploy window latency checkout "
         "review owner budget release schedule incident").split()


def topic_path(i: int) -> str:
    return f"area{i % 10}/topic{i:03d}.md"


def block_id(i: int, j: int) -> str:
    return f"{i:04x}{j:04x}"


def build(state: Path, topics: int) -> Workspace:
    """Write a canonical workspace straight to disk, then open it (first commit)."""
    mem = state / "memory"
    total = max(RECORDS_PER_ARCHIVE, topics * BLOCKS)
    day0 = date(2025, 1, 1)
    records = [session_record(f"s{r // RECORDS_PER_ARCHIVE}", f"m{r % RECORDS_PER_ARCHIVE}",
                              "user" if r % 2 == 0 else "assistant",
                              " ".join(WORDS[(r + k) % len(WORDS)] for k in range(30)), 1735689600 + 3600 * r)
               for r in range(total)]
    for rel, batch in group_by_archive(records).items():
        data, _ = plan_append(None, rel, batch)
        (mem / rel).parent.mkdir(parents=True, exist_ok=True)
        (mem / rel).write_bytes(data)

    def cite(topic: str, r: int) -> tuple[str, str]:
        sid = records[r].source_id
        depth = topic.count("/") + 1
        return (str(day0 + timedelta(days=r % 365)),
                "../" * depth + f"{archive_path(sid)}#{anchor_for(sid)}")

    for i in range(topics):
        rel = topic_path(i)
        lines = [f"# Topic {i}", "", "## Notes"]
        for j in range(BLOCKS):
            r = (i * BLOCKS + j) % total
            when, target = cite(rel, r)
            words = " ".join(WORDS[(i + j + k) % len(WORDS)] for k in range(24))
            link = ""
            if j == 0:
                nxt = (i + 1) % topics
                link = f" See [next](../{topic_path(nxt)}#^{block_id(nxt, 1)})."
            eid = f"e-{i:05x}{j:05x}"
            lines += ["", f"Fact {j} of topic {i}: {words}.{link}[^{eid}] ^{block_id(i, j)}", "",
                      f"[^{eid}]: Time: `{when}`; Sources: [note]({target})"]
        (mem / "topics" / rel).parent.mkdir(parents=True, exist_ok=True)
        (mem / "topics" / rel).write_text("\n".join(lines) + "\n")
    core = ["# Core"]
    for j in range(20):
        when, target = cite("core.md", j)
        core += ["", f"Standing rule {j}: keep the {WORDS[j % len(WORDS)]} tidy.[^e-c{j:09x}] ^c{j:07x}", "",
                 f"[^e-c{j:09x}]: Time: `{when}`; Sources: [rule]({target})"]
    (mem / "topics" / "core.md").write_text("\n".join(core) + "\n")
    return Workspace.open(state)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): load-independent."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def one_edit(ws: Workspace, k: int, topics: int) -> tuple[float, float]:
    """(wall ms, cpu ms) of one transaction editing one topic."""
    rel = topic_path((k * 7) % topics)
    started, cpu = time.perf_counter(), _cpu()
    with Transaction(ws, "edit", f"bench edit {k}") as txn:
        text = txn.read_topic(rel)
        txn.write_topic(rel, text.replace("Fact 3 of", f"Fact 3 (rev {k}) of", 1))
        result = txn.commit()
    elapsed = (time.perf_counter() - started) * 1000, (_cpu() - cpu) * 1000
    assert result.outcome == "installed", result.diagnostics
    return elapsed


def measure(sizes: tuple[int, ...], runs: int) -> list[dict[str, float]]:
    """Edits on every size, interleaved, so a load spike on the machine hits all sizes alike."""
    with tempfile.TemporaryDirectory(prefix="scriptorium-bench-") as tmp:
        spaces = {n: build(Path(tmp) / f"state{n}", n) for n in sizes}
        first = {n: one_edit(ws, 0, n)[0] for n, ws in spaces.items()}  # views built, every topic parsed
        samples: dict[int, list[tuple[float, float]]] = {n: [] for n in sizes}
        for k in range(1, runs + 1):
            for n, ws in spaces.items():
                samples[n].append(one_edit(ws, k, n))
        rows = []
        for n, ws in spaces.items():
            wall = sorted(w for w, _ in samples[n])
            rows.append({"topics": n, "blocks": n * BLOCKS, "first_ms": first[n],
                         "timeline_files": sum(1 for _ in (ws.root / "timeline").rglob("*.md")),
                         "median_ms": statistics.median(wall), "p90_ms": wall[int(0.9 * (len(wall) - 1))],
                         "min_ms": wall[0], "cpu_ms": statistics.median(c for _, c in samples[n])})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    rows = measure((20, 200), args.runs)
    print(f"{'topics':>7} {'blocks':>7} {'timeline':>9} {'first ms':>9} {'median ms':>10} {'p90 ms':>8} "
          f"{'min ms':>8} {'cpu ms':>8}")
    for r in rows:
        print(f"{r['topics']:>7} {r['blocks']:>7} {r['timeline_files']:>9} {r['first_ms']:>9.1f} "
              f"{r['median_ms']:>10.1f} {r['p90_ms']:>8.1f} {r['min_ms']:>8.1f} {r['cpu_ms']:>8.1f}")
    small, large = rows
    per_topic = (large["median_ms"] - small["median_ms"]) / (large["topics"] - small["topics"])
    cpu_per_topic = (large["cpu_ms"] - small["cpu_ms"]) / (large["topics"] - small["topics"])
    print(f"growth: {per_topic:.3f} ms wall, {cpu_per_topic:.3f} ms cpu per extra topic; 200/20 ratio "
          f"{large['median_ms'] / small['median_ms']:.2f} wall, {large['cpu_ms'] / small['cpu_ms']:.2f} cpu "
          "(10x the topics: linear would be 10)")
    print("first = the process's first transaction (tokenizer load, every topic parsed, views built); "
          "cpu = this process + git, median")
    print("target: <= 150 ms at 200 topics:", "met" if large["median_ms"] <= 150 else "NOT met")
    print(json.dumps({"topics_20_ms": round(small["median_ms"], 1), "topics_200_ms": round(large["median_ms"], 1),
                      "ms_per_topic": round(per_topic, 3), "cpu_ms_per_topic": round(cpu_per_topic, 3),
                      "topics_20_cpu_ms": round(small["cpu_ms"], 1),
                      "topics_200_cpu_ms": round(large["cpu_ms"], 1)}))


if __name__ == "__main__":
    main()
