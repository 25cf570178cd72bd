"""Between people, a photo shown is no note, what it is of may be one (core/writer/shown.py):
the showing alone ("Here's a pic from last week.", "Check out this pic I got a while back!") is
no block; a showing that leads or trails a clause goes from it; a thing shown with what the speaker
did is said as the deed; a caption with a place or a name stays (LoCoMo 26, 41-43)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from scriptorium.core.memory import parse_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish

from .conftest import tree


def people(tmp_path: Path, said: list[tuple[str, str]]) -> str:
    """The text of every block the offline writer keeps of Caroline (user) and Melanie talking."""
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("friends", speakers={"user": "Caroline", "assistant": "Melanie"})
    start = datetime(2023, 7, 3, 13, 14, tzinfo=timezone.utc).timestamp()
    with store.batch(sid, message="friends"):
        for i, (role, text) in enumerate(said):
            store.append(sid, role, text, node_id=f"t{i + 1}", created_at=start + i)
    assert finish(store, sid).outcome == "ok"
    blocks = []
    for path, data in tree(store.state_dir / "memory").items():
        if path.startswith("topics/"):
            blocks += [" ".join(b.content.split()) for b in parse_topic(path[len("topics/"):], data.decode()).blocks]
    return "\n".join(blocks)


def test_a_photo_shown_without_anything_said_of_it_is_no_note(tmp_path):
    text = people(tmp_path, [
        ("user", "I adopted a rescue greyhound named Biscuit from the shelter on Maple Road."),
        ("assistant", "Thanks, Caroline! On another note, check out this pic I got a while back!"),
        ("user", "Building relationships really does make a difference. Here's a pic from last week."),
        ("assistant", "I took this pic last summer."),
        ("user", "The pic takes me back."),
        ("assistant", "My brother started a bakery downtown that sells sourdough."),
    ])
    assert "greyhound named Biscuit" in text and "bakery downtown that sells sourdough" in text, text
    for shown in ("pic", "a while back", "last summer", "takes"):
        assert shown not in text, (shown, text)


def test_the_showing_goes_from_the_clause_it_leads_or_trails(tmp_path):
    text = people(tmp_path, [
        ("user", "My turtles love their walks. Here, look at this cute pic - walking them always reminds me to "
                 "enjoy the small stuff!"),
        ("assistant", "Some days I'm always still thinking about my old dog Max- here's a pic of him."),
    ])
    assert "Walking them always reminds Caroline to enjoy the small stuff!" in text, text
    assert "thinking about Melanie's old dog Max." in text, text
    assert "look at" not in text and "pic" not in text, text


def test_a_thing_shown_with_what_the_speaker_did_is_said_as_the_deed(tmp_path):
    text = people(tmp_path, [
        ("user", "Painting's great for expressing myself. Here's a recent self-portrait I made last week."),
        ("assistant", "Wow! Check out these kids I met at the shelter downtown!"),
    ])
    assert "Caroline made a recent self-portrait" in text, text
    assert "Melanie met these kids at the shelter downtown!" in text, text
    assert "Here's" not in text and "Check out" not in text, text


def test_a_caption_that_says_where_or_what_stays(tmp_path):
    text = people(tmp_path, [
        ("user", "Thanks! I took this photo at a beautiful location called Whispering Falls."),
        ("assistant", "Here's a photo of my horse painting I did recently."),
        ("user", "The photo is from a forest near my hometown."),
    ])
    assert "Caroline took this photo at a beautiful location called Whispering Falls." in text, text
    assert "horse painting Melanie did recently" in text, text
    assert "forest near Caroline's hometown" in text, text
