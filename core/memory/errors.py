"""The exceptions of the memory workspace.

A *rejection* (an edit that breaks a rule) is not an exception: it is a
`TransactionResult` with diagnostics. Exceptions are for what stops a transaction
from being judged at all; each says whether retrying can help, because the
write pipeline maps that onto its `retryable` / `permanent` outcomes.
"""

from __future__ import annotations

from ..outcome import ScriptoriumError


class WorkspaceError(ScriptoriumError):
    """Base class of the workspace's errors (`code`, `retryable`: see ScriptoriumError)."""

    code = "WORKSPACE_ERROR"


class LockBusy(WorkspaceError):
    """Another transaction holds `write.lock`; it will heal by itself."""

    code = "CONCURRENT_UPDATE"
    retryable = True


class ArchiveError(WorkspaceError):
    """A source archive cannot be appended to (truncated, malformed, colliding path)."""

    code = "SOURCE_ARCHIVE"


class InvalidRecord(WorkspaceError):
    """A record cannot be written as a v2 frame (bad id or timestamp)."""

    code = "INVALID_ARGUMENT"


class TopicPathError(WorkspaceError):
    """A topic path that is not a `.md` file inside `topics/`."""

    code = "PATH_OUTSIDE_WORKSPACE"


class TopicNameError(TopicPathError):
    """A topic name that cannot be shown or stored as it is (a control character, bytes
    that are not UTF-8; names.py): refused at every door, a usage error on the CLI."""

    code = "UNSAFE_TOPIC_NAME"


class InstallError(WorkspaceError):
    """Installing a validated transaction failed; the workspace was rolled back."""

    code = "INSTALL_FAILED"
    retryable = True


class TransactionClosed(WorkspaceError):
    """The transaction was already committed or closed."""

    code = "TRANSACTION_CLOSED"


class SymlinkRefused(WorkspaceError):
    """A path a transaction would read or write goes through a symbolic link (a git pull
    can create one): writing through it could land outside the workspace."""

    code = "SYMLINK_REFUSED"


class RepositoryBusy(WorkspaceError):
    """The memory repository is mid-merge, mid-rebase or detached: a person must settle it."""

    code = "REPOSITORY_MID_OPERATION"
