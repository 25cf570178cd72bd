"""Claude Code import benchmark (issue 8): MB/s for ~100 MB of real-shaped JSONL.

The corpus is built from the saved Claude Code fixtures (two real sessions, a real
sub-agent transcript, the synthetic rewind+compaction file), replicated with fresh
ids: every uuid, tool-use id, message id, agent id is remapped per copy, and copies
are chained into long sessions (~10 MB each, every copy's sub-agent in
`<session>/subagents/`), the shape a heavy user's `~/.claude/projects` has.

Times, in one run: planning alone (read + parse + fold), the full first import into
an empty state directory, and a re-import of the unchanged corpus (all nodes exist).
Usage: python bench/import.py [--mb 100] [--session-mb 10]
Last line: {"mb": …, "seconds": …, "mb_per_s": …, …}
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from scriptorium.core.importers import claude_code
from scriptorium.core.importers.run import import_sources
from scriptorium.core.session_store import SessionStore

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "transcripts"
MAIN = "claude-code__marot_spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.first400KB.jsonl"
AGENT = "claude-code__marot_spotter__agent-aac57f5.jsonl"
OTHERS = ["claude-code__marot_spotter__tool_heavy.jsonl", "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl"]
ID_KEYS = frozenset({"uuid", "parentUuid", "logicalParentUuid", "agentId", "id", "tool_use_id", "toolUseID",
                     "parentToolUseID", "sourceToolAssistantUUID", "messageId", "leafUuid", "requestId"})


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def collect_ids(obj: Any, out: set[str]) -> set[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ID_KEYS and isinstance(value, str) and value:
                out.add(value)
            collect_ids(value, out)
    elif isinstance(obj, list):
        for value in obj:
            collect_ids(value, out)
    return out


def remap(obj: Any, mapping: dict[str, str]) -> Any:
    if isinstance(obj, dict):
        return {k: remap(v, mapping) for k, v in obj.items()}
    if isinstance(obj, list):
        return [remap(v, mapping) for v in obj]
    if isinstance(obj, str):
        return mapping.get(obj, obj)
    return obj


def fresh(ids: set[str]) -> dict[str, str]:
    return {old: (f"toolu_{uuid.uuid4().hex}" if old.startswith("toolu_") else
                  uuid.uuid4().hex[:7] if len(old) == 7 else str(uuid.uuid4())) for old in ids}


def dump(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n" for r in records)


def build_corpus(root: Path, total_mb: float, session_mb: float) -> tuple[int, int]:
    """Write sessions until `total_mb` is reached; returns (files, bytes)."""
    main, agent = load(MAIN), load(AGENT)
    others = [load(n) for n in OTHERS]
    pieces = [main + agent] + others  # ids shared by a main copy and its sub-agent copy
    piece_ids = [collect_ids(p, set()) for p in pieces]
    files = written = 0
    target, per_session = int(total_mb * 1e6), int(session_mb * 1e6)
    project = root / "-home-user-project"
    project.mkdir(parents=True)
    while written < target:
        sid = str(uuid.uuid4())
        out = project / f"{sid}.jsonl"
        size, last_uuid, k = 0, None, 0
        with open(out, "wb") as fh:
            while size < per_session and written + size < target:
                index = k % len(pieces)
                mapping = fresh(piece_ids[index])
                copy = remap(pieces[index], mapping)
                body = copy[: len(main)] if index == 0 else copy
                for record in body:
                    record["sessionId"] = sid
                    if record.get("uuid") and record.get("parentUuid") is None and record.get("subtype") != "compact_boundary":
                        record["parentUuid"] = last_uuid  # chain the copies into one long conversation
                    last_uuid = record.get("uuid") or last_uuid
                data = dump(body)
                fh.write(data)
                size += len(data)
                if index == 0:
                    sub = copy[len(main):]
                    for record in sub:
                        record["sessionId"] = sid
                    agent_file = project / sid / "subagents" / f"agent-{sub[0]['agentId']}.jsonl"
                    agent_file.parent.mkdir(parents=True, exist_ok=True)
                    data = dump(sub)
                    agent_file.write_bytes(data)
                    size += len(data)
                    files += 1
                k += 1
        files += 1
        written += size
    return files, written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--session-mb", type=float, default=10.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="scriptorium-bench-import-") as tmp:
        corpus, state = Path(tmp) / "projects", Path(tmp) / "state"
        files, nbytes = build_corpus(corpus, args.mb, args.session_mb)
        mb = nbytes / 1e6

        t = time.perf_counter()
        planned = sum(len(p.nodes) for p in claude_code.plan_sessions(claude_code.discover([corpus])))
        plan_s = time.perf_counter() - t

        t = time.perf_counter()
        report = import_sources(SessionStore(state), "claude-code", [corpus])
        seconds = time.perf_counter() - t

        t = time.perf_counter()
        again = import_sources(SessionStore(state), "claude-code", [corpus])
        reimport_s = time.perf_counter() - t
        assert again.nodes_added == 0 and again.nodes_unchanged == report.nodes_added, again.to_json()
        assert not report.errors, report.errors[:3]

    rows = [
        ("corpus", f"{mb:,.1f} MB in {files} files, {len(report.sessions)} sessions"),
        ("planned nodes", f"{planned:,} ({report.nodes_added:,} written)"),
        ("plan only (read+parse+fold)", f"{plan_s:6.2f} s  {mb / plan_s:7.1f} MB/s"),
        ("first import (plan+write+commit)", f"{seconds:6.2f} s  {mb / seconds:7.1f} MB/s"),
        ("re-import, nothing new", f"{reimport_s:6.2f} s  {mb / reimport_s:7.1f} MB/s"),
        ("target", ">= 20 MB/s for the first import"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print(json.dumps({"mb": round(mb, 2), "seconds": round(seconds, 3), "mb_per_s": round(mb / seconds, 2),
                      "nodes": report.nodes_added, "sessions": len(report.sessions),
                      "plan_mb_per_s": round(mb / plan_s, 2), "reimport_seconds": round(reimport_s, 3)}))


if __name__ == "__main__":
    main()
