"""A failed append leaves nothing behind (issue 19, item 6): a full disk may strike any
step of `SessionStore.append` — creating the node file, mid-write, at fsync, at the rename,
meta.json, any git command — and the append either completes or leaves no trace: no node
file for the next writer to commit as a leftover, meta.json and git as they were. The
caller's retry then makes exactly one turn, after the same head: no phantom branch."""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scriptorium.core.sessions.store import SessionStore

GIT_READS = {"status", "rev-parse", "log", "show", "cat-file", "diff", "ls-files", "ls-tree", "rev-list",
             "symbolic-ref", "version"}


def enospc() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device (simulated)")


class FullDisk:
    """Counts the steps of an append that need free space; from step `at` on (only that one
    unless `sticky`) each fails the way a full disk fails it. Unlinks, reads and renames
    onto an existing name never need space and always work, as on a real full disk."""

    def __init__(self, at: int | None = None, *, sticky: bool = False) -> None:
        self.at, self.sticky = at, sticky
        self.steps: list[str] = []
        self.failed = False

    def step(self, what: str) -> bool:
        """Count a step; True when it must fail."""
        self.steps.append(what)
        n = len(self.steps)
        fail = self.at is not None and (n == self.at or (self.sticky and n > self.at))
        self.failed |= fail
        return fail

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        real_open, real_os_open, real_write = builtins.open, os.open, os.write
        real_fsync, real_replace, real_rename, real_link = os.fsync, os.replace, os.rename, os.link
        real_run = subprocess.run
        disk = self

        class Writer:
            """A file opened for writing whose writes may hit the full disk halfway."""

            def __init__(self, fh: Any) -> None:
                self._fh = fh

            def write(self, data: Any) -> int:
                if disk.step("write"):
                    self._fh.write(data[: len(data) // 2])
                    self._fh.flush()
                    raise enospc()
                return int(self._fh.write(data))

            def __enter__(self) -> "Writer":
                return self

            def __exit__(self, *exc: object) -> None:
                self._fh.close()

            def __getattr__(self, name: str) -> Any:
                return getattr(self._fh, name)

        def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            fh = real_open(file, mode, *args, **kwargs)
            return Writer(fh) if any(c in mode for c in "wax+") else fh

        def fake_os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & os.O_CREAT and not os.path.exists(path) and disk.step("create"):
                raise enospc()
            return real_os_open(path, flags, *args, **kwargs)

        def fake_write(fd: int, data: Any) -> int:
            if disk.step("os.write"):
                raise enospc()
            return real_write(fd, data)

        def fake_fsync(fd: int) -> None:
            if disk.step("fsync"):
                raise enospc()
            real_fsync(fd)

        def renamer(real: Any, name: str) -> Any:
            def fake(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
                fail = disk.step(name)
                if fail and len(disk.steps) > (disk.at or 0) and os.path.exists(dst):
                    fail = False  # once full: replacing an existing name takes no space
                if fail:
                    raise enospc()
                real(src, dst, *args, **kwargs)
            return fake

        def fake_link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            if disk.step("link"):
                raise enospc()
            real_link(src, dst, *args, **kwargs)

        def fake_run(args: Any, *rest: Any, **kwargs: Any) -> Any:
            if isinstance(args, list) and args[:1] == ["git"] and args[1] not in GIT_READS \
                    and disk.step(f"git {args[1]}"):
                err = "fatal: unable to write new index file: No space left on device"
                text = kwargs.get("text") or kwargs.get("universal_newlines")
                return subprocess.CompletedProcess(args, 128, "" if text else b"", err if text else err.encode())
            return real_run(args, *rest, **kwargs)

        patches = [(builtins, "open", fake_open), (io, "open", fake_open), (os, "open", fake_os_open),
                   (os, "write", fake_write), (os, "fsync", fake_fsync), (os, "replace", renamer(real_replace, "replace")),
                   (os, "rename", renamer(real_rename, "rename")), (os, "link", fake_link),
                   (subprocess, "run", fake_run)]
        saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
        for obj, name, fake in patches:
            setattr(obj, name, fake)
        try:
            yield
        finally:
            for obj, name, real in saved:
                setattr(obj, name, real)


def git(d: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=d, capture_output=True, text=True, check=True).stdout


def snapshot(d: Path) -> dict[str, Any]:
    """What a trace would change: the node files, meta.json, git's index, the committed tree, status."""
    return {"history": {p.name: p.read_bytes() for p in sorted((d / "history").iterdir())},
            "meta": (d / "meta.json").read_bytes(), "head": git(d, "rev-parse", "HEAD^{tree}"),
            "staged": git(d, "diff", "--cached", "--name-only"),
            "status": git(d, "status", "--porcelain", "--untracked-files=all")}


def steps_of_one_append(tmp_path: Path) -> int:
    store = SessionStore(tmp_path / "count")
    sid = store.create_session("count")
    store.append(sid, "user", "warm up")
    disk = FullDisk()
    with disk.active():
        SessionStore(tmp_path / "count").append(sid, "assistant", "counted")
    assert {"create", "write", "fsync", "replace"} <= set(disk.steps) and "git commit" in disk.steps
    return len(disk.steps)


@pytest.mark.parametrize(("sticky", "reuse"), [(False, False), (True, False), (False, True)],
                         ids=["one-step", "full-from-then-on", "one-step-same-store"])
def test_an_append_failing_at_any_step_leaves_no_trace_and_the_retry_is_one_turn(
        tmp_path: Path, sticky: bool, reuse: bool) -> None:
    state = tmp_path / "state"
    store = SessionStore(state)
    sid = store.create_session("full disk")
    first = store.append(sid, "user", "What is the cache size?")
    d = store.session_dir(sid)
    done = [first.id]
    for at in range(1, steps_of_one_append(tmp_path) + 1):
        before = snapshot(d)
        attempt = store if reuse else SessionStore(state)
        disk = FullDisk(at, sticky=sticky)
        try:
            with disk.active():
                node = attempt.append(sid, "assistant", f"attempt {at}")
        except (OSError, RuntimeError):
            after = snapshot(d)
            assert after["history"] == before["history"], f"step {at} ({disk.steps[at - 1]}) left a node file"
            assert after["meta"] == before["meta"] and after["head"] == before["head"], f"step {at}"
            if not sticky:  # git could put its index back
                assert after["staged"] == "" and after["status"] == "", f"step {at}: {after}"
            continue
        # a step whose failure nothing needs (a directory fsync, the flag, a cache): complete
        assert disk.failed or at > len(disk.steps), at
        assert SessionStore(state).head(sid) == node.id and f"history/{node.filename}" in git(d, "ls-files")
        done.append(node.id)

    retry = (store if reuse else SessionStore(state)).append(sid, "assistant", "The cache is 50 GB.")
    done.append(retry.id)
    fresh = SessionStore(state)
    assert fresh.list_branches(sid) == [retry.id]  # one line: no phantom branch
    assert [e.id for e in fresh.branch_entries(sid)] == done
    assert len(list((d / "history").iterdir())) == len(done) + 1  # and ROOT; nothing else
    assert git(d, "status", "--porcelain", "--untracked-files=all") == ""
    assert sorted(git(d, "ls-tree", "-r", "--name-only", "HEAD", "history").split()) == \
        sorted(f"history/{p.name}" for p in (d / "history").iterdir())  # no phantom in git either


def test_a_failed_session_creation_leaves_no_directory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    store.create_session("warm up")
    before = sorted(p.name for p in store.root.iterdir())
    for at in (1, 3, 6):
        with pytest.raises((OSError, RuntimeError)), FullDisk(at, sticky=True).active():
            store.create_session("full disk")
    assert sorted(p.name for p in store.root.iterdir()) == before


def steps_of_one_rewind(tmp_path: Path) -> int:
    store = SessionStore(tmp_path / "count-rewind")
    sid = store.create_session("count")
    ids = [store.append(sid, "user", f"turn {i}").id for i in range(3)]
    disk = FullDisk()
    with disk.active():
        SessionStore(tmp_path / "count-rewind").rewind(sid, ids[1])
    return len(disk.steps)


@pytest.mark.parametrize("sticky", [False, True], ids=["one-step", "full-from-then-on"])
def test_a_rewind_failing_at_any_step_changes_nothing(tmp_path: Path, sticky: bool) -> None:
    """The same for a rewind: failed, it must not happen later (the next writer would have
    committed its rewritten node files as leftovers)."""
    state = tmp_path / "state"
    store = SessionStore(state)
    sid = store.create_session("full disk")
    ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(4)]
    d = store.session_dir(sid)
    for at in range(1, steps_of_one_rewind(tmp_path) + 1):
        before = snapshot(d)
        disk = FullDisk(at, sticky=sticky)
        try:
            with disk.active():
                SessionStore(state).rewind(sid, ids[2])
        except (OSError, RuntimeError):
            after = snapshot(d)
            assert after["history"] == before["history"] and after["meta"] == before["meta"], \
                f"step {at} ({disk.steps[at - 1]})"
            assert after["head"] == before["head"], at
            continue
        break  # a step nothing needs failed: the rewind is done
    else:
        SessionStore(state).rewind(sid, ids[2])
    later = SessionStore(state)
    new = later.append(sid, "assistant", "after the rewind")  # the next writer commits what was left over
    entries = later.index(sid).entries
    assert [n for n in ids if entries[n].rewound] == ids[2:]  # rewound once, exactly those
    assert [e.id for e in later.branch_entries(sid)] == [*ids[:2], new.id]
    assert git(d, "status", "--porcelain", "--untracked-files=all") == ""
