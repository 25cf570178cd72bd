"""The memory workspace and its transaction (DESIGN §2, §6, §7; formats §2–§4, §6).

Open a workspace and change it only through a transaction::

    from scriptorium.core.memory import Workspace, Transaction, save_topic

    ws = Workspace.open(state_dir)
    result = save_topic(ws, "people/ada.md", text)          # a human's edit
    with Transaction(ws, "write", "batch 12", lock_timeout=1.0) as txn:
        ids = txn.archive(records_to_sources(records))      # the batch's evidence
        txn.apply(run_writer)                                # edits in txn.topics_dir
        result = txn.check()                                 # validate + diff, no install
        if not result.ok:
            txn.reset()                                      # one repair attempt
            ...
        result = txn.commit()                                # install + git commit + audit

`TransactionResult` has `outcome` ("installed" / "rejected" / "previewed"),
`commit`, `changed_files` (content changed), `changed_topics`, `diagnostics`
(`Diagnostic(rule, file, line, block_id, message, hint)`), `created_blocks`,
`retired`, `archived`, `core` (the `CoreRender`), `diff`, and `to_json()`.
`Transaction(..., preview=True)` never installs. `LockBusy` (retryable) means
another transaction holds the lock; `WorkspaceError.retryable` says whether any
error is worth retrying.

Reading, inside `read_consistent(state_dir, read)` (one committed state, never half an
interrupted install: reading.py): `Workspace.topic(path)` / `parse_topic` (blocks with
ids, lines, citations, links), `Workspace.core_status()` / `core_injection()`, `Workspace.audit_log()`,
`Workspace.revision()`. Evidence: `SourceRecord`, `records_to_sources`,
`scan_archive` (strict, valid prefix), `SourceIndex`; `manual_record` / `agent_record`
(a person's or an agent's uncited fact as its own evidence).

The names load on first use (PEP 562): reading a topic or the core's status never
loads git and the transaction machinery.
"""

from __future__ import annotations

import importlib

from ..values import TYPE_CHECKING

if TYPE_CHECKING:  # the same names as _EXPORTS, for type checkers
    from typing import Any

    from .core_render import CoreRender, injection, render_core
    from .core_status import CoreStatus
    from .reading import read_consistent
    from .errors import (
        ArchiveError,
        InstallError,
        InvalidRecord,
        LockBusy,
        TopicNameError,
        TopicPathError,
        TransactionClosed,
        WorkspaceError,
    )
    from .sources import (
        ArchiveScan,
        Frame,
        SourceIndex,
        SourceRecord,
        agent_record,
        archive_path,
        manual_record,
        records_to_sources,
        scan_archive,
        session_record,
    )
    from .topics import Paragraph, TopicDoc, parse_topic, topic_rel, without_block
    from .transaction.lifecycle import KINDS, Transaction, retire_block, save_topic
    from .transaction.result import TransactionResult
    from .validate import RULES, Diagnostic
    from .workspace import Workspace

# public name -> the submodule defining it
_EXPORTS: dict[str, str] = {
    "CoreRender": "core_render",
    "injection": "core_render",
    "render_core": "core_render",
    "CoreStatus": "core_status",
    "ArchiveError": "errors",
    "InstallError": "errors",
    "InvalidRecord": "errors",
    "LockBusy": "errors",
    "TopicNameError": "errors",
    "TopicPathError": "errors",
    "TransactionClosed": "errors",
    "WorkspaceError": "errors",
    "read_consistent": "reading",
    "ArchiveScan": "sources",
    "Frame": "sources",
    "SourceIndex": "sources",
    "SourceRecord": "sources",
    "agent_record": "sources",
    "archive_path": "sources",
    "manual_record": "sources",
    "records_to_sources": "sources",
    "scan_archive": "sources",
    "session_record": "sources",
    "Paragraph": "topics",
    "TopicDoc": "topics",
    "parse_topic": "topics",
    "topic_rel": "topics",
    "without_block": "topics",
    "KINDS": "transaction.lifecycle",
    "Transaction": "transaction.lifecycle",
    "TransactionResult": "transaction.result",
    "retire_block": "transaction.lifecycle",
    "save_topic": "transaction.lifecycle",
    "RULES": "validate",
    "Diagnostic": "validate",
    "Workspace": "workspace",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
