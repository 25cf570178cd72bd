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

Reading: `Workspace.topic(path)` / `parse_topic` (blocks with ids, lines, citations,
links), `Workspace.core_status()` / `core_injection()`, `Workspace.audit_log()`,
`Workspace.revision()`. Evidence: `SourceRecord`, `records_to_sources`,
`scan_archive` (strict, valid prefix), `SourceIndex`; `manual_record` / `agent_record`
(a person's or an agent's uncited fact as its own evidence).
"""

from .core_render import CoreRender, injection, render_core
from .errors import ArchiveError, InstallError, InvalidRecord, LockBusy, TopicPathError, TransactionClosed, WorkspaceError
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

__all__ = [
    "KINDS", "RULES", "ArchiveError", "ArchiveScan", "CoreRender", "Diagnostic", "Frame", "InstallError",
    "InvalidRecord", "LockBusy", "Paragraph", "SourceIndex", "SourceRecord", "TopicDoc", "TopicPathError",
    "Transaction", "TransactionClosed", "TransactionResult", "Workspace", "WorkspaceError", "agent_record", "archive_path",
    "injection", "manual_record", "parse_topic", "records_to_sources", "render_core", "retire_block",
    "save_topic", "scan_archive", "session_record", "topic_rel", "without_block",
]
