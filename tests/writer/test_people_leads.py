"""Between people, how one has been, said before what happened ("I've been doing great - I won
...", "Things have been great - ..."), and a judgement of what is to come after a dash ("- it'll
be hectic but fun!") go from the note; what happened stays (core/writer/people.py, LoCoMo 42, 43)."""

from __future__ import annotations

from .test_people_shown import people


def test_how_one_has_been_goes_before_what_happened(tmp_path):
    text = people(tmp_path, [
        ("user", "I've been doing great - I won another regional chess tournament last week!"),
        ("assistant", "Lately, things have been great - I've been focusing on school and reading fantasy books."),
        ("user", "I'm organizing a gaming party two weekends later - it'll be hectic but fun!"),
        ("assistant", "I've been busy with the bakery - we opened a second shop in Leeds."),
    ])
    assert "Caroline won another regional chess tournament the week before 3 July 2023!" in text, text
    assert "Melanie has been focusing on school and reading fantasy books." in text, text
    assert "Caroline is organizing a gaming party two weekends later!" in text, text
    assert "Melanie has been busy with the bakery - we opened a second shop in Leeds." in text, text  # it says with what
    for mood in ("doing great", "been great", "hectic"):
        assert mood not in text, (mood, text)


def test_catching_up_before_a_but_goes_with_its_telling_you(tmp_path):
    """ "Haven't talked to you in a bit but wanted to let you know ..." has no punctuation after its
    catching-up: the "but" ends it (it was kept whole, LoCoMo 43)."""
    text = people(tmp_path, [
        ("user", "Hey Melanie! Haven't talked to you in a bit but wanted to let you know I bought a kayak in Oslo."),
    ])
    assert "Caroline bought a kayak in Oslo." in text, text
    assert "talked" not in text and "wanted" not in text, text
