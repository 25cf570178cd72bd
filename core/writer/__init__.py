"""The write pipeline (DESIGN §4, §5, §8, §11): conversations into memory.

Public API (litellm is imported only when a real model id is called, never for the offline model):

* `write(store, session_id, *, force=False, tip=None, model=None) -> WriteResult`
* `finish(store, session_id, *, model=None) -> WriteResult`
* `sleep(state_dir, *, preview=False, model=None, progress=None, cancel=None) -> SleepResult`;
  `install_preview(state_dir, result.preview) -> SleepResult`; `sleep_due(paths) -> SleepDue`
* `migrate(store) -> MigrationResult`; `backfill(state_dir, *, model=None) -> BackfillResult`
* `resolve_model(state_dir, explicit=None)`; `register_provider(name, handler)` for models
  behind the seam (model.py: a `ChatModel`, or a litellm `CustomLLM`); `OFFLINE_MODEL` = "scriptorium/offline".

Results carry `outcome` ("ok" / "retryable" / "permanent"), `code`, `message`,
`exit_code` (0 / 75 / 1) and `to_json()`.
"""

from .uncited import BackfillResult, backfill
from .counters import SleepDue, sleep_due
from .migration import MigrationResult, migrate
from .model import OFFLINE_MODEL, register_provider, resolve_model
from . import offline  # noqa: F401  (registers the built-in offline model with the seam)
from ..sessions.marker import trigger_tokens
from .pipeline import BatchResult, WriteResult, finish, write
from .progress import Progress
from .reorganize import SleepPreview, SleepResult, install_preview, sleep

__all__ = [
    "OFFLINE_MODEL", "BackfillResult", "BatchResult", "MigrationResult", "Progress", "SleepDue", "SleepPreview",
    "SleepResult", "WriteResult", "backfill", "finish", "install_preview", "migrate", "register_provider",
    "resolve_model", "sleep", "sleep_due", "trigger_tokens", "write",
]
