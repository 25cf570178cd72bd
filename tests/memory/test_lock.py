"""Two processes transacting at once: the second waits about a second, then gets a
retryable failure; nothing is lost or interleaved."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scriptorium.core.memory import LockBusy, Transaction, Workspace, save_topic

from .support import Seeded, git, git_agrees

HOLDER = textwrap.dedent("""
    import sys, time
    from scriptorium.core.memory import Transaction, Workspace
    ws = Workspace.open(sys.argv[1])
    with Transaction(ws, "edit", "slow edit by the holder") as txn:
        text = txn.read_topic("people/ada.md").replace("green tea", "oolong tea")
        txn.write_topic("people/ada.md", text)
        print("locked", flush=True)
        time.sleep(float(sys.argv[2]))
        print(txn.commit().outcome, flush=True)
""")


def test_the_second_process_gets_a_retryable_failure_within_a_second(seeded: Seeded) -> None:
    ws = seeded.ws
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ws.state_dir), "2.5"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        mine = ws.read_topic("people/ada.md").replace("Ada maintains", "Ada owns")
        started = time.monotonic()
        with pytest.raises(LockBusy) as busy:
            save_topic(Workspace(ws.state_dir), "people/ada.md", mine, lock_timeout=1.0)
        waited = time.monotonic() - started
        assert busy.value.retryable and busy.value.code == "CONCURRENT_UPDATE"
        assert 0.9 <= waited < 2.0
        assert holder.stdout.readline().strip() == "installed"
    finally:
        holder.wait(timeout=60)
    assert holder.returncode == 0

    text = ws.read_topic("people/ada.md")
    assert "oolong tea" in text and "Ada maintains" in text  # the holder's edit, and nothing of the refused one
    assert git(ws, "log", "-1", "--format=%s").strip() == "edit: slow edit by the holder" and git_agrees(ws)

    retried = save_topic(ws, "people/ada.md", text.replace("Ada maintains", "Ada owns"), lock_timeout=1.0)
    assert retried.outcome == "installed"  # the retry, on top of the holder's edit: both survive
    final = ws.read_topic("people/ada.md")
    assert "oolong tea" in final and "Ada owns" in final
    assert [r["summary"] for r in ws.audit_log()[:2]] == ["topics/people/ada.md", "slow edit by the holder"]


def test_the_cli_reports_a_busy_lock_as_exit_75(seeded: Seeded, tmp_path: Path) -> None:
    ws = seeded.ws
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ws.state_dir), "4"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        draft = tmp_path / "ada.md"
        draft.write_text(ws.read_topic("people/ada.md"))
        cli = subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(ws.state_dir),
                              "topic", "save", "people/ada.md", "--from", str(draft), "--json"],
                             capture_output=True, text=True, timeout=60)
        assert cli.returncode == 75 and "lock" in cli.stderr
        assert json.loads(cli.stdout)["outcome"] == "retryable"  # --json: one document, 75 included
    finally:
        holder.kill()
        holder.wait(timeout=60)
