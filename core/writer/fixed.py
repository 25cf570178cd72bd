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

A step that names what it fixes ("Let me fix the test to reflect reality.", "Let me fix
`get_current_trace_id()`.") fixed that: a note of the turn about something else is how things
are, the finding that showed the problem ("The subagent fixture doesn't actually contain any
`agent-xxx` patterns", "`current_span_ctx()` returns a span context directly (not wrapped in
`{:ok, ...}`)"), not the problem, unless it says it is the problem ("That's the bug - my code
was treating it as returning `{:ok, span_ctx}` …", after "I found the issue!"). A problem said in
the agent's turn before, that the fixing turn says again ("The issue is `color: "gray"` - should
be a function.", then "The color should be a function! Let me fix it:"), is fixed too; a guess
("The issue might be with the sqlite3 library …") is not.
"""

from __future__ import annotations

import re

from .keywords import stems
from .statements import split

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
# the sentence says it is the problem ("That's the bug - …", "The issue is that …", "I found the issue!")
_NAMES_ISSUE = re.compile(r"\b(?:that(?:'s| is)|this is|here(?:'s| is)|found|see|spotted)\s+the\s+(?:real\s+|actual\s+)?"
                          r"(?:bug|issue|problem|culprit|cause)\b|^\W*(?:so,?\s+)?(?:the|one|another)\s+(?:real\s+|actual\s+|main\s+)?"
                          r"(?:issue|problem|bug|cause|culprit)\s+(?:is|was|here)\b|\broot cause\b", re.I)
# what the step fixes, after its verb: up to its "by …" / "to …" or the sentence's punctuation
_OBJECT = re.compile(r"\b(?:fix|correct|repair)\s+(?P<what>(?:`[^`\n]+`|[^\s.:;,!?—–`]+)"
                     r"(?:\s+(?!(?:by|to|so|since|because|and|then|first|with|for|in|on|using|before|after)\b)"
                     r"(?:`[^`\n]+`|[^\s.:;,!?—–`]+))*)", re.I)
# an object that names nothing: a pronoun, a count, the problem itself
_NO_OBJECT = frozenset("""
it this that them these those both all everything each one ones the a an some any issue issues problem problems error
errors bug bugs properly manually quickly first now also too again here there thing things remaining rest few couple
two three four last other others same my our
""".split())
_HEDGED = re.compile(r"\b(?:might|may|could|probably|likely|perhaps|maybe|possibly|seems?|suspect|guess)\b|"
                     r"\bi (?:think|believe)\b", re.I)
_CODE = re.compile(r"`([^`\n]+)`")
_NOT_SHARED = frozenset({"issu", "problem", "error", "bug", "fix", "caus", "reason", "wrong", "incorrect", "line"})
MAX_HOW_WORDS = 16  # a longer "how" is a plan of its own, not the fix's name


def fixing(sentence: str) -> bool:
    """The agent's step of fixing what it said before in its turn."""
    return _FIXING.match(sentence.strip()) is not None


def names_issue(sentence: str) -> bool:
    """The sentence says that what it says (or what follows) is the problem."""
    return _NAMES_ISSUE.search(sentence) is not None


def target(step: str) -> set[str]:
    """The stems of what the step names as what it fixes ("the test", "`get_current_trace_id()`"),
    or none when it names nothing of its own ("Let me fix this:", "fix both", "fix the errors")."""
    m = _OBJECT.search(step)
    if m is None:
        return set()
    words = [w for w in re.findall(r"`[^`\n]+`|[\w'’-]+", m.group("what")) if w.casefold() not in _NO_OBJECT]
    return stems(" ".join(words)) if words else set()


def about(note: str, what: set[str]) -> bool:
    """The note says something of what the step fixes."""
    return bool(stems(note) & what)


def hedged(text: str) -> bool:
    """A guess, not a problem found: every statement of the note hedges ("The issue might be …")."""
    return all(_HEDGED.search(p) for p in split(text)[1])


def same_problem(earlier: str, later: str) -> bool:
    """Two notes say the same problem: a name in code both give, or two content stems besides
    the words any problem says ("The issue is `color: "gray"` - should be a function." and "The
    color should be a function!")."""
    if {c.casefold() for c in _CODE.findall(earlier)} & {c.casefold() for c in _CODE.findall(later)}:
        return True
    return len((stems(earlier) & stems(later)) - _NOT_SHARED) >= 2


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
