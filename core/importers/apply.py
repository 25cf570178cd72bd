"""Writing a plan into the session store: only what is missing, in one commit per session.

Nodes the store already has are never touched — not rewritten, not re-marked — so
re-importing a grown transcript keeps every existing node file byte-identical,
including the written markers memory put there.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..sessions.nodes import clean_text
from ..sessions.errors import SessionError, SessionExists
from ..sessions.reading import redaction_counts
from ..sessions.store import SessionStore
from .plan import PlannedNode, SessionPlan

ROLE_OF = {"user": "user", "assistant": "assistant", "tool": "tool", "runtime": "user"}


@dataclass
class ApplyResult:
    session_id: str
    title: str
    created: bool
    added: int = 0
    unchanged: int = 0
    errors: list[str] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)  # secrets redacted from what was added, by kind


def apply_plan(store: SessionStore, plan: SessionPlan, *,
               on_node: Callable[[int, int], None] | None = None) -> ApplyResult:
    """Create the session if needed and append the planned nodes it lacks.

    `on_node(done, total)` is called after each appended node (for progress bars).
    A node the store refuses (e.g. its predecessor could not be written) is reported in
    `errors` and the import goes on with the rest.
    """
    sid = plan.session_id
    created = not store.has_session(sid)
    if created:
        try:
            store.create_session(title=plan.title, session_id=sid, commit=False, started_at=_started(plan),
                                 **_clean(plan.meta))
        except SessionExists:
            _wait_until_created(store, sid)  # another import got there first: add to its session
            created = False
    result = ApplyResult(session_id=sid, title=shown_title(store, plan), created=created)
    before = {} if created else redaction_counts(store.meta(sid))
    known = store.index(sid).entries
    missing = [n for n in plan.nodes if n.id not in known]
    result.unchanged = len(plan.nodes) - len(missing)
    if not missing and not created:  # a session we created is committed by the batch even if empty
        return result
    with store.batch(sid, message=f"import {plan.kind}: {len(missing)} node(s)"):
        for done, node in enumerate(missing, start=1):
            if store.has_node(sid, node.id):  # written meanwhile by a concurrent import
                result.unchanged += 1
            else:
                try:
                    _append(store, sid, node)
                    result.added += 1
                except SessionError as exc:
                    result.errors.append(f"{node.id}: {exc}")
            if on_node is not None:
                on_node(done, len(missing))
    after = redaction_counts(store.meta(sid))
    result.redactions = Counter({k: n - before.get(k, 0) for k, n in after.items() if n > before.get(k, 0)})
    return result


def shown_title(store: SessionStore, plan: SessionPlan) -> str:
    """The plan's title as the session stores it: redacted, since a title is a transcript's first words
    and every report, progress line and dialog that names the session shows it."""
    return store.redactor.text(plan.title)


def _started(plan: SessionPlan) -> float | None:
    """When the conversation began: its first dated record (ROOT shows it, not the import's date)."""
    times = [n.created_at for n in plan.nodes if n.created_at is not None]
    return min([plan.started, *times] if plan.started is not None else times, default=None)


def preview_plan(store: SessionStore, plan: SessionPlan) -> ApplyResult:
    """What `apply_plan` would do, writing nothing: a new session, or the nodes it lacks."""
    sid = plan.session_id
    exists = store.has_session(sid)
    try:
        known = store.index(sid).entries if exists else {}
    except SessionError as exc:
        return ApplyResult(session_id=sid, title=shown_title(store, plan), created=False, errors=[str(exc)])
    missing = sum(1 for node in plan.nodes if node.id not in known)
    return ApplyResult(session_id=sid, title=shown_title(store, plan), created=not exists, added=missing,
                       unchanged=len(plan.nodes) - missing)


def _wait_until_created(store: SessionStore, sid: str, timeout: float = 5.0) -> None:
    """A session another process is creating has its files in a moment; raise if not."""
    deadline = time.monotonic() + timeout
    while not store.has_session(sid):
        if time.monotonic() > deadline:
            raise SessionError(f"session {sid} is half created (another import died?): remove "
                               f"{store.session_dir(sid)} if it holds no history, then import again")
        time.sleep(0.05)


def _clean(value: Any) -> Any:
    """Transcripts can carry lone surrogates (`"\\ud800"` is valid JSON); node files are UTF-8.

    orjson refuses exactly such strings, so one fast encode settles the common case."""
    try:
        orjson.dumps(value, default=str)
        return value
    except (orjson.JSONEncodeError, TypeError):
        return _clean_deep(value)


def _clean_deep(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_clean_deep(v) for v in value)
    if isinstance(value, dict):
        return {_clean_deep(k): _clean_deep(v) for k, v in value.items()}
    return value


def _append(store: SessionStore, sid: str, node: PlannedNode) -> None:
    text, name, args, metadata = _clean((node.text, node.name, node.input, node.metadata))
    if node.kind == "summary":
        store.append_summary(sid, node.covers, text, node_id=node.id, created_at=node.created_at, at=node.predecessor)
    elif node.kind == "spawn":
        store.spawn_branch(sid, text, caller=node.caller, node_id=node.id, created_at=node.created_at,
                           metadata=metadata)
    elif node.kind == "tool":
        store.append(sid, "tool", text, predecessor=None, caller=node.caller, name=name, input=args,
                     metadata=metadata, node_id=node.id, created_at=node.created_at, move_head=False)
    else:
        if node.kind == "runtime":
            metadata = {**metadata, "display": "runtime"}
        store.append(sid, ROLE_OF[node.kind], text, predecessor=node.predecessor, name=name,
                     metadata=metadata, node_id=node.id, created_at=node.created_at, move_head=node.on_head)
