"""Between people, a lesson drawn for everyone: a creed, whatever its first words.

people.py knows a creed by how it opens ("We can tackle life's challenges together!", "It's
all about the little things") and a verdict about life by having no one in it. Friends also
draw the lesson after a lead or through the moment just told, and those kept their place as
notes though they tell no one's day:
* the moment made a lesson: "It's moments like these that remind me how important it is to be
  kind", "Moments like that make me love sports" (the moment itself was the turn before);
* a group's creed behind a lead: "Working together, we can bring positive changes to the
  neighborhood", "If we stand together we can tackle any problems", "Change starts small, so
  with hard work, we can make something great" ("Maybe we can watch one of your movies
  together" is a plan: no lead, no creed);
* what beats everything: "Nothing beats getting together with loved ones for a good meal!",
  "There's nothing like the energy in a stadium during a game";
* "every step counts", "every little bit helps".
A name, a number or a quoted title makes it particular, and it stays.
"""

from __future__ import annotations

import re

_MOMENTS = re.compile(r"^(?:(?:and|but|so|yeah|honestly)\W+)*(?:it's |it is )?moments like (?:these|this|that|those)\b",
                      re.I)
_GROUP = re.compile(r"^(?:(?:working together|together|as a team|with hard work|if we [\w\s']{1,30}?)\W*|"
                    r"[^,]{1,40},\s*so\s+(?:with [^,]{1,20},\s*)?)(?:we|us)(?: all| both)? (?:can|could|will|'ll)\b",
                    re.I)
_BEATS = re.compile(r"^(?:nothing (?:beats|compares to|is better than)|there's nothing like|there is nothing like)\b", re.I)
_EVERY = re.compile(r"\bevery (?:little )?(?:step|bit|effort|act)(?: of \w+)? (?:counts|helps|matters)\b", re.I)
_NAMED = re.compile(r"\d|[\"“”]")
_CAPITAL = re.compile(r"(?<!^)(?<![.!?…]\s)(?<![\w'’])(?!I\b|I['’])[A-Z][\w'’]*")


def creed(said: str) -> bool:
    """A lesson for everyone (see above); `said` as its speaker said it."""
    said = said.replace("’", "'").strip()
    if _NAMED.search(said) or _CAPITAL.search(said):
        return False
    return bool(_MOMENTS.match(said) or _GROUP.match(said) or _BEATS.match(said) or _EVERY.search(said))
