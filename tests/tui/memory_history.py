"""A small memory workspace with a history, built the same on every run (for the Sleep and
History screens' tests and snapshots): fixed record times, fixed commit dates, fixed
transaction ids, so block ids, commit shas and diffs never change.

History, oldest first: the initial commit; `write: billing notes` (billing.md: the
database block and the invoices block); `write: queue notes` (ops/queues.md: a block
linking to the database block, and a duplicate of the invoices block, which the
offline organizer merges); `edit: queues: name the broker`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from scriptorium.core.memory import Transaction, Workspace, save_topic, session_record
from scriptorium.core.memory.transaction import lifecycle as transaction_module

from .conftest import fix_workspace_id

COMMIT_DATE = "2026-01-01T11:00:00+0000"  # an hour before the app's fixed clock
RECORD_TIME = 1_767_182_400.0  # 2025-12-31 12:00 UTC
INVOICES = "Invoices are generated nightly at 02:00 UTC."


@dataclass(frozen=True)
class Built:
    state: Path
    database: str  # block id in billing.md, linked to from ops/queues.md
    duplicate: str  # the invoices block in ops/queues.md (the organizer retires it)


def fix_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commit dates and transaction ids (which go into commit messages) fixed: fixed shas."""
    monkeypatch.setenv("GIT_AUTHOR_DATE", COMMIT_DATE)
    monkeypatch.setenv("GIT_COMMITTER_DATE", COMMIT_DATE)
    counter = itertools.count(1)
    monkeypatch.setattr(transaction_module, "secrets",
                        SimpleNamespace(token_hex=lambda n: f"{next(counter):0{2 * n}x}"))
    monkeypatch.delenv("SCRIPTORIUM_MODEL", raising=False)


def _installed(result):
    assert result.outcome == "installed", result.diagnostics
    return result


def build(state: Path) -> Built:
    fix_workspace_id(state)
    ws = Workspace.open(state)
    texts = ["Which database does billing use?", "Billing runs on Postgres 16.", "When are invoices made?", INVOICES,
             "And the queue?", "RabbitMQ feeds billing.", "Invoices again?", INVOICES]
    records = [session_record("billing", f"m{i}", "user" if i % 2 == 0 else "assistant", text, RECORD_TIME + 60 * i)
               for i, text in enumerate(texts)]
    with Transaction(ws, "write", "billing notes") as txn:
        txn.archive(records[:4])
        txn.write_topic("billing.md", "# Billing\n\nBilling runs on Postgres 16.[^e1]\n\n"
                        "[^e1]: Time: `2025-12-31`; Sources: [db](openprogram/billing/m1)\n\n"
                        f"{INVOICES}[^e2]\n\n[^e2]: Time: `2025-12-31`; Sources: [invoices](openprogram/billing/m3)\n")
        _installed(txn.commit())
    database = ws.topic("billing.md").blocks[0].block_id
    with Transaction(ws, "write", "queue notes") as txn:
        txn.archive(records[4:])
        txn.write_topic("ops/queues.md", "# Queues\n\nThe billing queue feeds "
                        f"[the database](../billing.md#^{database}).[^e1]\n\n"
                        "[^e1]: Time: `2025-12-31`; Sources: [queue](openprogram/billing/m5)\n\n"
                        f"{INVOICES}[^e2]\n\n[^e2]: Time: `2025-12-31`; Sources: [again](openprogram/billing/m7)\n")
        _installed(txn.commit())
    duplicate = ws.topic("ops/queues.md").blocks[1].block_id
    text = ws.read_topic("ops/queues.md").replace("queue feeds", "queue runs on RabbitMQ and feeds")
    _installed(save_topic(ws, "ops/queues.md", text, summary="queues: name the broker"))
    return Built(state, database, duplicate)


def memory_bytes(state: Path) -> dict[str, bytes]:
    """Every file of the workspace but git's own and the agents' run log (a preview logs its run)."""
    root = state / "memory"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts and p.name != "agent-history.jsonl"}


def head(state: Path) -> str:
    return Workspace(state).repo.head.commit.hexsha
