"""A verb agrees with the name that replaced "I" or "you" in a note, and a dated block's
first word reads on after its date."""

from __future__ import annotations

import pytest

from scriptorium.core.writer.distil import Block, Turn, distil


def notes(text: str, speaker: str = "John", other: str = "Tim") -> list[str]:
    return [n.text for n in distil([Turn("r1", "user", speaker, other, text, "2023-05-21")])]


@pytest.mark.parametrize(("said", "kept"), [
    ("I really admire how hard my coach works on the fundamentals.", "John admires how hard"),
    ("I still think about the trip to the coast we took in April.", "John still thinks about the trip"),
    ("I usually cook pasta for the whole team on Friday nights.", "John usually cooks pasta"),
    ("I probably also have loads of books I haven't read in years.", "John probably also has loads of books"),
    ("I recently saw a movie that blew my mind with all its twists.", "John recently saw a movie"),
    ("I apply for jobs every week at the studio downtown.", "John applies for jobs every week"),
    ("I always collect the jerseys of the teams I play against.", "John always collects the jerseys of the teams John plays"),
])
def test_a_present_verb_after_i_agrees_past_its_adverbs(said, kept):
    assert any(kept in n for n in notes(said)), notes(said)


@pytest.mark.parametrize(("said", "kept"), [
    ("Unfortunately, I can't have dairy, so no ice cream for me.", "John can't have dairy"),
    ("Yeah it's a bummer that I didn't do well in the tournament.", "John didn't do well"),
    ("It was an adrenaline rush, and I couldn't have done it without them.", "John couldn't have done it"),
    ("I first watched it around 2019 with my sister at the cinema.", "John first watched it"),
    ("I sort of made it up on the spot so I don't have a recipe.", "John sort of made it up"),
])
def test_a_negated_modal_or_past_and_a_hedge_are_left_as_said(said, kept):
    assert any(kept in n for n in notes(said)), notes(said)  # was "John can'ts", "John firsts", "John sorts of"


def test_a_group_keeps_its_plural_and_a_second_clause_its_own_verb():
    group = notes("The final was electric, and my teammates and I were thrilled with the win.")
    assert any("John's teammates and John were thrilled" in n for n in group), group
    clauses = notes("I love painting landscapes and I am going to the lake on Sunday to paint.")
    assert any("John is going to the lake" in n for n in clauses) and not any(" am " in n for n in clauses), clauses


def test_past_forms_and_ambiguous_forms_are_left_as_said():
    kept = notes("I put the trophy on the shelf and I bought a frame for the photo of my sister.")
    assert any("John put the trophy" in n and "John bought a frame" in n for n in kept), kept


def test_you_as_an_object_is_no_subject_to_inflect():
    kept = notes("I told you about the tournament in Denver because you really love basketball.", "Tim", "John")
    text = " ".join(kept)
    assert "Tim told John about the tournament" in text and "John loves basketball" in text, kept


def test_a_dated_block_does_not_raise_a_pronoun_after_its_date_but_keeps_a_name():
    turn = Turn("r1", "user", "Tim", "John", "x", "2023-10-02")
    (they,) = distil([Turn("r1", "user", "Tim", "John", "They really fire up my imagination about distant worlds.",
                           "2023-10-02")])
    assert Block([they], "", dated=True).text.startswith("On 2 October 2023, they ")
    (often,) = distil([Turn("r3", "user", "Nate", "Joanna", "Sometimes I even bring the turtles into the kitchen.",
                            "2022-04-17")])
    assert Block([often], "", dated=True).text.startswith("On 17 April 2022, sometimes Nate even brings"), often.text
    (named,) = distil([Turn("r2", "user", "John", "Tim", "John Wall signed with the Wolves for three seasons.",
                            turn.time)])
    assert Block([named], "", dated=True).text.startswith("On 2 October 2023, John Wall signed")


@pytest.mark.parametrize(("said", "kept"), [
    ("Guess what? Dyed my hair bright orange last week for the concert!", "Nate dyed Nate's hair bright orange"),
    ("Just been helping some friends fix their bikes at the repair cafe downtown.", "Nate has been helping some friends"),
    ("Finished the first draft of my screenplay about the lighthouse keeper.", "Nate finished the first draft"),
])
def test_a_casual_sentence_that_drops_its_i_gets_its_speaker_back(said, kept):
    assert any(n.startswith(kept) for n in notes(said, "Nate", "Joanna")), notes(said, "Nate", "Joanna")


def test_a_feeling_without_its_i_is_no_deed():
    assert not any(n.startswith("Nate excited") for n in notes("Excited for the season opener with the Wolves!", "Nate"))
