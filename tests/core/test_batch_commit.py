"""A batch's one commit: packed for big batches, ordinary for small or unusual ones —
either way git's HEAD and index end up matching exactly what is on disk."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import git
import pytest
from scriptorium.core.sessions.pack import MIN_FILES, PackedCommit
from scriptorium.core.sessions.store import SessionStore


def git_out(d: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=d, capture_output=True, text=True, check=True).stdout


def assert_head_matches_disk(store: SessionStore, sid: str) -> None:
    """Every file of the session is committed with its exact bytes, and git sees no change."""
    d = store.session_dir(sid)
    repo = git.Repo(d)
    on_disk = {f"history/{p.name}": p.read_bytes() for p in (d / "history").iterdir() if p.suffix == ".json"}
    on_disk["meta.json"] = (d / "meta.json").read_bytes()
    tree = {b.path: b.data_stream.read() for b in repo.head.commit.tree.traverse() if b.type == "blob"}
    assert {p: tree.get(p) for p in on_disk} == on_disk
    assert git_out(d, "status", "--porcelain") == ""


def fill(store: SessionStore, sid: str, count: int) -> list[str]:
    ids = []
    with store.batch(sid, message=f"import: {count}"):
        for i in range(count):
            ids.append(store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i} " + "x" * 300).id)
    return ids


def loose_objects(d: Path) -> int:
    return int(dict(line.split(": ") for line in git_out(d, "count-objects", "-v").splitlines())["count"])


def test_big_batch_is_one_packed_commit_and_later_commits_keep_every_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("big")
    d = store.session_dir(sid)
    loose_before = loose_objects(d)
    commits_before = len(list(git.Repo(d).iter_commits()))

    fill(store, sid, MIN_FILES + 50)

    assert len(list(git.Repo(d).iter_commits())) == commits_before + 1
    assert loose_objects(d) - loose_before < 5  # the node blobs went into a pack, not one file each
    assert_head_matches_disk(store, sid)
    # an ordinary per-turn commit afterwards must not drop the packed files from the tree
    store.append(sid, "user", "one more")
    assert_head_matches_disk(store, sid)
    assert len(store.index(sid).entries) == MIN_FILES + 50 + 2  # ROOT + batch + one more


def test_small_batch_commits_the_ordinary_way(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("small")
    fill(store, sid, 5)
    assert_head_matches_disk(store, sid)


def test_metadata_rewrite_inside_a_batch_commits_the_latest_bytes(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("rewrite")
    with store.batch(sid):
        ids = [store.append(sid, "user", f"t{i}").id for i in range(MIN_FILES + 10)]
        store.merge_node_metadata_batch(sid, {ids[0]: {"flag": 1}, ids[-1]: {"flag": 2}})
    assert_head_matches_disk(store, sid)
    assert store.node(sid, ids[0]).metadata["flag"] == 1


@pytest.mark.parametrize("count", [3, MIN_FILES + 5])
def test_detached_head_falls_back_to_an_ordinary_commit(tmp_path: Path, count: int) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("detached")
    d = store.session_dir(sid)
    git_out(d, "checkout", "-q", "--detach")
    fill(store, sid, count)
    assert_head_matches_disk(store, sid)


@pytest.mark.parametrize("count", [3, MIN_FILES + 5])
def test_deferred_init_joins_the_first_commit(tmp_path: Path, count: int) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("imported", session_id="imp-1", commit=False)
    assert not git.Repo(store.session_dir(sid)).head.is_valid()  # nothing committed yet
    fill(store, sid, count)
    commits = list(git.Repo(store.session_dir(sid)).iter_commits())
    assert len(commits) == 1
    tree = {b.path for b in commits[0].tree.traverse() if b.type == "blob"}
    assert {"meta.json", "workdir/.gitkeep", "history/0000-u-ROOT.json"} <= tree
    assert_head_matches_disk(store, sid)
    registry = json.loads((store.root / "index.json").read_text())
    assert registry[sid]["title"] == "imported"


def test_deferred_init_joins_an_ordinary_append(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("later", commit=False)
    store.append(sid, "user", "hello")
    commits = list(git.Repo(store.session_dir(sid)).iter_commits())
    assert len(commits) == 1
    assert_head_matches_disk(store, sid)


def new_repo(tmp_path: Path, *, first_commit: bool = True) -> Path:
    d = tmp_path / "repo"
    git_out(tmp_path, "init", "-q", "-b", "main", str(d))
    if first_commit:
        (d / "seed.txt").write_text("seed\n")
        git_out(d, "add", "seed.txt")
        git_out(d, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "seed")
    return d


def stream_files(d: Path, pack: PackedCommit, count: int) -> list[str]:
    (d / "h").mkdir(exist_ok=True)
    paths = []
    for i in range(count):
        rel = f"h/{i:04d}.json"
        data = json.dumps({"i": i, "text": "y" * 200}).encode()
        (d / rel).write_bytes(data)
        pack.add(rel, data)
        paths.append(rel)
    return paths


def test_packed_commit_lands_on_the_branch_with_the_index_in_step(tmp_path: Path) -> None:
    d = new_repo(tmp_path)
    pack = PackedCommit(d)
    paths = stream_files(d, pack, MIN_FILES + 20)
    (d / "late.txt").write_text("not streamed, read from disk\n")
    assert pack.commit(paths + ["late.txt"], "packed", name="T", email="t@t") is True
    repo = git.Repo(d)
    assert repo.head.commit.message.strip() == "packed"
    assert [c.message.strip() for c in repo.head.commit.parents] == ["seed"]
    assert {"seed.txt", "late.txt", *paths} <= {b.path for b in repo.head.commit.tree.traverse()}
    assert git_out(d, "status", "--porcelain") == ""


def test_packed_commit_starts_a_new_branch(tmp_path: Path) -> None:
    d = new_repo(tmp_path, first_commit=False)
    pack = PackedCommit(d)
    paths = stream_files(d, pack, MIN_FILES)
    assert pack.commit(paths, "first", name="T", email="t@t", new_branch="refs/heads/main") is True
    assert git_out(d, "status", "--porcelain") == ""
    assert len(list(git.Repo(d).iter_commits())) == 1


@pytest.mark.parametrize("case", ["small", "detached", "moved"])
def test_packed_commit_declines_and_leaves_the_branch_alone(tmp_path: Path, case: str) -> None:
    d = new_repo(tmp_path)
    if case == "detached":
        git_out(d, "checkout", "-q", "--detach")
    pack = PackedCommit(d)
    paths = stream_files(d, pack, 3 if case == "small" else MIN_FILES)
    before = git_out(d, "rev-parse", "HEAD")
    new_branch = "refs/heads/main" if case == "moved" else None  # claims unborn, but main has a commit
    assert pack.commit(paths, "declined", name="T", email="t@t", new_branch=new_branch) is False
    assert git_out(d, "rev-parse", "HEAD") == before


CRASHING_CHILD = """
import os, sys
from scriptorium.core.sessions.store import SessionStore
store = SessionStore(sys.argv[1])
sid, how = sys.argv[2], sys.argv[3]
import scriptorium.core.sessions.repo as session_git
session_git.commit_paths = lambda *a, **k: os._exit(3)  # die where the commit would be
if how == "batch":
    import scriptorium.core.sessions.pack as gp
    gp.PackedCommit.commit = lambda *a, **k: os._exit(3)
    with store.batch(sid):
        for i in range(int(sys.argv[4])):
            store.append(sid, "user", f"crashed turn {i}")
elif how == "packed-before-index":  # fast-import committed; killed before the index is synced
    import subprocess
    real_run = subprocess.run
    subprocess.run = lambda args, *a, **k: os._exit(3) if "update-index" in args else real_run(args, *a, **k)
    with store.batch(sid):
        for i in range(int(sys.argv[4])):
            store.append(sid, "user", f"crashed turn {i}")
elif how == "append":
    store.append(sid, "user", "a turn whose commit never happened")
else:
    ids = [e.id for e in store.branch_entries(sid)]
    store.merge_node_metadata_batch(sid, {nid: {"marked": True} for nid in ids})
"""


@pytest.mark.parametrize(("how", "count"), [("batch", 5), ("batch", MIN_FILES + 5), ("packed-before-index", MIN_FILES + 5),
                                            ("append", 1), ("marks", 0)])
def test_files_an_interrupted_writer_left_uncommitted_join_the_next_commit(tmp_path: Path, how: str,
                                                                            count: int) -> None:
    import sys

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("crash")
    for i in range(3):
        store.append(sid, "user", f"turn {i}")
    child = subprocess.run([sys.executable, "-c", CRASHING_CHILD, str(store.state_dir), sid, how, str(count)],
                           capture_output=True, text=True, check=False)
    assert child.returncode == 3, child.stderr
    assert git_out(store.session_dir(sid), "status", "--porcelain") != ""  # left behind, uncommitted

    store = SessionStore(tmp_path / "state")  # another process, later
    store.append(sid, "user", "life goes on")

    assert_head_matches_disk(store, sid)
    subjects = git_out(store.session_dir(sid), "log", "--format=%s").splitlines()
    assert subjects[1].startswith("recover:")  # its own commit, before the new turn's


def test_a_clean_session_needs_no_recovery(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("clean")
    store.append(sid, "user", "one")
    store.append(sid, "user", "two")
    subjects = git_out(store.session_dir(sid), "log", "--format=%s").splitlines()
    assert not any(s.startswith("recover:") for s in subjects)


def test_a_session_created_without_its_commit_by_a_process_that_died_is_recovered(tmp_path: Path) -> None:
    import sys

    code = ("import os, sys\nfrom scriptorium.core.sessions.store import SessionStore\n"
            "SessionStore(sys.argv[1]).create_session('orphan', session_id='orphan', commit=False)\nos._exit(3)\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "state")], check=False)
    store = SessionStore(tmp_path / "state")
    store.append("orphan", "user", "first real turn")
    assert_head_matches_disk(store, "orphan")
    tree = git_out(store.session_dir("orphan"), "ls-files").split()
    assert "history/0000-u-ROOT.json" in tree and "workdir/.gitkeep" in tree


@pytest.mark.parametrize("killed", ["before-init", "after-init"])
def test_a_session_whose_git_init_was_killed_is_completed_and_committed(tmp_path: Path, killed: str) -> None:
    """A process killed inside `git init` or before the identity is configured (issue 19):
    the next writer finishes making the repository and commits the init files."""
    import sys

    code = ("import os, sys, subprocess\nfrom scriptorium.core.sessions.store import SessionStore\n"
            "real = subprocess.run\n"
            "def run(args, *a, **k):\n"
            "    if 'init' in args:\n"
            "        if sys.argv[2] == 'before-init':\n"
            "            os._exit(3)\n"
            "        real(args, *a, **k)\n"
            "        os._exit(3)\n"
            "    return real(args, *a, **k)\n"
            "subprocess.run = run\n"
            "SessionStore(sys.argv[1]).create_session('orphan', session_id='orphan', commit=sys.argv[3] == 'commit')\n")
    for commit in ("commit", "deferred"):
        state = tmp_path / commit
        child = subprocess.run([sys.executable, "-c", code, str(state), killed, commit], capture_output=True,
                               text=True, check=False)
        assert child.returncode == 3, child.stderr
        store = SessionStore(state)
        store.append("orphan", "user", "first real turn")
        assert_head_matches_disk(store, "orphan")
        d = store.session_dir("orphan")
        assert "workdir/.gitkeep" in git_out(d, "ls-files").split()
        assert git_out(d, "config", "user.email").strip() == "scriptorium@local"
