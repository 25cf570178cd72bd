"""Between people, a photo shown: the showing is no fact, what the photo is of may be one.

Friends share pictures as they talk, and say so: "Here's a pic from last week.", "Check
out this pic I got a while back!", "Here ya go, a pic of my cork board.", "Here, look at
this cute pic - walking them always reminds me to enjoy the small stuff!", "Looky here, I
got this new pup for you!". The picture itself never reaches the notes (its caption is not
what was said), so what the showing says is only that there was one. Kept as a note, it
costs a sentence and a footnote and tells nothing a search can use.

What the photo is of, or where and when it was taken, may be a fact ("Here's a photo of
my horse painting I did recently", "I took that pic on a hike last summer near Fort
Wayne", "Here's a pic from last Friday with some veterans"): that stays. So:

* a clause that only shows ("Here, look at this cute pic", "Looky here", "here's a pic of
  him") goes from the sentence it leads or trails (`without_showing`);
* a thing shown with what the speaker did to it ("Here's a recent self-portrait I made
  last week.", "Check out these kids I met at the shelter!") is said as what the speaker
  did: "I made a recent self-portrait last week.", "I met these kids at the shelter!" (a
  photo of the thing, "Here's a photo of my horse painting I did recently", is left as
  said: its caption, and the photo's word keeps a reply about the other's horses from
  reading as an echo of them);
* a sentence about a photo with nothing of its own beside the photo, the showing, its
  taking and a time ("Here's a pic from last week.", "Tim took this pic last summer.",
  "The pic takes me back.") is no note (`only_shows`).
"""

from __future__ import annotations

import re

from .keywords import COMMON_WORDS, content_words
from .verbatim import upper_first

_PHOTO = (r"(?:pics?|pic's|pictures?|photos?|photo's|photographs?|snaps?|snapshots?|shots?|images?|selfies?|peek|"
          r"screenshots?)")
# the showing: "Here's", "Here ya go", "Check out", "Look at", "Take a look at", "Looky here"
_SHOW = (r"(?:here(?:'s| is| are)|here (?:ya|you) go|look(?:y)? here|check (?:out|this|these|it out)|"
         r"(?:take a |have a )?look at|here)")
_LEAD_WORDS = r"(?:(?:oh|and|so|also|btw|by the way|anyway|well|plus|on another note|speaking of which)\W+)*"
# a clause that is the showing alone, or a photo shown with at most how it looks:
# "Here ya go", "Looky here", "Here, look at this cute pic", "here's a pic of him", "check it out"
_SHOWING_CLAUSE = re.compile(
    rf"^{_LEAD_WORDS}(?:{_SHOW}(?:\W+(?:look at|check out))?(?:\s+(?:a|an|this|that|these|those|my|our|the|some)"
    rf"(?:\s+\w+)?\s+{_PHOTO}(?:\s+of\s+(?:it|him|her|them|us|me|this|that|these|those))?|"
    rf"\s+(?:this|that|these|those|it|them))?|"
    rf"(?:a|an|this|that|my|our)\s+(?:\w+\s+)?{_PHOTO}(?:\s+of\s+(?:it|him|her|them|us|me|this|that))?)"
    rf"\W*$", re.I)
# a clause boundary a showing leads or trails: "Here, look at this cute pic - walking them ...", "Max- here's ..."
_BOUNDARY = re.compile(r"(\s*[-–—]+\s+|\s*;\s+|,\s+|:\s+)")
# "Here's a pic of a cake I made recently", "Check out these kids I met at the shelter": what the speaker did
_SHOWN_DONE = re.compile(
    rf"^{_LEAD_WORDS}{_SHOW}\s+(?!(?:a|an|this|that|these|those|some)\s+(?:\w+\s+)?{_PHOTO}\b)"
    r"(?P<thing>(?:a|an|the|my|our|this|that|these|those|some|one of (?:my|our|the))\b"
    r"(?:(?!\b(?:when|where|while|from|after|before|because|since|if|with)\b)[^,;:.!?]){1,50}?)\s+"
    r"(?:that |which )?(?P<who>I|we)\s+(?P<did>(?:(?:just|recently|finally|also)\s+)?"
    r"(?:\w+ed|made|did|took|got|drew|wrote|built|bought|found|met|saw|caught|grew|won|baked|sewed|knit))\b"
    r"(?P<rest>[^,;:.!?…]*)(?P<end>[.!…]*)\s*$", re.I)
# words of the photo, its showing and its taking, and of when: what a sentence about a photo may hold and tell nothing
_PHOTO_WORDS = frozenset("""
pic pics picture pictures photo photos photograph photographs snap snaps snapped snapshot snapshots shot shots image
images selfie selfies peek screenshot screenshots took taken take takes taking captured capture got shared share
sent send showed show shown look looks looking looky check here back while ago last week weekend month year summer
winter spring fall autumn morning night yesterday today recent recently earlier cute cool nice awesome lovely
beautiful gorgeous amazing great special reminds remind reminded remember memories memory cherish cherished ya
""".split())
_NAMED = re.compile(r"\d|[\"“”]")
_CAPITAL = re.compile(r"(?<!^)(?<![.!?…]\s)(?<![\w'’])(?!I\b|I['’])[A-Z][\w'’]*")


def _telling(said: str) -> bool:
    """Enough left to be a note on its own (distil's two content words beside the common verbs): "I got
    this new pup for you!" is not, so "Looky here, ..." stays with it; the photo's words made the two."""
    return len([w for w in content_words(said) if w not in COMMON_WORDS]) >= 2 or bool(_NAMED.search(said))


def _mentions_photo(clause: str) -> bool:
    return bool(re.search(rf"\b{_PHOTO}\b", clause, re.I)) or bool(re.match(rf"^{_LEAD_WORDS}{_SHOW}\b", clause, re.I))


def only_shows(said: str) -> bool:
    """A sentence about a photo that says nothing beside it: only the showing, the photo, its taking,
    how it looks and a time ("Here's a pic from last week.", "Check out this pic I got a while back!")."""
    said = said.replace("’", "'").strip()
    if not _mentions_photo(said) or _NAMED.search(said) or _CAPITAL.search(said):
        return False
    if _SHOWING_CLAUSE.match(said):
        return True
    if not re.search(rf"\b{_PHOTO}\b", said, re.I):  # "Check out my painting for the art show!": the thing shown
        return False
    return not [w for w in content_words(said) if w not in _PHOTO_WORDS and w not in COMMON_WORDS]


def without_showing(sentence: str) -> str:
    """The sentence without the clause that only shows a photo, when another clause tells something
    ("Here, look at this cute pic - walking them always reminds me ..." -> "Walking them always reminds
    me ..."), and a thing shown with what the speaker did said as the deed ("Here's a pic of a cake I made
    recently!" -> "I made a cake recently!")."""
    said = sentence.replace("’", "'")
    done = _SHOWN_DONE.match(said)
    if done:
        thing = done.group("thing")
        thing = thing[:1].lower() + thing[1:]  # it starts with a determiner: "a", "these", "one of my"
        rest = done.group("rest").rstrip()
        deed = f"{done.group('who')} {done.group('did')} {thing}{rest}{done.group('end') or '.'}"
        return deed if _telling(deed) else sentence
    parts = _BOUNDARY.split(said)
    if len(parts) < 3:
        return sentence
    clauses = parts[0::2]
    keep = [not _SHOWING_CLAUSE.match(c.strip()) for c in clauses]
    if all(keep) or not any(keep) or not _telling(" ".join(c for c, k in zip(clauses, keep) if k)):
        return sentence
    out = ""
    for i, clause in enumerate(clauses):
        if keep[i]:
            out += (parts[2 * i - 1] if out else "") + clause
    out = out.strip(" ,;:-–—")
    end = said.rstrip()[-1:]
    if out and out[-1] not in ".!?…" and end in ".!?…":
        out += end
    return upper_first(out) if out else sentence
