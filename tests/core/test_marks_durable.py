"""Marks are durable when `mark_written` returns, without a commit of their own (issue 20,
item 1): the uncommitted flag stays up and the session's next writer commits them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from scriptorium.core.sessions.marker import MARK_KEY, mark_written, pending, workspace_id
from scriptorium.core.sessions.store import SessionStore


def git_out(d: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=d, capture_output=True, text=True, check=True).stdout


MARK_THEN_DIE = """
import os, signal, sys
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written
ids = sys.argv[3].split(",")
mark_written(SessionStore(sys.argv[1]), sys.argv[2], ids, sys.argv[4])
print("git" in sys.modules or "filelock" in sys.modules, flush=True)  # marking loads neither GitPython nor filelock
os.kill(os.getpid(), signal.SIGKILL)  # the marks are durable; no commit ever ran
"""


def test_marks_killed_before_any_commit_are_recovered_into_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid = store.create_session("crash")
    ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(6)]
    commits_before = git_out(store.session_dir(sid), "rev-list", "--count", "HEAD")

    child = subprocess.run([sys.executable, "-c", MARK_THEN_DIE, str(store.state_dir), sid, ",".join(ids[:4]), wid],
                           capture_output=True, text=True, check=False)
    assert child.returncode == -9, child.stderr
    assert child.stdout.strip() == "False"
    d = store.session_dir(sid)
    assert git_out(d, "rev-list", "--count", "HEAD") == commits_before  # no commit of their own
    assert len(git_out(d, "status", "--porcelain").splitlines()) == 4  # on disk, not in history yet

    later = SessionStore(tmp_path / "state")  # the next process
    assert [t.id for t in pending(later, sid, workspace=wid)] == ids[4:]
    later.append(sid, "user", "life goes on")

    assert git_out(d, "status", "--porcelain") == ""
    for e in later.branch_entries(sid)[:4]:
        assert MARK_KEY in git_out(d, "show", f"HEAD:history/{e.filename}")
    assert [t.id for t in pending(SessionStore(tmp_path / "state"), sid, workspace=wid)][:1] == [ids[4]]


def test_marks_by_another_process_are_seen_by_a_loaded_index_and_a_fresh_one(tmp_path: Path) -> None:
    reader = SessionStore(tmp_path / "state")
    wid = workspace_id(reader.state_dir)
    sid = reader.create_session("two processes")
    ids = [reader.append(sid, "user", f"turn {i}").id for i in range(10)]
    assert len(pending(reader, sid, workspace=wid)) == 10  # index loaded and counted

    marker = SessionStore(tmp_path / "state")  # never loads the index
    for upto in (3, 6):
        mark_written(marker, sid, [ids[upto]], wid)
    assert [t.id for t in pending(reader, sid, workspace=wid)] == ids[7:]
    assert [t.id for t in pending(SessionStore(tmp_path / "state"), sid, workspace=wid)] == ids[7:]
    mark_written(reader, sid, [ids[8]], wid)  # marking through a loaded index
    assert [t.id for t in pending(SessionStore(tmp_path / "state"), sid, workspace=wid)] == ids[9:]


# What a mark must not load: GitPython, filelock, orjson, the tokenizer (each costs more
# than twenty marks) and the standard modules the store's imports used to pull in
# (dataclasses -> inspect, typing, secrets, threading for the fsyncs, config's tomllib).
HEAVY = ("git", "filelock", "orjson", "tiktoken", "dataclasses", "inspect", "typing", "secrets", "threading",
         "tomllib", "scriptorium.core.config")
MARK_FRESH = f"""
HEAVY = {HEAVY!r}
import json, sys
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written
mark_written(SessionStore(sys.argv[1]), sys.argv[2], sys.argv[3].split(","), sys.argv[4])
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
"""


def test_a_first_mark_in_a_process_loads_no_heavy_module_and_writes_every_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid = store.create_session("fresh marker")
    with store.batch(sid):
        ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(90)]
    wanted = ids[10:80:2]  # more files than one fsync group of threads
    out = subprocess.run([sys.executable, "-c", MARK_FRESH, str(store.state_dir), sid, ",".join(wanted), wid],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []  # none of HEAVY
    fresh = SessionStore(tmp_path / "state")
    marked = {e.id for e in fresh.index(sid).entries.values() if e.marks.get(MARK_KEY) == wid}
    assert marked == set(wanted)
    for nid in wanted:
        doc = json.loads(fresh.session_paths(sid).node(fresh.entry(sid, nid).filename).read_bytes())
        assert doc["metadata"][MARK_KEY] == wid and doc["output"] == f"turn {ids.index(nid)}"
    assert [t.id for t in pending(fresh, sid, workspace=wid)] == ids[79:]


def _session(store: SessionStore, turns: int) -> tuple[str, list[str]]:
    sid = store.create_session("redo")
    with store.batch(sid):
        ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(turns)]
    store.save_index(sid)
    return sid, ids


def test_a_fresh_mark_finds_its_files_through_the_saved_index_without_listing_history(
        tmp_path: Path, monkeypatch) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 40)
    late = store.append(sid, "user", "appended after the index was saved").id  # the saved index may not name it
    history = str(store.session_paths(sid).history)
    listed: list[str] = []
    real_listdir, real_scandir = os.listdir, os.scandir

    def listdir(path=".", *args):
        listed.append(str(path))
        return real_listdir(path, *args)

    def scandir(path=".", *args):
        listed.append(str(path))
        return real_scandir(path, *args)

    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "scandir", scandir)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[10:30], wid)  # a process that read nothing
    assert history not in listed
    mark_written(SessionStore(tmp_path / "state"), sid, [ids[31], late], wid)  # one named, one not
    monkeypatch.undo()
    fresh = SessionStore(tmp_path / "state")
    marked = {e.id for e in fresh.index(sid).entries.values() if e.marks.get(MARK_KEY) == wid}
    assert marked == {*ids[10:30], ids[31], late}


def test_a_mark_is_made_durable_by_one_sync_of_its_redo_record(tmp_path: Path, monkeypatch) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 30)
    synced: list[str] = []
    real_fsync, real_fdatasync = os.fsync, os.fdatasync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def fdatasync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fdatasync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "fdatasync", fdatasync)
    marker = SessionStore(tmp_path / "state")
    mark_written(marker, sid, ids[1:21], wid)
    redo_log = str(store.session_paths(sid).marks_redo)
    assert synced == [redo_log, str(store.session_paths(sid).runtime)]  # a new log: its folder too
    synced.clear()
    mark_written(marker, sid, ids[21:25], wid)
    assert synced == [redo_log]  # the log exists now: one sync, no folder


def _crash_undoes(path: Path, keep: Path) -> None:
    """What a power cut before the kernel wrote a mark's rename back leaves: the name
    holds the file as it was before the mark (the same inode, size and time). (A power cut
    is a new boot too: `_reboot`.)"""
    os.replace(keep, path)


def _reboot(monkeypatch) -> None:
    """The machine came back up: another boot id, so the redo log's records are not trusted."""
    from scriptorium.core.sessions import redo

    monkeypatch.setattr(redo, "_boot_id", lambda: b"00000000-0000-4000-8000-000000000001")


def test_marks_a_crash_undid_are_put_back_from_the_redo_log_by_the_next_reader(tmp_path: Path, monkeypatch) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 12)
    layout = store.session_paths(sid)
    files = [layout.node(store.entry(sid, n).filename) for n in ids[2:6]]
    kept = [f.with_name(f.name + ".before") for f in files]
    for f, k in zip(files, kept):
        os.link(f, k)  # the pre-mark inode stays alive, as it does on disk until the crash is replayed
    mark_written(SessionStore(tmp_path / "state"), sid, ids[2:6], wid)
    for f, k in zip(files[:3], kept[:3]):
        _crash_undoes(f, k)
    files[3].write_bytes(b"")  # and one whose data never reached the disk
    kept[3].unlink()
    for f in files:
        assert MARK_KEY not in f.read_text()
    _reboot(monkeypatch)

    later = SessionStore(tmp_path / "state")
    assert [t.id for t in pending(later, sid, workspace=wid)] == ids[6:]
    for f in files:
        assert json.loads(f.read_bytes())["metadata"][MARK_KEY] == wid  # on the turns again, not only in the log
    later.append(sid, "user", "and on")  # the writer commits them
    for f in files:
        assert MARK_KEY in git_out(layout.root, "show", f"HEAD:history/{f.name}")


def test_the_redo_log_never_undoes_a_later_write_nor_brings_back_a_deleted_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 8)
    layout = store.session_paths(sid)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[1:5], wid)
    rewritten = layout.node(store.entry(sid, ids[1]).filename)
    doc = json.loads(rewritten.read_bytes())
    doc["metadata"]["later"] = True
    tmp = rewritten.with_name("later.tmp")
    tmp.write_text(json.dumps(doc))  # OpenProgram's way: a temp renamed over (a new inode)
    os.replace(tmp, rewritten)
    gone = layout.node(store.entry(sid, ids[2]).filename)
    gone.unlink()

    reader = SessionStore(tmp_path / "state")
    reader.index(sid)
    assert json.loads(rewritten.read_bytes())["metadata"]["later"] is True
    assert not gone.exists()


def test_a_mark_checkpoints_the_redo_log_once_its_records_are_old(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 20)
    log = store.session_paths(sid).marks_redo
    mark_written(SessionStore(tmp_path / "state"), sid, ids[1:5], wid)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[5:9], wid)
    two = log.stat().st_size
    os.utime(log, (time.time() - 7200, time.time() - 7200))  # written two hours ago: long on disk
    mark_written(SessionStore(tmp_path / "state"), sid, ids[9:13], wid)
    assert 0 < log.stat().st_size < two  # the old records folded away, only the new one left
    fresh = SessionStore(tmp_path / "state")
    marked = {e.id for e in fresh.index(sid).entries.values() if e.marks.get(MARK_KEY) == wid}
    assert marked == set(ids[1:13])


def test_a_mark_checkpoints_a_long_redo_log_whatever_its_age(tmp_path: Path, monkeypatch) -> None:
    from scriptorium.core.sessions import redo

    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 20)
    log = store.session_paths(sid).marks_redo
    mark_written(SessionStore(tmp_path / "state"), sid, ids[1:5], wid)
    one = log.stat().st_size
    monkeypatch.setattr(redo, "CHECKPOINT_BYTES", one - 1)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[5:9], wid)
    assert [e.filename for e in redo.read(log.parent.parent)] == [store.entry(sid, n).filename for n in ids[5:9]]


def test_marking_again_a_file_whose_earlier_mark_a_crash_undid_keeps_both_marks(tmp_path: Path, monkeypatch) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 8)
    f = store.session_paths(sid).node(store.entry(sid, ids[3]).filename)
    kept = f.with_name(f.name + ".before")
    os.link(f, kept)
    mark_written(SessionStore(tmp_path / "state"), sid, [ids[3]], wid)
    _crash_undoes(f, kept)
    _reboot(monkeypatch)
    SessionStore(tmp_path / "state").mark_nodes(sid, {ids[3]: {"memory_written_other": "w-0000abcd"}})  # fresh process
    metadata = json.loads(f.read_bytes())["metadata"]
    assert (metadata[MARK_KEY], metadata["memory_written_other"]) == (wid, "w-0000abcd")


def test_a_first_open_saves_the_index_rows_in_seq_order_for_marks_to_find_neighbours(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 300)
    store.session_paths(sid).index.unlink()
    pending(SessionStore(tmp_path / "state"), sid, workspace=wid)  # a first open: the folder's order
    rows = json.loads(store.session_paths(sid).index.read_bytes())["nodes"]
    assert [r[1] for r in rows] == sorted(r[1] for r in rows) and len(rows) == 301


def test_a_mark_frees_no_inode_of_the_runtime_files_it_bumps(tmp_path: Path) -> None:
    """The generation and the uncommitted flag are rewritten in place: a temp renamed over
    frees the old inode (on a busy ext4, a wait for the journal) and a truncate-then-write
    starts the file's writeback at close (issue 30)."""
    from scriptorium.core.sessions.index import fingerprint

    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 12)
    layout = store.session_paths(sid)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[1:3], wid)  # raises the flag
    gen, flag = os.stat(layout.generation), os.stat(layout.uncommitted)
    before = fingerprint(layout.root)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[3:5], wid)
    gen2, flag2 = os.stat(layout.generation), os.stat(layout.uncommitted)
    assert gen2.st_ino == gen.st_ino and int(layout.generation.read_bytes()) == int(before[3]) + 1
    assert (flag2.st_ino, flag2.st_mtime_ns, layout.uncommitted.read_bytes()) == (flag.st_ino, flag.st_mtime_ns, b"1")
    assert fingerprint(layout.root) != before
    store.append(sid, "user", "a writer commits the marks")  # and lowers the flag
    assert layout.uncommitted.read_bytes() == b""


def test_a_generation_holding_anything_else_is_bumped_to_a_number(tmp_path: Path) -> None:
    from scriptorium.core.sessions.index import bump_generation, fingerprint

    d = tmp_path / "s"
    (d / ".scriptorium").mkdir(parents=True)
    bump_generation(d)
    assert (d / ".scriptorium/gen").read_bytes() == b"1"
    for old, new in ((b"99", b"100"), (b"0000123", b"124"), (b"junk!", b"1"), (b"", b"1")):
        (d / ".scriptorium/gen").write_bytes(old)
        bump_generation(d)
        assert (d / ".scriptorium/gen").read_bytes() == new
        assert fingerprint(d)[3] == int(new)
    (tmp_path / "fresh").mkdir()
    bump_generation(tmp_path / "fresh")  # no .scriptorium/ yet: made
    assert (tmp_path / "fresh/.scriptorium/gen").read_bytes() == b"1"


def test_a_mark_after_a_checkpoint_syncs_the_emptied_log_alone(tmp_path: Path, monkeypatch) -> None:
    """A checkpoint empties the redo log but keeps its name: the next record needs no sync
    of the folder (only a log created anew does)."""
    from scriptorium.core.sessions import redo

    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 20)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[1:5], wid)
    redo.checkpoint(store.session_dir(sid))
    assert store.session_paths(sid).marks_redo.stat().st_size == 0
    synced: list[str] = []
    real_fsync, real_fdatasync = os.fsync, os.fdatasync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real_fsync(fd))[1])
    monkeypatch.setattr(os, "fdatasync",
                        lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real_fdatasync(fd))[1])
    mark_written(SessionStore(tmp_path / "state"), sid, ids[5:9], wid)
    assert synced == [str(store.session_paths(sid).marks_redo)]


def _open_fds() -> dict[int, tuple[int, int]]:
    """This process's open descriptors -> (device, inode)."""
    out = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            st = os.fstat(int(name))
        except OSError:
            continue
        out[int(name)] = (st.st_dev, st.st_ino)
    return out


def _wait_closed(before: set[int], timeout: float = 5.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while True:
        left = set(_open_fds()) - before
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.01)


def test_a_mark_holds_each_old_file_open_through_its_rename_and_closes_it_after(tmp_path: Path, monkeypatch) -> None:
    """A rename over a file nobody holds frees its inode inside the rename (ext4: a truncate
    and a journal wait each); a mark holds the old files open through its renames and closes
    them after its return, in a thread (issue 30). Every descriptor is closed in the end."""
    from scriptorium.core.sessions import marks

    hold = getattr(marks, "HOLD_MAX", 64)
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 100)
    history = store.session_paths(sid).history
    wanted = ids[5:95]  # more than HOLD_MAX: the rest are read and closed as before
    before = set(_open_fds())
    held_at_rename: list[bool] = []
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).startswith(str(history)):
            old = os.stat(dst)
            held_at_rename.append((old.st_dev, old.st_ino) in set(_open_fds().values()))
            assert len(set(_open_fds()) - before) <= hold + 2  # (the lock and one temp at most)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    mark_written(SessionStore(tmp_path / "state"), sid, wanted, wid)
    monkeypatch.undo()
    assert held_at_rename.count(True) == hold and len(held_at_rename) == len(wanted)
    assert _wait_closed(before) == set()
    fresh = SessionStore(tmp_path / "state")
    assert {e.id for e in fresh.index(sid).entries.values() if e.marks.get(MARK_KEY) == wid} == set(wanted)


def test_a_mark_that_fails_closes_every_file_it_held(tmp_path: Path, monkeypatch) -> None:
    import pytest

    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 12)
    before = set(_open_fds())
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        mark_written(SessionStore(tmp_path / "state"), sid, ids[1:6], wid)
    monkeypatch.undo()
    assert calls and _wait_closed(before) == set()
    assert not [p for p in os.listdir(store.session_paths(sid).history) if p.endswith(".tmp")]  # temps removed


def _undone_mark(tmp_path: Path) -> tuple[SessionStore, str, str, Path]:
    """A session whose one mark a crash undid on disk (the name holds the file as before)."""
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid, ids = _session(store, 8)
    f = store.session_paths(sid).node(store.entry(sid, ids[3]).filename)
    kept = f.with_name(f.name + ".before")
    os.link(f, kept)
    mark_written(SessionStore(tmp_path / "state"), sid, [ids[3]], wid)
    _crash_undoes(f, kept)
    return store, sid, wid, f


def test_a_redo_log_of_this_boot_and_mount_is_trusted_without_a_look_at_its_files(tmp_path: Path, monkeypatch) -> None:
    """Renames are undone only by a crash of the kernel that held them: a log whose first
    record is of this boot and of this mount of history/ holds nothing undone, and a
    reader does not stat its files (issue 30). (The undone file here is a simulation that
    no real crash without a reboot could leave; it shows the log was not looked into.)"""
    store, sid, wid, f = _undone_mark(tmp_path)
    history = str(store.session_paths(sid).history)
    looked: list[str] = []
    real_lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lambda p, *a, **k: (looked.append(str(p)), real_lstat(p, *a, **k))[1])
    SessionStore(tmp_path / "state").index(sid)
    assert not [p for p in looked if p.startswith(history)]
    assert MARK_KEY not in f.read_text()  # trusted: not repaired (see above)


def test_a_redo_log_of_another_boot_or_another_mount_is_checked_and_repaired(tmp_path: Path, monkeypatch) -> None:
    from scriptorium.core.sessions import redo

    store, sid, wid, f = _undone_mark(tmp_path)
    _reboot(monkeypatch)
    SessionStore(tmp_path / "state").index(sid)
    assert json.loads(f.read_bytes())["metadata"][MARK_KEY] == wid
    monkeypatch.undo()

    store, sid, wid, f = _undone_mark(tmp_path / "remounted")
    real_key = redo.key
    monkeypatch.setattr(redo, "key", lambda d: real_key(d).rsplit(b".", 1)[0] + b".999999")  # same boot, new mount
    SessionStore(tmp_path / "remounted" / "state").index(sid)
    assert json.loads(f.read_bytes())["metadata"][MARK_KEY] == wid


def test_a_redo_record_without_a_key_is_checked_as_before(tmp_path: Path) -> None:
    """A log written before records carried their writer's key (or where /proc is missing)."""
    store, sid, wid, f = _undone_mark(tmp_path)
    log = store.session_paths(sid).marks_redo
    data = log.read_bytes()
    first, rest = data.split(b"\n", 1)
    magic, _key, hlen, plen = first.split(b" ")
    assert magic == b"MARKS2"
    log.write_bytes(b"MARKS1 %s %s\n" % (hlen, plen) + rest)
    SessionStore(tmp_path / "state").index(sid)
    assert json.loads(f.read_bytes())["metadata"][MARK_KEY] == wid
