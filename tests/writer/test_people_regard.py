"""Between people, regard for the other's part in one's life, a consolation and a likening are
no notes (core/writer/regard.py); a casual "didn't" is something that happened (LoCoMo 30, 42)."""

from __future__ import annotations

from .test_people_shown import people


def test_the_others_support_valued_is_no_note_but_what_it_did_is(tmp_path):
    text = people(tmp_path, [
        ("user", "I opened my dance studio on Main Street last month."),
        ("assistant", "Your support means a ton to me. Your faith in me is priceless!"),
        ("user", "Not easy facing setbacks but I believe in you."),
        ("assistant", "Thanks! I value your opinion! I'll cherish that little guy with all my heart!"),
        ("user", "Your advice to post my dance videos got me new students from the college."),
    ])
    assert "dance studio on Main Street" in text and "got Caroline new students from the college" in text, text
    for company in ("a ton", "priceless", "believe", "opinion", "heart"):
        assert company not in text, (company, text)


def test_a_consolation_and_a_likening_are_no_notes_but_the_loss_is(tmp_path):
    text = people(tmp_path, [
        ("user", "How did the tournament go?"),
        ("assistant", "Hey Caroline, thanks! Tough tournament, didn't make it to the finals. But that's okay, "
                      "I'll get 'em next time!"),
        ("user", "Putting yourself out there is brave. It's just like when I win a chess tournament - it feels awesome!"),
        ("assistant", "Chase those dreams, buddy! Just remember that sometimes stumbling blocks can be opened doors."),
        ("user", "Just keep their tank clean, feed them properly, and make sure they get enough light."),
    ])
    assert "didn't make it to the finals" in text, text
    assert "keep their tank clean, feed them properly" in text, text  # a how-to, not a wish
    for company in ("next time", "just like when", "chess tournament", "dreams", "stumbling"):
        assert company not in text, (company, text)
