"""Backfill: archived evidence that no topic cites is written into topics.

This is a different question from the marker's and is kept apart on purpose: a node
mark says "this workspace's online writer handled the turn", a citation says "this
evidence reached a topic". Backfill asks only the second — it reads no marks and
adds none. It takes trusted frames of the v2 archives (the strict parser's valid
prefix; pending channel evidence is left alone), in archive order, in batches of at
most 16k tokens, and runs the writer on each with that batch as its only admissible
new evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..memory import Frame, SourceIndex, Transaction, Workspace, scan_archive
from ..memory.sources import is_v2_path
from ..memory.topics import topic_rel_to_root
from ..paths import StatePaths
from ..tokens import count_tokens
from .classify import Failure, PassResult, classify
from .editing import Rejected, changed_files, edit_with_repair
from .model import model_timeout, resolve_model
from .prompts import Evidence, write_task
from .tools import WRITER_TOOLS

BATCH_TOKENS = 16_000
LOCK_TIMEOUT_S = 5.0
_RECORD = re.compile(r"^\[([^\]]*)\]\s+(.+?): (.*)$", re.S)


@dataclass
class BackfillBatch:
    sources: list[str]
    changed_files: list[str]
    commit: str | None

    def to_json(self) -> dict[str, Any]:
        return {"sources": self.sources, "changed_files": self.changed_files, "commit": self.commit}


class BackfillResult(PassResult[BackfillBatch]):
    """ok codes: "WRITTEN" | "NOTHING_UNCITED"."""


def uncited_frames(ws: Workspace) -> list[Frame]:
    """Trusted v2 frames that no topic cites, in archive order."""
    index = SourceIndex(ws.root)
    cited: set[str] = set()
    for rel in ws.topic_paths():
        doc = ws.topic(rel)
        if doc is None:
            continue
        for definition in doc.definition_list:
            for link in definition.sources:
                frame = index.resolve(topic_rel_to_root(rel, link.target))
                if frame is not None:
                    cited.add(frame.source_id)
    out = []
    for path in sorted(p for p in ws.sources.rglob("*.md") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(ws.root).as_posix()
        if is_v2_path(rel):
            out += [f for f in scan_archive(path.read_bytes(), rel).frames if f.trusted and f.source_id not in cited]
    return out


def _evidence(frame: Frame) -> Evidence:
    match = _RECORD.match(frame.text)
    kind = (frame.meta or {}).get("speaker_kind")
    role = "assistant" if kind == "runtime" else "user"
    if match is None:
        return Evidence(frame.source_id, role, role, frame.text, None)
    return Evidence(frame.source_id, role, match.group(2), match.group(3), match.group(1) or None)


def _batches(frames: list[Frame]) -> list[list[Frame]]:
    out: list[list[Frame]] = []
    total = 0
    for frame in frames:
        tokens = count_tokens(frame.text)
        if not out or total >= BATCH_TOKENS:
            out.append([])
            total = 0
        out[-1].append(frame)
        total += tokens
    return out


def backfill(state_dir: Path, *, model: str | None = None) -> BackfillResult:
    """Write every uncited trusted source into topics, batch by batch."""
    state_dir = Path(state_dir)
    done: list[BackfillBatch] = []
    try:
        ws = Workspace.open(state_dir)
        name, timeout = resolve_model(state_dir, model), model_timeout(state_dir)
        frames = uncited_frames(ws)
        if not frames:
            return BackfillResult("ok", "NOTHING_UNCITED", "every archived source is cited by a topic")
        for batch in _batches(frames):
            ids = [f.source_id for f in batch]
            with Transaction(ws, "write", f"backfill: {len(ids)} uncited source(s)", evidence=ids,
                                lock_timeout=LOCK_TIMEOUT_S) as txn:
                result, audit = edit_with_repair(txn, paths=StatePaths(state_dir), model=name,
                                                 task=write_task([_evidence(f) for f in batch], txn.topics_dir),
                                                 tools=WRITER_TOOLS, stage="backfill", turns=len(batch), timeout=timeout)
            changed = changed_files(audit)
            if not changed:
                raise _NoProgress(len(ids))
            done.append(BackfillBatch(ids, changed, result.commit))
    except _NoProgress as exc:
        return _failed(Failure("WRITER_NO_PROGRESS", False, str(exc)), done)
    except Rejected as exc:
        return _failed(Failure("COMMIT_REJECTED", False, str(exc)), done)
    except Exception as exc:
        return _failed(classify(exc), done)
    count = sum(len(b.sources) for b in done)
    return BackfillResult("ok", "WRITTEN", f"wrote {count} uncited source(s) in {len(done)} batch(es)", done)


class _NoProgress(Exception):
    def __init__(self, count: int) -> None:
        super().__init__(f"the writer changed no topic file for {count} uncited source(s)")


def _failed(failure: Failure, done: list[BackfillBatch]) -> BackfillResult:
    suffix = f" (after {len(done)} written batch(es))" if done else ""
    return BackfillResult(failure.outcome, failure.code, failure.message + suffix, done)
