"""Live updates: changes made on disk by someone else reach the open app, coalesced; the
app's own saves do not come back as changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.sessions.paths import SessionPaths
from scriptorium.tui.live import LiveUpdates
from scriptorium.tui.topics.screen import TopicsScreen
from scriptorium.tui.topics.topic_tree import TopicTree

from .helpers import open_topics, screen_lines
from .topics_support import Probe, settle_until, topics_state_copy

pytestmark = pytest.mark.anyio


@pytest.fixture()
def topics_state(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    state = topics_state_copy(tmp_path_factory, tmp_path)
    SessionPaths.of(state, "s1").history.mkdir(parents=True)
    return state


@pytest.fixture()
def live(topics_state: Path):
    watcher = LiveUpdates(topics_state)
    probe = Probe()
    watcher.subscribe(probe)
    watcher.start()
    assert watcher.ready.wait(10), watcher.error
    yield watcher, probe
    watcher.stop()


async def test_a_burst_of_changes_is_one_message_naming_what_changed(topics_state: Path, live) -> None:
    _watcher, probe = live
    topics = topics_state / "memory" / "topics"
    for n in range(5):
        (topics / f"note-{n}.md").write_text(f"# Note {n}\n", encoding="utf-8")
    SessionPaths.of(topics_state, "s1").node("m1.json").write_text("{}", encoding="utf-8")
    message = await probe.next()
    assert message.topics == {f"note-{n}.md" for n in range(5)}
    assert message.sessions == {"s1"}
    assert len(probe.messages) == 1


async def test_new_sessions_are_watched_and_git_is_not(topics_state: Path, live) -> None:
    _watcher, probe = live
    history = SessionPaths.of(topics_state, "s2").history
    history.mkdir(parents=True)
    (history / "m1.json").write_text(json.dumps({"id": "m1"}), encoding="utf-8")
    assert "s2" in (await probe.next()).sessions
    (topics_state / "sessions" / "s2" / ".git").mkdir()
    (topics_state / "sessions" / "s2" / ".git" / "index").write_bytes(b"x")  # ignored
    (history / "m2.json").write_text(json.dumps({"id": "m2"}), encoding="utf-8")  # a file in the new session
    message = await probe.next()
    assert message.sessions == {"s2"} and not message.topics


async def test_own_changes_do_not_echo_to_their_author(topics_state: Path, live) -> None:
    watcher, other = live
    author = Probe()
    watcher.subscribe(author)
    workspace = Workspace(topics_state)
    text = workspace.read_topic("ops/deploys.md")
    with watcher.own_change(author) as acknowledge:
        result = save_topic(workspace, "ops/deploys.md", text.replace("# Deploys", "# Deploy windows"))
        acknowledge(workspace.root / name for name in result.changed_files)
    assert "topics/ops/deploys.md" in result.changed_files
    # the other screens hear of it (the History screen shows the commit)...
    assert "ops/deploys.md" in (await other.until(lambda m: "ops/deploys.md" in m.topics)).topics
    # ...the author does not: its first message is someone else's later change
    (topics_state / "memory" / "topics" / "theirs.md").write_text("# Theirs\n", encoding="utf-8")
    message = await author.next()
    assert message.topics == {"theirs.md"} and not message.memory
    # touching a file without changing it reports nothing either
    (topics_state / "memory" / "topics" / "theirs.md").write_text("# Theirs\n", encoding="utf-8")
    (topics_state / "memory" / "topics" / "again.md").write_text("# Again\n", encoding="utf-8")
    assert (await author.next()).topics == {"again.md"}


async def test_an_external_change_to_a_topic_appears_in_the_open_app(make_app, settle, topics_state: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle)
        await settle_until(pilot, settle, lambda: app.live.running)
        probe = Probe()
        app.live.subscribe(probe)

        # someone else edits the open topic and adds another: the view and the tree follow
        workspace = Workspace(topics_state)
        theirs = workspace.read_topic("core.md").replace("Deploy only", "Ship only")
        assert save_topic(workspace, "core.md", theirs).outcome == "installed"
        (workspace.topics / "scratch.md").write_text("# Scratch\n", encoding="utf-8")
        seen: set[str] = set()
        await probe.until(lambda m: seen.update(m.topics) or {"core.md", "scratch.md"} <= seen)
        await settle_until(pilot, settle, lambda: screen.editor.text == theirs)
        await settle_until(pilot, settle, lambda: any(
            node.data == "scratch.md" for node in screen.query_one(TopicTree).root.children))
        # the editor holds the new text before the screen is painted again: wait for the paint
        await settle_until(pilot, settle, lambda: any("Ship only Tuesday" in row for row in screen_lines(app)))
        assert screen.editing_state.base == theirs and not screen.dirty

        # the app's own save does not come back to the Topics screen (the other screens hear of it)
        heard: list[frozenset[str]] = []
        handler = TopicsScreen.on_disk_changed

        async def spy(self, message):
            heard.append(message.topics)
            await handler(self, message)

        monkeypatch.setattr(TopicsScreen, "on_disk_changed", spy)
        await pilot.press("e", *"Note: ")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not screen.dirty and "Note: " in Workspace(topics_state).read_topic("core.md")
        await probe.until(lambda m: "core.md" in m.topics)  # the same report would have told the screen
        await settle(pilot)
        assert all("core.md" not in topics for topics in heard)


async def test_a_draft_is_kept_when_its_file_changes_on_disk(make_app, settle, topics_state: Path) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle)
        await settle_until(pilot, settle, lambda: app.live.running)
        probe = Probe()
        app.live.subscribe(probe)
        await pilot.press("e", *"Mine ")
        draft = screen.editor.text
        workspace = Workspace(topics_state)
        theirs = workspace.read_topic("core.md").replace("Deploy only", "Ship only")
        assert save_topic(workspace, "core.md", theirs).outcome == "installed"
        await probe.until(lambda m: "core.md" in m.topics)
        await settle_until(pilot, settle, lambda: screen.editing_state.changed_on_disk)
        assert screen.editor.text == draft and screen.dirty
        assert any("changed on disk" in row for row in screen_lines(app)), "\n".join(screen_lines(app))
