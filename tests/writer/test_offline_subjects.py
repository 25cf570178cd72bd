"""One person's one subject across sessions (issue 24, core/writer/subjects.py): a later
session's block about what an earlier block already tells sits right after it in the
person's topic, cited to its own turns and dated; a changed value (a move, a new job)
stands and the old one is marked as past. Through `finish` on sessions between people,
the topics read back from disk."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from scriptorium.core.memory import parse_topic
from scriptorium.core.search import SearchIndex, memory_get
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish

from .conftest import tree


def _session(store: SessionStore, name: str, day: tuple[int, int, int], said: list[tuple[str, str]]) -> None:
    sid = store.create_session(name, session_id=name, speakers={"user": "Caroline", "assistant": "Melanie"})
    start = datetime(*day, 13, 0, tzinfo=timezone.utc).timestamp()
    with store.batch(sid, message=name):
        for i, (role, text) in enumerate(said):
            store.append(sid, role, text, node_id=f"{name}-t{i + 1}", created_at=start + i)
    result = finish(store, sid)
    assert result.outcome == "ok", result.message


def _blocks(store: SessionStore) -> dict[str, list]:
    out = {}
    for path, data in tree(store.state_dir / "memory").items():
        if path.startswith("topics/"):
            doc = parse_topic(path[len("topics/"):], data.decode())
            assert doc.issues == [], doc.issues
            out[path[len("topics/"):]] = doc.blocks
    return out


def _first_sessions(store: SessionStore) -> None:
    _session(store, "s1", (2023, 5, 8), [
        ("user", "I signed up for a pottery class at the community center on Elm Street."),
        ("assistant", "My daughter started violin lessons with a teacher from Boston."),
        ("user", "I live in Sweden with my mom and two cats."),
        ("assistant", "We went camping at the lake with the kids last weekend."),
    ])
    _session(store, "s2", (2023, 6, 20), [
        ("user", "I adopted a puppy from the shelter downtown, she is called Luna."),
        ("user", "I started volunteering at the animal shelter on Saturdays."),
        ("assistant", "My son joined the school chess club and won his first game."),
    ])


def test_a_later_sessions_block_about_a_subject_sits_right_after_the_earlier_block(tmp_path):
    store = SessionStore(tmp_path / "state")
    _first_sessions(store)
    before = {p: [b.block_id for b in bs] for p, bs in _blocks(store).items()}
    pottery, puppy = _blocks(store)["people/caroline.md"]
    assert "pottery class" in pottery.content and "Luna" in puppy.content
    _session(store, "s3", (2023, 8, 14), [
        ("user", "I finished my first pottery bowl at the community center class yesterday!"),
        ("assistant", "I painted a sunset over the lake with my kids."),
    ])
    after = _blocks(store)
    for path, ids in before.items():  # every block is still there, with its id and its text
        assert set(ids) <= {b.block_id for b in after[path]}, path
    first, new, second = after["people/caroline.md"]
    assert (first.block_id, first.content, second.block_id) == (pottery.block_id, pottery.content, puppy.block_id)
    assert "Caroline finished Caroline's first pottery bowl at the community center class on 13 August 2023!" \
        in new.content, new.content
    view = memory_get(SearchIndex(store.state_dir / "memory", semantic=False), new.block_id)
    assert view is not None
    cited = {s.source_id.rsplit("/", 1)[-1]: c.time for c in view.citations for s in c.sources}
    assert cited == {"s3-t1": "2023-08-14", "s3-t2": "2023-08-14"}, cited


def test_a_third_sessions_block_about_the_subject_goes_after_the_second(tmp_path):
    store = SessionStore(tmp_path / "state")
    _first_sessions(store)
    _session(store, "s3", (2023, 8, 14), [
        ("user", "I finished my first pottery bowl at the community center class yesterday!"),
    ])
    _session(store, "s4", (2023, 9, 30), [
        ("user", "My pottery class at the community center ends next week, I glazed a vase."),
    ])
    texts = [b.content for b in _blocks(store)["people/caroline.md"]]
    assert ["pottery class at the community center on Elm Street" in texts[0], "pottery bowl" in texts[1],
            "glazed a vase" in texts[2], "Luna" in texts[3]] == [True] * 4, texts


def test_a_changed_home_stands_and_the_earlier_one_is_marked_past(tmp_path):
    store = SessionStore(tmp_path / "state")
    _first_sessions(store)
    _session(store, "s3", (2023, 9, 2), [
        ("user", "Big news: I moved to Boston last month, my new apartment is near the harbor."),
        ("assistant", "My daughter played violin at the school concert."),
    ])
    text = "\n".join(b.content for bs in _blocks(store).values() for b in bs)
    assert "Caroline lives in Sweden with Caroline's mom and two cats (until 2 September 2023)." in text, text
    assert "Caroline moved to Boston in August 2023" in text, text  # the new value stands
    assert "lives in Sweden with Caroline's mom and two cats." not in text.replace("(until 2 September 2023).", "")


def test_blocks_about_other_subjects_are_appended_in_order(tmp_path):
    """A later block that shares only everyday words with an earlier one (the people's
    names, "kids") goes at the end of the topic, as a session's blocks do."""
    store = SessionStore(tmp_path / "state")
    _first_sessions(store)
    before = {p: [(b.block_id, b.content) for b in bs] for p, bs in _blocks(store).items()}
    _session(store, "s3", (2023, 8, 14), [
        ("user", "I gave a talk about transgender rights at the town library."),
        ("assistant", "The kids and I baked banana bread for the neighbors."),
    ])
    after = {p: [(b.block_id, b.content) for b in bs] for p, bs in _blocks(store).items()}
    assert after["people/caroline.md"][:-1] == before["people/caroline.md"], after
    assert "banana bread" in after["people/caroline.md"][-1][1]
