"""A crash at any step of an install leaves, after the next open, the old workspace or
the new one — never a mix — and git agrees with the files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scriptorium.core.memory import InstallError, Transaction, Workspace, install
from scriptorium.core.memory.sources import session_record

from .support import DAY, git, git_agrees, seed

STEPS = [("prepared", 1), ("journal", 1), ("replace", 1), ("replace", 4), ("installed", 1), ("committed", 1),
         ("audited", 1)]


def crash_edit(txn: Transaction) -> None:
    """Touches every kind of file: a modified, a new and a deleted topic, a new archive,
    the derived views, the runtime state and the retired registry."""
    txn.archive([session_record("s2", "n0", "user", "Bob met Ada", DAY + 86400)])
    txn.write_topic("people/ada.md", txn.read_topic("people/ada.md").replace("green tea", "black tea"))
    txn.write_topic("people/bob.md", "# Bob\n\nBob met Ada.[^e1]\n\n"
                    "[^e1]: Time: `2026-01-03`; Sources: [met](openprogram/s2/n0)\n")
    core = txn.read_topic("core.md")
    txn.retire(core.split(" ^")[1].split("\n")[0], "the core moves into people/")
    txn.delete_topic("core.md")


def state_of(ws: Workspace) -> dict[str, bytes]:
    """The versioned files and the runtime state a transaction installs (the retired
    registry as its ids: its entries carry the time of retirement)."""
    out = {}
    for path in sorted(ws.root.rglob("*")):
        rel = path.relative_to(ws.root).as_posix()
        if path.is_file() and not rel.startswith((".git/", ".scriptorium")) or rel == ".scriptorium/runtime.json":
            out[rel] = path.read_bytes()
    retired = ws.runtime / "retired.json"
    if retired.exists():
        out["retired ids"] = " ".join(sorted(json.loads(retired.read_text()))).encode()
    return out


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A seeded state directory, its files, and the files after `crash_edit` installs."""
    base = tmp_path_factory.mktemp("template") / "state"
    seed(Workspace.open(base))
    old = state_of(Workspace(base))
    done = tmp_path_factory.mktemp("done") / "state"
    shutil.copytree(base, done, symlinks=True)
    ws = Workspace.open(done)
    with Transaction(ws, "write", "crash test") as txn:
        crash_edit(txn)
        assert txn.commit().outcome == "installed"
    new = state_of(ws)
    assert new != old
    return base, old, new


class Crash(BaseException):
    """Stands for the process dying: nothing in the install may catch it."""


def crash_at(step: str, nth: int, exc: type[BaseException]):  # noqa: ANN201
    seen = {"n": 0}

    def hook(point: str) -> None:
        if point == step:
            seen["n"] += 1
            if seen["n"] == nth:
                raise exc(f"crash at {step} #{nth}")
    return hook


def check_after_reopen(state: Path, old: dict[str, bytes], new: dict[str, bytes], head_before: str) -> str:
    ws = Workspace.open(state)
    now = state_of(ws)
    assert now in (old, new), "a mix of the old and the new workspace"
    assert git_agrees(ws)
    assert not (ws.root / install.BACKUP).exists() and not (ws.runtime / install.JOURNAL).exists()
    records = ws.audit_log()
    head = git(ws, "rev-parse", "HEAD").strip()
    if now == new:
        assert head != head_before and records[0]["commit"] == head and records[0]["summary"] == "crash test"
        assert sum(r.get("txn") == records[0]["txn"] for r in records) == 1
        return "new"
    assert head == head_before and records[0]["summary"] != "crash test"
    return "old"


@pytest.mark.parametrize("step,nth", STEPS, ids=[f"{s}{n}" for s, n in STEPS])
def test_a_killed_install_is_rolled_forward_once_the_journal_exists(
    template: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    step: str, nth: int,
) -> None:
    base, old, new = template
    state = tmp_path / "state"
    shutil.copytree(base, state, symlinks=True)
    ws = Workspace.open(state)
    head_before = git(ws, "rev-parse", "HEAD").strip()
    monkeypatch.setattr(install, "crash_hook", crash_at(step, nth, Crash))
    with pytest.raises(Crash):
        with Transaction(ws, "write", "crash test") as txn:
            crash_edit(txn)
            txn.commit()
    monkeypatch.setattr(install, "crash_hook", None)
    assert check_after_reopen(state, old, new, head_before) == ("old" if step == "prepared" else "new")


@pytest.mark.parametrize("step,nth", STEPS, ids=[f"{s}{n}" for s, n in STEPS])
def test_an_error_inside_the_install_rolls_back_unless_committed(
    template: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    step: str, nth: int,
) -> None:
    base, old, new = template
    state = tmp_path / "state"
    shutil.copytree(base, state, symlinks=True)
    ws = Workspace.open(state)
    head_before = git(ws, "rev-parse", "HEAD").strip()
    monkeypatch.setattr(install, "crash_hook", crash_at(step, nth, OSError))
    committed = step in ("committed", "audited")
    with Transaction(ws, "write", "crash test") as txn:
        crash_edit(txn)
        if committed and step == "committed":
            assert txn.commit().outcome == "installed"  # the commit landed: finished, not undone
        elif committed:
            with pytest.raises(OSError):  # the audit failed after the commit: repaired on open
                txn.commit()
        else:
            with pytest.raises((InstallError, OSError)):
                txn.commit()
    monkeypatch.setattr(install, "crash_hook", None)
    assert check_after_reopen(state, old, new, head_before) == ("new" if committed else "old")


CHILD = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    from scriptorium.core.memory import Transaction, Workspace, install
    from tests.memory.test_install_crash import crash_edit
    seen = {{"n": 0}}
    def hook(point):
        if point == {step!r}:
            seen["n"] += 1
            if seen["n"] == {nth}:
                os._exit(9)
    install.crash_hook = hook
    ws = Workspace.open({state!r})
    with Transaction(ws, "write", "crash test") as txn:
        crash_edit(txn)
        txn.commit()
    sys.exit(0)
""")


@pytest.mark.parametrize("step,nth", [("replace", 2), ("committed", 1)])
def test_a_real_process_kill_mid_install(
    template: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path, step: str, nth: int,
) -> None:
    base, old, new = template
    state = tmp_path / "state"
    shutil.copytree(base, state, symlinks=True)
    head_before = git(Workspace(state), "rev-parse", "HEAD").strip()
    root = str(Path(__file__).resolve().parents[2])
    child = subprocess.run([sys.executable, "-c", CHILD.format(root=root, step=step, nth=nth, state=str(state))],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 9, child.stderr
    assert check_after_reopen(state, old, new, head_before) == "new"
