"""What the session store refuses or cannot read: one family, user-facing messages."""

from __future__ import annotations

from ..outcome import ScriptoriumError


class SessionError(ScriptoriumError):
    """Base class: bad input or unreadable state; the message is user-facing."""

    code = "SESSION_ERROR"


class UnknownSession(SessionError):
    code = "UNKNOWN_SESSION"


class SessionExists(SessionError):
    pass


class UnknownNode(SessionError):
    pass


class InvalidNode(SessionError):
    pass


class SessionBusy(SessionError):
    """The session lock stayed held by a writer that showed no sign of work for
    MARK_STALL_S (a hung process): marking gave up; later, it will not."""

    code = "SESSION_BUSY"
    retryable = True
