"""The CLI contract under every failure (issue 19, item 11): every command against a
read-only state, a full disk and a state it may not read or write ends with no
traceback, one line on stderr, exit 0/1/2 (75 only for what heals by itself — none of
these does) and, under `--json`, exactly one JSON document on stdout; a failure's is
`{"outcome", "code", "message"}`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

PY = sys.executable
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def cli(state: Path, *args: str, prefix: tuple[str, ...] = (), env: dict[str, str] | None = None,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, PY, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=120, env=env, input=stdin or "")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A state with a session of two turns written into memory; the ids the commands need."""
    state = tmp_path_factory.mktemp("seed") / "state"
    sid = cli(state, "session", "new").stdout.strip()
    first = cli(state, "session", "append", sid, "--role", "user", "--text", "What is the cache size?").stdout.strip()
    cli(state, "session", "append", sid, "--role", "assistant", "--text", "The cache is 50 GB.")
    assert cli(state, "write", sid, "--force").returncode == 0
    log = json.loads(cli(state, "log", "--json").stdout)
    hits = json.loads(cli(state, "search", "cache", "--json").stdout)
    sha = next(e["commit"] for e in log if e.get("commit"))  # a sleep that changed nothing is logged without one
    return {"state": str(state), "sid": sid, "node": first, "sha": sha,
            "block": hits["hits"][0]["block_id"]}


def commands(ids: dict[str, str], scratch: Path) -> list[list[str]]:
    """Every command (but the long-running `watch`, `mcp`, `chat`, `demo` and `hook`, which
    always exits 0), with the arguments it needs; `--json` where it has it."""
    topic = scratch / "topic.md"
    topic.write_text("# Eve\n\nEve is new.\n")
    transcript = scratch / "t.jsonl"
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1",'
                          '"sessionId":"s1","timestamp":"2026-01-02T00:00:00Z"}\n')
    sid, node = ids["sid"], ids["node"]
    return [
        ["session", "new", "--json"], ["session", "append", sid, "--role", "user", "--text", "more", "--json"],
        ["session", "show", sid, "--json"], ["session", "list", "--json"], ["session", "mark", sid, node, "--json"],
        ["session", "rewind", sid, node, "--json"], ["pending", sid, "--json"], ["write", sid, "--force", "--json"],
        ["finish", sid, "--json"], ["sleep", "--json"], ["migrate", "--json"], ["backfill", "--json"],
        ["import", "claude-code", str(transcript), "--json"], ["trilogy", "status", "--json"],
        ["trilogy", "scaffold", "--json"], ["search", "cache", "--json"], ["get", ids["block"], "--json"],
        ["topic", "save", "people/eve.md", "--from", str(topic), "--json"],
        ["topic", "retire", "cache.md", ids["block"], "--reason", "test", "--json"],
        ["core", "--json"], ["log", "--json"], ["revert", ids["sha"], "--json"],
        ["remote", "add", "origin", str(scratch / "nowhere.git"), "--json"], ["remote", "list", "--json"],
        ["sync", "--json"], ["conflicts", "--json"], ["resolve", ids["block"], "--keep", "local", "--json"],
        ["doctor", "--json"], ["install", "pi", "--json"], ["uninstall", "pi", "--json"],
        ["purge", "--text", "50 GB", "--yes", "--json"],
    ]


def check(args: list[str], done: subprocess.CompletedProcess[str]) -> None:
    where = " ".join(args)
    assert "Traceback" not in done.stderr, f"{where}: {done.stderr}"
    assert done.returncode in (0, 1, 2), f"{where}: exit {done.returncode}: {done.stderr}"  # nothing here heals
    if done.returncode != 0:
        assert len(done.stderr.strip().splitlines()) == 1, f"{where}: {done.stderr}"
    if "--json" in args:
        try:
            doc = json.loads(done.stdout)
        except ValueError:
            pytest.fail(f"{where}: not exactly one JSON document on stdout: {done.stdout[:300]!r} / {done.stderr}")
        if done.returncode != 0 and "outcome" in doc:
            assert doc["outcome"] in ("permanent", "retryable", "rejected"), where  # a result document, or the failure one


def run_all(state: Path, ids: dict[str, str], scratch: Path, *, extra_env: dict[str, str] | None = None,
            **kw: object) -> list[str]:
    """Run every command against `state`; the ones that failed (for the caller's sanity checks)."""
    cmds = commands(ids, scratch)
    env = dict(os.environ, HOME=str(scratch / "home"), PYTHONDONTWRITEBYTECODE="1", **(extra_env or {}))
    (scratch / "home").mkdir(exist_ok=True)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda a: cli(state, *a, env=env, **kw), cmds))  # type: ignore[arg-type]
    for args, done in zip(cmds, results):
        check(args, done)
    return [" ".join(a) for a, d in zip(cmds, results) if d.returncode != 0]


def _mount(target: Path, *options: str) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(("size=8m", *options)), "tmpfs", str(target)],
                          capture_output=True, check=False) if IS_ROOT and shutil.which("mount") else None
    return done is not None and done.returncode == 0


@pytest.fixture()
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "mnt"
    if not _mount(mnt):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_read_only_state(seeded: dict[str, str], tmpfs: Path, tmp_path: Path) -> None:
    state = tmpfs / "state"
    shutil.copytree(seeded["state"], state, symlinks=True)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    failed = run_all(state, seeded, tmp_path)
    assert any(f.startswith("session append") for f in failed) and any(f.startswith("topic save") for f in failed)


SIMULATED_FREE = 4096  # bytes each process may still write on the simulated full disk: a node file fits, git not

GIT_ON_A_FULL_DISK = """#!/bin/sh
# git on a (simulated) full disk: commands that only read run; every other one fails as git does there
sub=
skip=
for a in "$@"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  case "$a" in
    -c|-C|--git-dir|--work-tree|--namespace) skip=1 ;;
    -*) ;;
    *) sub=$a; break ;;
  esac
done
case "$sub" in
  ""|version|help|status|rev-parse|log|show|cat-file|diff|diff-tree|diff-index|diff-files|ls-files|ls-tree|\
  rev-list|for-each-ref|show-ref|merge-base|symbolic-ref|describe|name-rev|check-ignore|check-attr|var|grep)
    exec "$REAL_GIT" "$@" ;;
  config|remote)
    case " $* " in
      *" --get"*|*" -l "*|*" --list "*|*" -v "*) exec "$REAL_GIT" "$@" ;;
    esac
    [ "$sub" = remote ] && [ "$#" -le 2 ] && exec "$REAL_GIT" "$@" ;;
esac
echo "fatal: unable to write new index file: No space left on device" >&2
exit 128
"""


def simulated_full_disk(where: Path) -> dict[str, str]:
    """The environment of a child on a simulated full disk (tests/core/full_disk/sitecustomize.py
    for Python's writes, a stand-in for git on PATH): for where no tmpfs can be mounted."""
    bin_dir = where / "full-disk-bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(GIT_ON_A_FULL_DISK)
    (bin_dir / "git").chmod(0o755)
    real_git = shutil.which("git")
    assert real_git is not None
    hook = Path(__file__).resolve().parent / "full_disk"
    return {"SCRIPTORIUM_TEST_FULL_DISK": str(SIMULATED_FREE), "REAL_GIT": real_git,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH")) if p)}


@pytest.fixture(params=["tmpfs", "simulated"])
def full_disk(request: pytest.FixtureRequest, seeded: dict[str, str],
              tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], str]]:
    """A copy of the seeded state on a full disk, the environment its commands run in, and
    which disk it is: a filled tmpfs ("tmpfs", where one can be mounted: CI runs as root),
    else a simulated ENOSPC — always for "simulated", and for "tmpfs" where mounting is
    impossible, so that neither ever skips."""
    mnt = tmp_path / "mnt"
    if request.param == "tmpfs" and _mount(mnt):
        state = mnt / "state"
        copy_seeded(seeded, state)
        with open(mnt / "filler", "wb") as fh:  # take every byte left
            try:
                while True:
                    fh.write(b"\0" * (1 << 16))
                    fh.flush()
            except OSError:
                pass
        try:
            yield state, {}, "tmpfs"
        finally:
            subprocess.run(["umount", "-l", str(mnt)], check=False)
        return
    state = tmp_path / "state"
    copy_seeded(seeded, state)
    yield state, simulated_full_disk(tmp_path), "simulated"


def copy_seeded(seeded: dict[str, str], state: Path) -> None:
    """The seeded state, its session's marks committed (by one more turn, a tool's: nothing
    for the writer, whose passes would hold their lock long enough to make a concurrent one
    retryable): so that on the full disk, `session append` gets as far as writing its node
    file before git fails."""
    shutil.copytree(seeded["state"], state, symlinks=True)
    done = cli(state, "session", "append", seeded["sid"], "--role", "tool", "--text", "ls: 3 files")
    assert done.returncode == 0, done.stderr


def session_files(state: Path, sid: str) -> list[str]:
    return sorted(p.name for p in (state / "sessions" / sid / "history").iterdir())


def test_a_full_disk(seeded: dict[str, str], full_disk: tuple[Path, dict[str, str], str], tmp_path: Path) -> None:
    state, env, disk = full_disk
    sid = seeded["sid"]
    before = session_files(state, sid)
    failed = run_all(state, seeded, tmp_path, extra_env=env)
    assert any(f.startswith("topic save") for f in failed)
    assert any(f.startswith("session append") for f in failed), disk
    if disk == "tmpfs":
        (state.parent / "filler").unlink()  # the disk has room again
    # the failed append left nothing behind (issue 19, item 6): its retry is one turn on the one branch
    assert session_files(state, sid) == before
    retry = cli(state, "session", "append", sid, "--role", "user", "--text", "more", "--json")
    assert retry.returncode == 0, retry.stderr
    shown = json.loads(cli(state, "session", "show", sid, "--json").stdout)
    new = json.loads(retry.stdout)["id"]
    assert shown["tips"] == [new] and [n["text"] for n in shown["nodes"]].count("more") == 1
    assert len(session_files(state, sid)) == len(before) + 1


def test_a_state_it_may_not_touch(seeded: dict[str, str], tmp_path: Path) -> None:
    state = tmp_path / "private" / "state"
    shutil.copytree(seeded["state"], state, symlinks=True)
    if IS_ROOT:
        if not shutil.which("setpriv"):
            pytest.skip("no setpriv to drop root")
        os.chmod(tmp_path, 0o755)
        prefix: tuple[str, ...] = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
        os.chmod(state, 0o700)  # root's: nobody may read or write it
    else:
        prefix = ()
        for path in [state, *state.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                os.chmod(path, 0o500)
    try:
        failed = run_all(state, seeded, tmp_path, prefix=prefix)
    finally:
        for path in [state, *state.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                os.chmod(path, 0o755)
    assert any(f.startswith("session append") for f in failed)


def test_state_naming_a_file_and_an_empty_reason_are_usage_errors(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    for args in (["log", "--json"], ["session", "list", "--json"], ["core", "--json"]):
        done = cli(afile, *args)
        check(args, done)
        assert done.returncode == 2 and json.loads(done.stdout)["code"] == "STATE_NOT_A_DIRECTORY"
    args = ["topic", "retire", "people/a.md", "abc", "--reason", "  ", "--json"]
    done = cli(tmp_path / "state", *args)
    check(args, done)
    assert done.returncode == 2 and json.loads(done.stdout)["code"] == "USAGE"


def test_a_busy_lock_is_retryable_with_its_document(seeded: dict[str, str], tmp_path: Path) -> None:
    state = tmp_path / "state"
    shutil.copytree(seeded["state"], state, symlinks=True)
    (tmp_path / "t.md").write_text("# Eve\n\nEve is new.\n")
    holder = subprocess.Popen([PY, "-c", "import sys, time; from filelock import FileLock; "
                               "l = FileLock(sys.argv[1]); l.acquire(); print('held', flush=True); time.sleep(60)",
                               str(state / "memory" / ".scriptorium" / "write.lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        args = ["topic", "save", "people/eve.md", "--from", str(tmp_path / "t.md"), "--json"]
        done = cli(state, *args)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 75, done.stderr
    assert json.loads(done.stdout) == {"outcome": "retryable", "code": "CONCURRENT_UPDATE",
                                       "message": done.stderr.strip().removeprefix("scriptorium: ")}


def test_importing_a_fifo_is_refused_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    args = ["import", "claude-code", str(fifo), "--json"]
    done = cli(tmp_path / "state", *args)
    check(args, done)
    assert done.returncode == 1 and json.loads(done.stdout)["code"] == "NOT_A_REGULAR_FILE"
    whole_dir = cli(tmp_path / "state", "import", "claude-code", str(tmp_path), "--json")
    assert whole_dir.returncode == 0 and json.loads(whole_dir.stdout)["files"] == 0
