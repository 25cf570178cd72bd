"""The write pipeline (DESIGN §4, §5, §8, §11): conversations into memory.

Public API (litellm is imported only when a model is called):

* `write(store, session_id, *, force=False, tip=None, model=None) -> WriteResult`
* `finish(store, session_id, *, model=None) -> WriteResult`
* `sleep(state_dir, *, preview=False, model=None) -> SleepResult`; `sleep_due(paths) -> SleepDue`
* `migrate(store) -> MigrationResult`; `backfill(state_dir, *, model=None) -> BackfillResult`
* `resolve_model(state_dir, explicit=None)`; `register_provider(name, handler)` for litellm
  custom providers; `OFFLINE_MODEL` = "scriptorium/offline".

Results carry `outcome` ("ok" / "retryable" / "permanent"), `code`, `message`,
`exit_code` (0 / 75 / 1) and `to_json()`.
"""

from .uncited import BackfillResult, backfill
from .counters import SleepDue, sleep_due
from .migration import MigrationResult, migrate
from .model import OFFLINE_MODEL, register_provider, resolve_model
from .pipeline import BatchResult, WriteResult, finish, trigger_tokens, write
from .reorganize import SleepResult, sleep

__all__ = [
    "OFFLINE_MODEL", "BackfillResult", "BatchResult", "MigrationResult", "SleepDue", "SleepResult", "WriteResult",
    "backfill", "finish", "migrate", "register_provider", "resolve_model", "sleep", "sleep_due", "trigger_tokens",
    "write",
]
