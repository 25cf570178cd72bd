"""The verbs of a working session's steps: what the user asks to be made, what is a step of the work.

A request to make something ("Copy the tui components to modes/interactive") is kept, said
as the user's; one for a step of the work ("Read main.ts in full", "Run bd show x", "Start
with the first ready task") is done when the session ends. The note-taker (distil.py) and
the core's rule detector (standing.py) both read a sentence's first verb against these.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w'’]+")

# what to make: a request kept as the user's
DIRECTING = frozenset("""
add update replace close fix create remove rename move write implement mark build merge extract wire register apply
install edit delete refactor rewrite restore revert use make keep put copy change set call split combine consolidate
port convert document prepare design track store send include ensure modify integrate return export import adjust
switch drop pass cut limit simplify extend expose hide rework migrate specify define configure enable disable generate
upgrade bump pin declare introduce restructure reorganize
""".split())
# a step of the work, done when the session ends
PROCESS = frozenset("""
read run check look continue proceed start try go wait stop see explain tell show analyze analyse review explore
investigate search find think ultrathink commit push stage verify test open let give summarize summarise list print
figure debug compare describe clarify answer work do tackle focus follow
""".split())
# what to do in a tool ("Search: `x`", "Try toggling ..."): advice for now, not what a thing is
ADVICE = frozenset({"search", "toggle", "try", "click", "press", "select", "navigate", "scroll", "type", "enter"})


def first_word(text: str) -> str:
    """The sentence's first word, case-folded ("" for none)."""
    first = _WORD.match(text)
    return first.group(0).casefold() if first else ""
