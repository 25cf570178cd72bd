"""Topic file names in the app: odd names on disk (not UTF-8, a hidden folder, a backslash,
an escape sequence) are skipped and said on the Topics screen, never a crash; every toast
shows a name through the sanitizer, never its raw escapes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scriptorium.tui.topics.topic_tree import TopicTree

from .helpers import open_topics, screen_lines, terminal_output
from .topics_support import topics_state_copy

pytestmark = pytest.mark.anyio

ODD = (b".trash/old.md", b"a\\b.md", b"bad\xff.md", b"esc\x1b[2J.md")


@pytest.fixture()
def odd_state(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    state = topics_state_copy(tmp_path_factory, tmp_path)
    topics = os.fsencode(state / "memory" / "topics")
    for name in ODD:
        path = os.path.join(topics, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(b"# Odd\n\nAn odd file.\n")
    return state


def toasts(app) -> list[str]:
    return [f"{n.title}\n{n.message}" for n in app._notifications]


def tree_labels(tree: TopicTree) -> list[str]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        out.append(str(node.label))
        stack.extend(node.children)
    return out


async def test_the_topics_screen_opens_with_odd_names_and_says_they_were_skipped(make_app, settle,
                                                                                 odd_state: Path) -> None:
    app = make_app(odd_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle)
        assert screen.listing is not None and len(screen.listing.skipped) == len(ODD)
        labels = tree_labels(screen.query_one(TopicTree))
        assert not [label for label in labels if "old.md" in label or "bad" in label or "esc" in label]
        [notice] = [t for t in toasts(app) if "skipped" in t]
        assert "4 files skipped" in notice and "\x1b" not in notice
        assert "\x1b[2J" not in terminal_output(app)
        assert any("4 skipped" in line for line in screen_lines(app))


async def test_a_toast_about_a_name_with_an_escape_shows_it_escaped(make_app, settle, odd_state: Path) -> None:
    app = make_app(odd_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_topics(pilot, settle)
        screen.open_topic("notes/x\x1b[2Jy.md")  # a link in a topic can name anything
        await settle(pilot)
        [toast] = [t for t in toasts(app) if "notes/" in t]
        assert "x\u241b[2Jy" in toast and "\x1b" not in toast and "control character" in toast
        assert screen.path == "core.md"  # nothing was opened

        app.notify("Saved topics/z\x1b]0;owned\x07.md", title="t\x9b2J")  # every toast goes through the sanitizer
        await settle(pilot)
        assert not [t for t in toasts(app) if "\x1b" in t or "\x07" in t or "\x9b" in t]
        assert "\x1b]0;owned" not in terminal_output(app)
