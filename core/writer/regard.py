"""Between people, what one says of the other's part in one's own life, and a consolation.

Friends answer news with regard for each other: the other's support, faith or help valued
("Your support means a ton to me.", "Your faith in me is priceless!", "Your help matters to
me.", "I value your opinion!", "Not easy facing setbacks but I believe in you."), a gift
promised a place in the heart ("I'll cherish that little guy with all my heart!"), a
consolation after a loss ("That's okay, I'll get 'em next time!"), the other's news
likened to one's own kind ("It's just like when I win a video game tournament - it feels
awesome!": the tournaments were told when they were won). Each keeps the other company
and tells no fact of its own: what it answers, the other's turn said. people.py's
`keeps_company` asks `regards` after its own kinds.

A name, a number or a quoted title is not in any of these shapes; the patterns are cut so
that a sentence that says what the support was ("Your advice to post my dance videos got
me three new students") is not one: the regard must be the sentence's verb.
"""

from __future__ import annotations

import re

_THEIRS = r"(?:your|ur)\s+(?:(?:constant|continued|ongoing|unwavering|endless|kind|sweet)\s+)?"
_PART = (r"(?:support|faith|help|advice|words|belief|encouragement|kindness|friendship|opinion|feedback|input|"
         r"thoughts|trust|care|positivity|presence)")
# "Your support means a ton to me", "Your faith in me is priceless!", "Your help matters to me", "is a real boost"
_VALUED = re.compile(
    rf"^(?:(?:and|but|so|honestly|seriously)\W+)*{_THEIRS}{_PART}(?:\s+(?:in|for|to)\s+(?:me|us))?\s+"
    r"(?:(?:really|truly|totally|honestly|always|just)\s+)?(?:means?|meant|matters?|mattered|is|was|has been)\s+"
    r"(?:(?:so|such|really|truly|a|an|the|to me|the world)\s+)*(?:a ton|tons|heaps|loads|a lot|so much|everything|"
    r"the world|priceless|invaluable|(?:real |huge |big |great |major )?(?:boost|help|comfort|gift|blessing)|"
    r"appreciated|important|amazing|awesome|incredible)\b", re.I)
# "I value your opinion!", "I believe in you", "I'll cherish that little guy with all my heart!"
_HELD = re.compile(
    rf"\bi\s+(?:(?:really|truly|totally|so|still|always)\s+)*(?:value|treasure|appreciate)\s+{_THEIRS}{_PART}\b|"
    r"\b(?:i|i'm|i am)\s+(?:(?:really|truly|totally|still|always|so)\s+)*(?:believe|believing)\s+in\s+you\b|"
    r"\bwith all (?:my|our) hearts?\b", re.I)
# "That's okay, I'll get 'em next time!", "No worries, I'll nail it next time": a consolation
_NEXT_TIME = re.compile(r"\b(?:get|nail|win|beat|crush|do better|do it|make it)\b[^.!?]{0,12}\bnext time\b", re.I)
# "It's just like when I win a video game tournament", "That's like the time I ...": the other's news likened
_LIKENED = re.compile(r"^(?:(?:and|but|so|wow|oh)\W+)*(?:it's|it is|that's|that is|this is)\s+(?:just\s+|kind of\s+|"
                      r"sort of\s+|almost\s+|exactly\s+|a bit\s+)?like\s+(?:when|the time|that time|how)\s+(?:i|we)\b",
                      re.I)
_NAMED = re.compile(r"\d|[\"“”]")


def regards(said: str) -> bool:
    """A sentence of regard for the other, a consolation or a likening (see above); `said` as its
    speaker said it, first person."""
    said = said.replace("’", "'").strip()
    if _NAMED.search(said):
        return False
    return bool(_VALUED.match(said) or _HELD.search(said) or _NEXT_TIME.search(said) or _LIKENED.match(said))
