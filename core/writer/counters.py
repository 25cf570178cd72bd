"""When sleep is due (DESIGN §8, formats §5.4), from the counters in `runtime.json`.

Each written batch adds to `local_batches`, `local_tokens` and
`write_commits_since_global`. A local pass is due at ≥5 batches or ≥40k tokens since
the last one; a global pass when something was written and the last global pass is
a day old (or never happened). Every sleep resets the local counters; a global
pass (nightly, manual, or due by the day rule) also stamps `last_global_at`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from ..paths import StatePaths
from ..runtime_state import load_runtime

DUE_BATCHES = 5
DUE_TOKENS = 40_000
GLOBAL_EVERY = timedelta(days=1)


@dataclass(frozen=True)
class SleepDue:
    """Why sleep is or is not due, with the counters behind the answer (for the TUI)."""

    reason: str | None  # "batches" | "tokens" | "daily" | None
    local_batches: int
    local_tokens: int
    write_commits_since_global: int
    last_global_at: str | None

    @property
    def due(self) -> bool:
        return self.reason is not None

    @property
    def is_global(self) -> bool:
        return self.reason == "daily"

    def explain(self) -> str:
        if self.reason == "batches":
            return f"{self.local_batches} batches written since the last sleep (due at {DUE_BATCHES})"
        if self.reason == "tokens":
            return f"{self.local_tokens} tokens written since the last sleep (due at {DUE_TOKENS})"
        if self.reason == "daily":
            return "the last full reorganization is more than a day old" if self.last_global_at else \
                "memory was written and never fully reorganized"
        return (f"not due: {self.local_batches}/{DUE_BATCHES} batches, {self.local_tokens}/{DUE_TOKENS} tokens "
                f"since the last sleep; last full pass {self.last_global_at or 'never'}")


def _parse(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


def sleep_due(paths: StatePaths, now: datetime | None = None) -> SleepDue:
    state = load_runtime(paths)
    now = now or datetime.now(timezone.utc)
    batches, tokens = state["local_batches"], state["local_tokens"]
    commits, last = state["write_commits_since_global"], state["last_global_at"]
    reason = None
    if batches >= DUE_BATCHES:
        reason = "batches"
    elif tokens >= DUE_TOKENS:
        reason = "tokens"
    elif commits > 0 and ((stamp := _parse(last)) is None or now - stamp >= GLOBAL_EVERY):
        reason = "daily"
    return SleepDue(reason, batches, tokens, commits, last)


def batch_written(tokens: int) -> Callable[[dict[str, Any], list[str]], None]:
    """One written batch's counters, for the write's own transaction (`Transaction.count`):
    installed with the batch's topics, under the same lock. A batch that changed no topic
    is not written (the writer made no progress), so it is not counted."""
    def update(state: dict[str, Any], changed_topics: list[str]) -> None:
        if changed_topics:
            state["local_batches"] += 1
            state["local_tokens"] += max(0, tokens)
            state["write_commits_since_global"] += 1

    return update


def sleep_done(*, is_global: bool, now: datetime | None = None) -> Callable[[dict[str, Any], list[str]], None]:
    """The counter reset of an installed sleep, for the sleep's own transaction
    (`Transaction.count`): installed with the organizer's edit, under the same lock and
    audit record, so no crash can leave a sleep installed and its counters stale."""
    stamp = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")

    def update(state: dict[str, Any], changed_topics: list[str]) -> None:
        state["local_batches"] = 0
        state["local_tokens"] = 0
        if is_global:
            state["write_commits_since_global"] = 0
            state["last_global_at"] = stamp

    return update
