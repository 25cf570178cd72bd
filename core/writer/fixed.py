"""A problem the agent found and then fixed is not kept as the code's state (issue 24: "an
error and what fixed it"; "when a later turn corrects … an earlier statement, the later one
stands").

A working session's agent says what is wrong and goes on to fix it in the same turn: "I
found the issue! In `index.ts` on line 26, it's calling `createLogger()` as a function.
Let me fix this:". Kept as it was said, the note tells the next session that `index.ts`
still calls it. What the fix was is in the edit, not in the words; the note says that it
was fixed: "In `index.ts` on line 26, it's calling `createLogger()` as a function (since
fixed)."; "I need to use shared sandbox mode. Let me fix the test setup." says how: "The LiveView process
can't access the SQL sandbox from the test process (fixed: use shared sandbox mode)."
"""

from __future__ import annotations

import re

# the agent's step of fixing what it just said ("Let me fix this:", "You're right, let me fix the
# progression …", "I'll correct that."), after a few words of chatter at most
_FIXING = re.compile(r"^(?:[\w'’]+[,!.]?\s+){0,3}?(?:let me|let's|i'll|i will|i need to|need to|now i'll)\s+"
                     r"(?:also\s+|now\s+|quickly\s+)?(?:fix|correct|repair)\b", re.I)
# what says a thing is wrong: in the note, or in the sentence before it ("I found the issue! In `index.ts` …")
_PROBLEM = re.compile(r"\b(?:not|never|no longer|wrong|incorrect\w*|broken|fail\w*|crash\w*|errors?|missing|issue|bug|"
                      r"problem|culprit|still|instead of|should|needs?)\b|n['’]t\b", re.I)
# the turn takes the user's correction ("You're absolutely right. `unsubscribeAll()` should only …"): what it
# says is how things are to be, not a problem
_TAKEN = re.compile(r"^\W*(?:you(?:'re| are) (?:\w+ )?right|good (?:catch|point|call)|fair point)\b", re.I)
# how: the step's own "by …" or "to …" ("Let me fix it by adding an alias:"), or the sentence before it ("I need to
# use shared sandbox mode. Let me fix the test setup.")
_BY = re.compile(r"\b(?:fix|correct|repair)\b[^:;]*?\s(?P<how>(?:by|to)\s+\S.*?)\s*[.:!]*$", re.I)
_NEED = re.compile(r"^(?:so,?\s+)?(?:i|we)\s+(?:need|have)\s+to\s+(?P<how>\S.*?)\s*[.!]*$", re.I)
MAX_HOW_WORDS = 16  # a longer "how" is a plan of its own, not the fix's name


def fixing(sentence: str) -> bool:
    """The agent's step of fixing what it said before in its turn."""
    return _FIXING.match(sentence.strip()) is not None


def problem(text: str) -> bool:
    """The sentence says that something is wrong."""
    return _PROBLEM.search(text) is not None


def takes_correction(turn_text: str) -> bool:
    """The agent's turn opens by taking the user's correction."""
    return _TAKEN.match(turn_text) is not None


def how(step: str, before: str) -> str:
    """What the fix was, as the turn says it ("by adding an alias", ": use shared sandbox mode"), or ""."""
    for pattern, lead, said in ((_BY, " ", step), (_NEED, ": ", before)):
        m = pattern.search(said)
        if m and len(m.group("how").split()) <= MAX_HOW_WORDS:
            return lead + m.group("how")
    return ""


def as_fixed(text: str, fix: str = "") -> str:
    """The statement of a problem, said as fixed (and how, when the turn says so)."""
    bare = text.rstrip(".!。 ")
    return text if bare.endswith(")") and "(fixed" in bare else f"{bare} (fixed{fix})."
