"""`scriptorium demo`: the demo state holds every session shape, its written turns were written for
real by the offline model, it is built once, and prints offline."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scriptorium.core.cli import main
from scriptorium.core.demo import FOREIGN_WORKSPACE, build_demo
from scriptorium.core.sessions.marker import MARK_KEY, pending, pending_branches, workspace_id
from scriptorium.core.memory import Workspace
from scriptorium.core.memory.sources import anchor_for
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import OFFLINE_MODEL


def test_the_demo_holds_every_shape_the_engine_handles(built_demo: Path) -> None:
    store = SessionStore(built_demo)
    wid = workspace_id(built_demo)
    summaries, problems = store.list_sessions()
    assert not problems and len(summaries) >= 4
    titles = [s.title for s in summaries]
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in titles)  # Chinese
    assert any(t.isascii() for t in titles)  # English
    entries = [e for s in summaries for e in store.index(s.id).entries.values()]
    kinds = {e.kind for e in entries}
    assert {"user", "assistant", "tool", "summary", "runtime"} <= kinds
    assert any(e.rewound for e in entries)
    assert any(e.spawn_root for e in entries)
    marks = [e.marks.get(MARK_KEY) for e in entries]
    assert wid in marks and FOREIGN_WORKSPACE in marks
    branches = [b for s in summaries for b in pending_branches(store, s.id, wid)]
    assert any(b.turns for b in branches) and any(not b.turns for b in branches)
    assert any(len(store.list_branches(s.id)) >= 3 for s in summaries)  # retry and re-ask forks


def test_a_foreign_mark_is_shown_but_its_turn_is_still_pending(built_demo: Path) -> None:
    store = SessionStore(built_demo)
    foreign = [(s.id, e.id) for s in store.list_sessions()[0] for e in store.index(s.id).entries.values()
               if e.marks.get(MARK_KEY) == FOREIGN_WORKSPACE]
    assert foreign
    for sid, nid in foreign:
        owed = {t.id for b in pending_branches(store, sid) for t in b.turns}
        assert nid in owed


def test_every_written_turn_went_through_the_pipeline_with_the_offline_model(built_demo: Path) -> None:
    """Marks, archived evidence and topic citations agree: nothing was marked by hand."""
    store = SessionStore(built_demo)
    wid = workspace_id(built_demo)
    memory = built_demo / "memory"
    topics = "\n".join(p.read_text(encoding="utf-8") for p in (memory / "topics").rglob("*.md")
                       if p.name != "core.md")
    written = [(sid, e.id) for sid in store.session_ids() for e in store.index(sid).entries.values()
               if e.marks.get(MARK_KEY) == wid]
    assert len(written) >= 10
    cited = 0
    for sid, nid in written:
        anchor = anchor_for(f"openprogram/{sid}/{nid}")
        assert anchor in (memory / "sources" / "openprogram" / "_v2" / f"{sid}.md").read_text(encoding="utf-8")
        cited += anchor in topics  # cited by a block the writer filed (chatter is handled without one)
    assert cited >= len(written) * 2 // 3
    runs = [json.loads(line) for line in (memory / ".scriptorium" / "agent-history.jsonl").read_text().splitlines()]
    assert {run["stage"] for run in runs} >= {"write"} and {run["model"] for run in runs} == {OFFLINE_MODEL}
    status = Workspace(built_demo).core_status()
    assert status.canonical_tokens > 0 and status.rendered_tokens > 0  # a non-empty core


def test_the_demo_leaves_pending_branches_beside_written_and_finished_ones(built_demo: Path) -> None:
    store = SessionStore(built_demo)
    wid = workspace_id(built_demo)
    owed = {sid: {tip: len(pending(store, sid, tip, wid)) for tip in store.list_branches(sid)}
            for sid in store.session_ids()}
    finished = owed["demo-rust-cleanup"]
    assert finished[store.head("demo-rust-cleanup")] == 0  # finish wrote the head's line whole
    assert [n for tip, n in finished.items() if tip != store.head("demo-rust-cleanup")] == [1]  # the retry waits
    build_cache = owed["demo-build-cache"]
    assert 0 in build_cache.values() and build_cache[store.head("demo-build-cache")] > 0  # one branch written
    assert all(n > 0 for n in owed["demo-checkout"].values())  # a session nothing was written of


def test_build_refuses_a_state_that_already_holds_sessions(built_demo: Path) -> None:
    with pytest.raises(ValueError):
        build_demo(built_demo)


def test_demo_print_builds_once_and_prints_every_branch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    assert main(["--state", str(state), "demo", "--print"]) == 0
    first, announced = capsys.readouterr()
    assert "Building the demo" in announced  # the first build says why it takes a few seconds
    store = SessionStore(state)
    for sid in store.session_ids():
        for tip in store.list_branches(sid):
            assert tip in first
    files = sorted(p.relative_to(state) for p in state.rglob("history/*.json"))
    assert main(["--state", str(state), "demo", "--no-tui"]) == 0
    second, quiet = capsys.readouterr()
    assert "already built" in second and "Building" not in quiet
    assert sorted(p.relative_to(state) for p in state.rglob("history/*.json")) == files


def test_without_state_the_demo_lives_in_the_platform_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("SCRIPTORIUM_STATE", str(tmp_path / "real-state"))
    assert main(["demo", "--print"]) == 0
    assert (tmp_path / "data" / "scriptorium" / "demo" / "sessions").is_dir()
    assert not (tmp_path / "real-state").exists()


def _blocks(state: Path) -> dict[str, list[str]]:
    from scriptorium.core.memory.topics import parse_topic

    topics = state / "memory" / "topics"
    return {p.relative_to(topics).as_posix(): [b.content for b in parse_topic(p.name, p.read_text(encoding="utf-8")).blocks]
            for p in topics.rglob("*.md")}


def test_the_demo_topics_read_as_the_sessions_spell_them(built_demo: Path) -> None:
    """The build-cache session ran in `~/src/ci-runners` and says "the CI runners": its topic's
    heading is "CI runners", not the folder's "Ci runners"."""
    text = (built_demo / "memory" / "topics" / "ci-runners.md").read_text(encoding="utf-8")
    assert text.startswith("# CI runners\n"), text.splitlines()[0]


def test_every_demo_block_stands_alone(built_demo: Path) -> None:
    """No written block opens with a pronoun for what another block says ("They are large, …"
    was the target directories of a sentence before it), nor keeps a question before its
    answer (热修复的标准怎么定？ ahead of the criteria)."""
    written = {rel: blocks for rel, blocks in _blocks(built_demo).items() if rel != "core.md" and "runbooks" not in rel}
    starts = [b for bs in written.values() for b in bs]
    assert starts
    for block in starts:
        assert not re.match(r"(?:They|It|These|This|那|这样)\b", block), block
        assert "？" not in block and not re.search(r"\?\s", block), block
    cache = " ".join(written["ci-runners.md"])
    assert "Keep target directories out of the shared cache. They are large, branch-specific" in cache
    assert "Rust target directories grow to about 30 GB per branch." in cache
    release = " ".join(written["release-process.md"])
    assert "满足任一条件即可算热修复：线上错误率超过 1%、支付或登录不可用、数据正在丢失。" in release


def test_a_demo_answer_that_is_a_place_says_what_is_there(built_demo: Path) -> None:
    """The onboarding session: "New engineers keep asking where the staging credentials live.
    Where should they look?" "In the team vault under `staging/`, …". The block was that phrase
    alone, about nothing; it now takes the subject the question names, in a statement's order
    (no question kept before it), and the asking is no note of its own."""
    handbook = " ".join(_blocks(built_demo)["handbook.md"])
    assert "The staging credentials live in the team vault under `staging/`, readable by the `eng-staging` group" \
        in handbook, handbook
    assert "keep asking" not in handbook and "?" not in handbook, handbook
