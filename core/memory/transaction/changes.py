"""The change set of a judged edit: every file the install will write or delete.

Topics and archives (the edit's own bytes), the derived views rebuilt from the final
topics (timeline, relations, recent events), the rendered core, and the runtime
files: `runtime.json` (creation order, and the counters callers add with
`Transaction.count`) and the retired registry. Files whose bytes would not change
are dropped; what is left is installed all or nothing (install.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...runtime_state import RUNTIME_FILE, dump_runtime
from ...tokens import CountCache
from .. import core_status, derived
from ..core_render import CORE_TOPIC, render_core
from ..retired import RETIRED_NAME, dump_retired
from ..topics import TopicDoc
from ..workspace import Workspace
from .judge import Verdict
from .result import TransactionResult
from .stage import Stage, read_bytes, walk_files

# Adds to runtime.json's counters: (the state to change, the topic files this install changes)
RuntimeUpdate = Callable[[dict[str, Any], list[str]], None]


def _edited(stage: Stage, verdict: Verdict) -> dict[str, bytes | None]:
    """Topics the edit changed (None: deleted) and the archives it appended to."""
    live = stage.baseline.topics
    after: dict[str, bytes | None] = {}
    for rel in set(live) | set(verdict.final):
        new = verdict.final[rel].encode("utf-8") if rel in verdict.final else None
        if new != live.get(rel):
            after[f"topics/{rel}"] = new
    after.update({**stage.own_sources, **verdict.overlay, **stage.versioned})  # compared with the live bytes later
    return after


def _derived_views(ws: Workspace, stage: Stage, verdict: Verdict, units: list[derived.Unit],
                   order: dict[str, int]) -> dict[str, bytes | None]:
    docs = verdict.docs
    dates = derived.dates_to_rebuild(str(ws.root), docs)
    out: dict[str, bytes | None] = (dict(derived.timeline(docs, dates)) if dates is not None
                                    else _first_timeline(ws, stage, docs))
    out["relations.json"] = derived.relations(docs)
    assert verdict.sources is not None
    out["recent_events.jsonl"] = derived.recent_events(units, order, verdict.sources, ws.recent_limit())
    return out


def _first_timeline(ws: Workspace, stage: Stage, docs: dict[str, TopicDoc]) -> dict[str, bytes | None]:
    """The first build in a process: every date is rendered, but a file is rewritten only
    for a date the change is about (its documents differ from the live ones), a file
    missing or left over, or one whose facts differ from the topics (a hand edit behind
    our back). A file someone else rendered with the same facts — an OpenProgram
    workspace, whose quotes keep their links verbatim — is left as it is."""
    about = {derived.timeline_path(when) for when in derived.dates_changed(stage.baseline.docs, docs)}
    out: dict[str, bytes | None] = {}
    on_disk = {f"timeline/{rel}": path for rel, path in walk_files(ws.root / "timeline").items()}
    for path, data in derived.timeline(docs).items():
        assert data is not None  # every date of a full build has entries
        disk = on_disk.pop(path, None)
        if path in about or disk is None or derived.timeline_facts(read_bytes(disk) or b"") != derived.timeline_facts(data):
            out[path] = data
    out.update(dict.fromkeys(on_disk))  # no entry points at these dates any more
    return out


def _core(ws: Workspace, stage: Stage, verdict: Verdict, result: TransactionResult,
          core_committed: Callable[[], bool]) -> dict[str, bytes | None]:
    """The rendered `core.md` with the record of what it measured (`core --json` reads it);
    both gone with the canonical core (deleted here or by hand)."""
    core_doc = verdict.docs.get(CORE_TOPIC)
    record = f"{ws.runtime.name}/{core_status.RECORD}"
    counts = f"{ws.runtime.name}/{core_status.COUNTS}"
    if core_doc is not None:
        assert verdict.sources is not None
        cache = CountCache(_cached_counts(ws.root / counts))  # the last install's: unchanged chunks are not recounted
        result.core = render_core(core_doc, ws.core_budget(), verdict.sources, cache.count)
        return {"core.md": result.core.text.encode("utf-8"),
                record: core_status.render_record(core_doc.text, result.core, cache.count), counts: cache.dump()}
    if CORE_TOPIC in stage.baseline.topics or ((ws.root / "core.md").exists() and core_committed()):
        return {"core.md": None, record: None, counts: None}
    return {}


def _cached_counts(path: Path) -> bytes | None:
    """A cache never fails a transaction: unreadable is empty (everything is recounted)."""
    try:
        return read_bytes(path)
    except OSError:
        return None


def _runtime(ws: Workspace, stage: Stage, order: dict[str, int], updates: list[RuntimeUpdate],
             changed_topics: list[str]) -> dict[str, bytes | None]:
    """runtime.json with the new creation order and the callers' counters, if either changed."""
    live = stage.baseline.runtime
    state = dict(live, creation_order=order)
    for update in updates:
        update(state, changed_topics)
    if state == live:  # serializing 5,000 ids is not free
        return {}
    return {f"{ws.runtime.name}/{RUNTIME_FILE}": dump_runtime(state).encode("utf-8")}


def _retired(ws: Workspace, stage: Stage, retire: dict[str, str], result: TransactionResult,
             ) -> dict[str, bytes | None]:
    if not retire:
        return {}
    registry = dict(stage.baseline.retired)
    for bid, reason in sorted(retire.items()):
        home = stage.baseline.home(bid)
        entry: dict[str, str | None] = {"reason": reason, "file": f"topics/{home.path}" if home else None,
                 "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        registry[bid] = entry
        result.retired.append({"id": bid, **entry})
    return {f"{ws.runtime.name}/{RETIRED_NAME}": dump_retired(registry)}


def change_set(ws: Workspace, stage: Stage, verdict: Verdict, result: TransactionResult, *,
               retire: dict[str, str], updates: list[RuntimeUpdate], core_committed: Callable[[], bool],
               order_hint: dict[str, int] | None = None) -> None:
    """Fill `result` with the change (`before`/`after` of each changed file), the files a
    person sees changed, the blocks created, the retirements and the core render.
    `order_hint` replaces the creation order kept here (sync: the order another machine has)."""
    baseline = stage.baseline
    units = derived.all_units(verdict.docs)
    previous = order_hint or baseline.runtime.get("creation_order") or {
        u.memory_id: n for n, u in enumerate(derived.all_units(baseline.docs))}
    order = derived.creation_order(previous, units)

    after = _edited(stage, verdict)
    after.update(_derived_views(ws, stage, verdict, units, order))
    after.update(_core(ws, stage, verdict, result, core_committed))
    after.update(_retired(ws, stage, retire, result))

    def before_of(path: str) -> bytes | None:
        return baseline.topics.get(path[len("topics/"):]) if path.startswith("topics/") else read_bytes(ws.root / path)

    changed_topics = sorted(p for p in after if p.startswith("topics/") and after[p] != before_of(p))
    after.update(_runtime(ws, stage, order, updates, changed_topics))

    before = {path: before_of(path) for path in after}
    changed = sorted(p for p in after if after[p] != before[p])
    result.before = {p: before[p] for p in changed}
    result.after = {p: after[p] for p in changed}
    internal = ws.runtime.name + "/"
    result.changed_files = [p for p in changed if not p.startswith(internal)]
    result.created_blocks = sorted(verdict.assigned & {u.memory_id for u in units})
