"""Failures as the closed code set of formats §5.5, each with a retry verdict.

Callers act only on three outcomes (DESIGN §5): `ok`, `retryable` (heals by itself:
lock busy, model or network trouble, timeout) and `permanent` (retrying gives the same
answer). This module turns any exception met during a write into a `Failure`.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ..outcome import Outcome, exit_code, failed

CODES = frozenset({
    "MISSING_SESSION_ID", "SESSION_NODES_UNAVAILABLE", "WRITER_NO_PROGRESS", "WRITER_PRECONDITION_FAILED",
    "MEMORY_PROVIDER_RESOLUTION_FAILED", "MODEL_TRANSPORT", "MODEL_RATE_LIMIT", "MODEL_PROVIDER_INTERNAL",
    "MODEL_AUTHENTICATION", "MODEL_AUTHORIZATION", "MODEL_INVALID_REQUEST", "MODEL_CONTEXT_LENGTH",
    "MODEL_CONTENT_POLICY", "MODEL_TIMEOUT", "MODEL_FAILURE_UNKNOWN", "APPEND_ONLY_REQUIRED", "COMMIT_REJECTED",
    "CONCURRENT_UPDATE", "EMBEDDING_UNAVAILABLE", "GIT_COMMIT_FAILED", "INVALID_ARGUMENT", "INVALID_TOPIC_FORMAT",
    "MISSING_SOURCE", "PATCH_CONFLICT", "PATH_OUTSIDE_WORKSPACE", "READ_ONLY_PATH", "TRANSACTION_FAILURE_UNKNOWN",
    "WRITER_FAILURE_UNKNOWN",
    # ours, beyond formats §5.5: a batch installed but its turns not marked (they are written again)
    "SESSION_BUSY", "MARKING_FAILED",
})

# Transaction codes kept as they are; anything else from the transaction is "unknown".
TRANSACTION_CODES = frozenset({
    "APPEND_ONLY_REQUIRED", "COMMIT_REJECTED", "CONCURRENT_UPDATE", "GIT_COMMIT_FAILED", "INVALID_ARGUMENT",
    "INVALID_TOPIC_FORMAT", "MISSING_SOURCE", "PATCH_CONFLICT", "PATH_OUTSIDE_WORKSPACE", "READ_ONLY_PATH",
})


@dataclass(frozen=True)
class Failure:
    code: str
    retryable: bool
    message: str
    retry_after_s: float | None = None  # how long the provider asked to wait (its retry-after), when it said

    @property
    def outcome(self) -> Outcome:
        return failed(self.retryable)


class _Batch(Protocol):
    def to_json(self) -> dict[str, Any]: ...


B = TypeVar("B", bound=_Batch)


@dataclass
class PassResult(Generic[B]):
    """How a writing pass (write, finish, backfill) ended, and the batches it installed."""

    outcome: Outcome
    code: str  # ok: a pass-specific code ("WRITTEN", ...); else a formats §5.5 code
    message: str
    batches: list[B] = field(default_factory=list)
    skipped: list[Any] = field(default_factory=list)  # names.Skipped: topic files left alone for their names
    retry_after_s: float | None = None  # retryable: the wait the model's provider asked for

    @property
    def exit_code(self) -> int:
        return exit_code(self.outcome)

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "code": self.code, "message": self.message,
                "batches": [b.to_json() for b in self.batches],
                **({"skipped": [s.to_json() for s in self.skipped]} if self.skipped else {}),
                **({"retry_after_s": self.retry_after_s} if self.retry_after_s is not None else {})}


def classify(exc: BaseException) -> Failure:
    """The code and retry verdict of an exception raised while writing. Whatever its kind
    says, a failure caused by a full disk, a read-only mount or a permission is not
    retryable: none of those heals by itself (the CLI's contract: exit 1, never 75)."""
    failure = _classify(exc)
    if failure.retryable and (_lasting_os_error(exc) or _lasting_git_error(exc)):
        return Failure(failure.code, False, failure.message)
    return failure


def stated_failure(exc: BaseException) -> Failure | None:
    """An exception that names its own code and verdict (`code`, `retryable`): the agent
    loop's account of what a model did, a rejected repair."""
    code, retryable = getattr(exc, "code", None), getattr(exc, "retryable", None)
    if isinstance(code, str) and code in CODES and isinstance(retryable, bool):
        return Failure(code, retryable, _message(exc))
    return None


# What git says when the fault is in the machine's setup or the repository itself: no retry
# fixes a missing identity, a permission or a damaged object store; a person must.
_LASTING_GIT = ("author identity unknown", "committer identity unknown", "unable to auto-detect email address",
                "please tell me who you are", "permission denied", "not a git repository", "index file corrupt",
                "bad object", "corrupt", "read-only file system")


def _lasting_git_error(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current).lower()
        if "git" in text and any(sign in text for sign in _LASTING_GIT):
            return True
        current = current.__cause__ or current.__context__
    return False


_LASTING = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


def _lasting_os_error(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _LASTING:
            return True
        current = current.__cause__ or current.__context__
    return False


def _classify(exc: BaseException) -> Failure:
    message = _message(exc)
    from ..memory.errors import WorkspaceError

    if isinstance(exc, WorkspaceError):
        code = exc.code if exc.code in TRANSACTION_CODES else "TRANSACTION_FAILURE_UNKNOWN"
        return Failure(code, bool(exc.retryable), message)
    model = _model_failure(exc, message)
    if model is not None:
        return model
    stated = stated_failure(exc)
    if stated is not None:
        return stated
    if isinstance(exc, TimeoutError):
        return Failure("MODEL_TIMEOUT", True, message)
    if isinstance(exc, ConnectionError):
        return Failure("MODEL_TRANSPORT", True, message)
    if isinstance(exc, ValueError):
        return Failure("WRITER_PRECONDITION_FAILED", False, message)
    return Failure("WRITER_FAILURE_UNKNOWN", bool(getattr(exc, "retryable", False)), message)


def _message(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:499] + "\u2026"


def _model_failure(exc: BaseException, message: str) -> Failure | None:
    """litellm's exception classes (every provider's errors are mapped onto them)."""
    if not type(exc).__module__.startswith(("litellm", "openai", "httpx")):
        return None
    import litellm

    failure = _litellm_failure(litellm, exc, message)
    wait = _retry_after(exc) if failure.retryable else None
    return Failure(failure.code, failure.retryable, failure.message, wait)


# What providers say when the request did not fit the window, whatever status they give it
# (Ollama and OpenAI-compatible servers answer a plain 400 or 500)
_CONTEXT_SIGNS = ("context length", "context window", "context_length", "maximum context", "too many tokens",
                  "prompt is too long", "exceeds the context")
_CREDENTIAL_SIGNS = ("missing credentials", "api key", "api_key", "no key is set")
_TRANSPORT_TYPES = ("APIConnectionError", "ConnectError", "ReadError", "RemoteProtocolError", "WriteError",
                    "MidStreamFallbackError")


def _litellm_failure(litellm: Any, exc: BaseException, message: str) -> Failure:
    lower = message.lower()
    if not isinstance(exc, (litellm.Timeout, litellm.RateLimitError)) and any(s in lower for s in _CONTEXT_SIGNS):
        return Failure("MODEL_CONTEXT_LENGTH", False, message)
    if isinstance(exc, litellm.InternalServerError) and any(sign in lower for sign in _CREDENTIAL_SIGNS):
        return Failure("MODEL_AUTHENTICATION", False, message)  # the OpenAI SDK's missing key, raised as a 500
    if not isinstance(exc, litellm.Timeout) and _cut(exc):
        return Failure("MODEL_TRANSPORT", True, message)  # the connection failed or was cut: not the provider's 5xx
    checks: list[tuple[type, str, bool]] = [
        (litellm.ContextWindowExceededError, "MODEL_CONTEXT_LENGTH", False),
        (litellm.ContentPolicyViolationError, "MODEL_CONTENT_POLICY", False),
        (litellm.Timeout, "MODEL_TIMEOUT", True),
        (litellm.RateLimitError, "MODEL_RATE_LIMIT", True),
        (litellm.AuthenticationError, "MODEL_AUTHENTICATION", False),
        (litellm.PermissionDeniedError, "MODEL_AUTHORIZATION", False),
        (litellm.APIConnectionError, "MODEL_TRANSPORT", True),
        (litellm.ServiceUnavailableError, "MODEL_PROVIDER_INTERNAL", True),
        (litellm.InternalServerError, "MODEL_PROVIDER_INTERNAL", True),
        (litellm.NotFoundError, "MODEL_INVALID_REQUEST", False),
        (litellm.UnprocessableEntityError, "MODEL_INVALID_REQUEST", False),
        (litellm.BadRequestError, "MODEL_INVALID_REQUEST", False),
    ]
    for cls, code, retryable in checks:
        if isinstance(exc, cls):
            return Failure(code, retryable, message)
    return _status_failure(exc, message)


def _status_failure(exc: BaseException, message: str) -> Failure:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):  # a provider error litellm did not map (or one raised behind the seam)
        if status in _STATUS:
            code, retryable = _STATUS[status]
            return Failure(code, retryable, message)
        if status >= 500:
            return Failure("MODEL_PROVIDER_INTERNAL", True, message)
        if 400 <= status < 500:
            return Failure("MODEL_INVALID_REQUEST", False, message)
    return Failure("MODEL_FAILURE_UNKNOWN", True, message)


def _cut(exc: BaseException) -> bool:
    """Whether the exception, or one it was raised from, is a failed or cut connection."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if type(current).__name__ in _TRANSPORT_TYPES or isinstance(current, ConnectionError):
            return True
        text = str(current).lower()
        if "connection error" in text or "peer closed connection" in text or "server disconnected" in text:
            return True
        current = current.__cause__ or current.__context__
    return False


def _retry_after(exc: BaseException) -> float | None:
    """The provider's `retry-after` (seconds, or an HTTP date) or `retry-after-ms`, as litellm kept it."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    from email.utils import parsedate_to_datetime
    from datetime import datetime, timezone

    try:
        return max(0.0, (parsedate_to_datetime(str(value)) - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError):
        return None


_STATUS = {401: ("MODEL_AUTHENTICATION", False), 403: ("MODEL_AUTHORIZATION", False), 408: ("MODEL_TIMEOUT", True),
           409: ("MODEL_TRANSPORT", True), 425: ("MODEL_TRANSPORT", True), 429: ("MODEL_RATE_LIMIT", True)}
