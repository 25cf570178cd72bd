"""One exception base (code, retryable) and one outcome -> exit code mapping, used by every
result and by the CLI for any engine error that reaches it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.cli import main
from scriptorium.core.cli.common import CliError
from scriptorium.core.memory import LockBusy, TopicPathError, Workspace, WorkspaceError
from scriptorium.core.outcome import EXIT_FAILURE, EXIT_OK, EXIT_RETRYABLE, ScriptoriumError, exit_code, failed
from scriptorium.core.sessions.errors import SessionError, UnknownSession
from scriptorium.core.sync.remote import RemoteError, RemoteUnreachable
from scriptorium.core.sync.run import SyncResult
from scriptorium.core.writer.classify import PassResult
from scriptorium.core.writer.reorganize import SleepResult


def test_the_engines_errors_share_one_base() -> None:
    for error, retryable in ((LockBusy("busy"), True), (TopicPathError("x"), False), (UnknownSession("s"), False),
                             (RemoteUnreachable("r"), True), (RemoteError("r"), False)):
        assert isinstance(error, ScriptoriumError) and isinstance(error.code, str) and error.code
        assert error.retryable is retryable
        assert error.exit_code == (EXIT_RETRYABLE if retryable else EXIT_FAILURE)
    assert issubclass(WorkspaceError, ScriptoriumError) and issubclass(SessionError, ScriptoriumError)
    assert WorkspaceError("x", code="CUSTOM", retryable=True).code == "CUSTOM"
    assert CliError("usage", 2).exit_code == 2 and CliError("later", 75).retryable


@pytest.mark.parametrize("outcome", ["ok", "retryable", "permanent"])
def test_every_result_maps_its_outcome_the_same_way(outcome: str) -> None:
    expected = {"ok": EXIT_OK, "retryable": EXIT_RETRYABLE, "permanent": EXIT_FAILURE}[outcome]
    assert exit_code(outcome) == expected
    results = [PassResult(outcome, "CODE", "m"), SyncResult(outcome, "CODE", "m"), SleepResult(outcome, "CODE", "m")]
    assert [r.exit_code for r in results] == [expected] * 3
    assert failed(True) == "retryable" and failed(False) == "permanent"


def test_an_engine_error_reaching_the_cli_is_one_line_and_its_exit_code(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    ws = Workspace.open(state)
    new = tmp_path / "ada.md"
    new.write_text("# Ada\n\nAda drinks green tea.\n", encoding="utf-8")
    with ws.lock(0):  # a transaction elsewhere holds the lock: LockBusy, no handler catches it
        code = main(["--state", str(state), "topic", "save", "people/ada.md", "--from", str(new), "--json"])
    out, err = capsys.readouterr()
    assert code == EXIT_RETRYABLE and err.startswith("scriptorium: ") and len(err.strip().splitlines()) == 1
    doc = json.loads(out)  # under --json, the failure document carries the error's code and outcome
    assert doc["outcome"] == "retryable" and doc["code"] == LockBusy.code


def test_a_write_failure_caused_by_a_full_disk_or_permissions_is_not_retryable() -> None:
    """A pass's result says "retryable" only for what heals by itself: an install that failed
    on a full disk stays failed until someone frees space (sleep used to exit 75 there)."""
    import errno

    from scriptorium.core.memory.errors import InstallError
    from scriptorium.core.writer.classify import classify

    for err in (errno.ENOSPC, errno.EROFS, errno.EACCES):
        try:
            try:
                raise OSError(err, "simulated")
            except OSError as cause:
                raise InstallError("install failed before anything changed") from cause
        except InstallError as exc:
            failure = classify(exc)
        assert failure.outcome == "permanent", err
    assert classify(InstallError("lock busy")).outcome == "retryable"  # nothing lasting behind it
