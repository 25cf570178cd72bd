"""The Search screen: BM25 hits as the engine ranks them (English and Chinese), enter opens
the block in the Topics screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.search import workspace_index
from scriptorium.tui.search.model import TOP_K
from scriptorium.tui.search.screen import SearchScreen
from scriptorium.tui.topics.screen import TopicsScreen
from scriptorium.tui.topics.block_inspector import BlockInspector
from scriptorium.tui.search.search_hits import SearchHits, query_terms

from .helpers import screen_lines
from .topics_support import topics_state_copy

pytestmark = pytest.mark.anyio


@pytest.fixture()
def topics_state(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return topics_state_copy(tmp_path_factory, tmp_path)


async def open_search(pilot, settle) -> SearchScreen:
    await settle(pilot)
    await pilot.app.switch_mode("search")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    return screen


@pytest.mark.parametrize("query", ["build cache", "部署"])
async def test_the_hits_are_the_engines(make_app, settle, topics_state: Path, query: str) -> None:
    expected = workspace_index(topics_state / "memory").search(query, top_k=TOP_K)
    assert expected
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot, settle)
        screen.search(query)
        await settle(pilot)
        hits = screen.query_one(SearchHits).hits
        assert [(h.block_id, h.path, h.line, h.score) for h in hits] == \
               [(h.block_id, h.path, h.line, h.score) for h in expected]
        text = "\n".join(screen_lines(app))
        for hit in expected:
            assert f"^{hit.block_id}" in text and f"{hit.path}:{hit.line}" in text and f"{hit.score:.3f}" in text


async def test_enter_on_a_hit_opens_its_block_in_topics(make_app, settle, topics_state: Path) -> None:
    app = make_app(topics_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot, settle)
        await pilot.press("slash", *"rust target")
        await settle(pilot)
        hit = screen.query_one(SearchHits).hits[0]
        assert hit.path == "topics/infra/build-cache.md"
        await pilot.press("enter")  # from the query to the hits
        await pilot.press("enter")  # open the highlighted hit
        await settle(pilot)
        topics = app.screen
        assert isinstance(topics, TopicsScreen)
        assert topics.path == "infra/build-cache.md"
        assert topics.view.paragraph is not None and topics.view.paragraph.block_id == hit.block_id
        assert topics.query_one(BlockInspector).view.block_id == hit.block_id


async def test_no_topics_no_search_and_nothing_written(make_app, settle, tmp_path: Path) -> None:
    app = make_app(tmp_path / "fresh")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot, settle)
        screen.search("cache")
        await settle(pilot)
        assert any("No topics yet" in row for row in screen_lines(app))
    assert not (tmp_path / "fresh" / "memory").exists()


def test_query_terms_light_words_and_cjk_pairs() -> None:
    assert query_terms("Build the cache!") == ["build", "cache", "the"]
    assert set(query_terms("部署窗口")) == {"部署", "署窗", "窗口"}
    assert query_terms("a 部") == ["部"]  # one Latin letter lights too much; one CJK character is a word


@pytest.mark.parametrize("query", ["build cache", "部署"], ids=["english", "chinese"])
def test_search_results(snap_compare, make_app, settle, terminal_size, topics_state: Path, query: str) -> None:
    async def run_before(pilot) -> None:
        screen = await open_search(pilot, settle)
        screen.search(query)
        await settle(pilot)

    assert snap_compare(make_app(topics_state), terminal_size=terminal_size, run_before=run_before)


def test_search_results_at_80x24(snap_compare, make_app, settle, topics_state: Path) -> None:
    test_search_results(snap_compare, make_app, settle, (80, 24), topics_state, "build cache")
