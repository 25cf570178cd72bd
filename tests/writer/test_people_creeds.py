"""Between people, a lesson drawn for everyone is no note, whatever its first words
(core/writer/creeds.py); a plan of the two ("Maybe we can watch one of your movies together")
and what the moment was stay (LoCoMo 41, 43)."""

from __future__ import annotations

from .test_people_shown import people


def test_a_lesson_for_everyone_is_no_note_but_a_plan_is(tmp_path):
    text = people(tmp_path, [
        ("user", "We handed out blankets at the shelter on Fifth Avenue on Saturday."),
        ("assistant", "It's moments like these that remind me how important it is to be kind and optimistic."),
        ("user", "Working together, we can bring positive changes to the neighborhood as a team."),
        ("assistant", "Change starts small, so with hard work, we can make something great."),
        ("user", "Nothing beats getting together with loved ones for a good meal!"),
        ("assistant", "It's a small step, but every step counts."),
        ("user", "Maybe we can watch one of your movies together or go to the park!"),
    ])
    assert "blankets at the shelter on Fifth Avenue" in text, text
    assert "watch one of Melanie's movies together or go to the park" in text, text
    for creed in ("moments like", "positive changes", "something great", "Nothing beats", "every step"):
        assert creed not in text, (creed, text)
