"""What nobody measured is not kept as fact (issue 24: the agent's working steps, hype and
role-play are not memory).

A working session's agent grades its own work and forecasts it, often through personas it
role-plays ("party mode": "Amelia (Developer)", "Winston (Architect)"): "Implementation
Confidence: 100%: … No unknowns, no assumptions, no guesswork", "VERDICT: SPEC IS 95% READY ✅",
"Spec is copy-paste ready.", "Test coverage is excellent.", "The exploration reveals a mature,
well-architected codebase …", "Reduction is 30x fewer file reads", "Real-time metrics:
Sub-100ms response time", "3-hour implementation". None of it was measured; the next session that
reads it as fact is misled. Such
a statement goes (a gathered list's item, or its label with the list when the label is the grade:
"Implementation Confidence: 100%: …"); a list mostly of them goes whole; a forecast trailing what a
statement says goes from it ("`matchesSessionPattern()` - Date filtering for 30x performance" is
"`matchesSessionPattern()` - Date filtering").

What was measured stays: a figure with its measurement ("100% line coverage" from the coverage
tool, "took 0.73 s", "the benchmark gives 1.2x", "1508 → 1362 lines"), a target that is a
decision ("Quality gate: 92% coverage target"), a figure said as an estimate ("Estimated
Implementation Time: 3-4 hours": what the plan says, said as what it is), a plain "ready" ("Ready for Development: Copy
code from spec to `src/agents/plugins/codex.metrics.ts`; …" says where the code goes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from .statements import join, split

# a grade of the work: confidence or readiness in per cent, a verdict, READY in capitals, "copy-paste ready",
# doubt denied ("no unknowns", "zero questions")
_GRADE = re.compile(
    r"\b(?i:confiden(?:ce|t))\b[^.;]{0,30}?\d+\s*%|\b\d+\s*%\s*(?i:confiden\w+|ready|implementation[- ]ready)\b|"
    r"^\W*(?i:verdict)\b|(?<![\w-])READY\b|\b(?i:copy[- ]paste|production|implementation)[- ](?i:ready)\b|"
    r"\b(?i:no|zero|0)\s+(?i:unknowns|guesswork|ambiguity|questions|assumptions)\b")
# praise of the work: "<the codebase|spec|architecture|…> is/shows/reveals <mature|excellent|…>"
_PRAISED = (r"mature|maturity|well[- ]architected|well[- ]designed|well[- ]structured|exceptional|excellent|elegant|"
            r"sound|impressive|beautiful|outstanding|thoughtful|high[- ]quality|production[- ]grade|world[- ]class|"
            r"rock[- ]solid")
_PRAISE = re.compile(
    rf"^\W*(?:the\s+|this\s+|our\s+|its\s+)?(?:[\w-]+\s+){{0,2}}?(?:exploration|analysis|review|codebase|code|architecture|"
    rf"design|implementation|spec|specification|solution|approach|test coverage|coverage|structure|project|plan)\s+"
    rf"(?:is|are|looks|seems|shows|reveals|demonstrates|has)\s+(?:an?\s+)?(?:(?:very|truly|highly|really|extremely|"
    rf"exceptionally|remarkably)\s+)?(?:[\w-]+,?\s+)?(?:{_PRAISED})\b", re.I)
# a forecast said as fact: a speed-up factor, "sub-100ms", an effort in hours (one that says it is an estimate,
# "Implementation Estimate: Total Effort: 15-23 developer days", is a plan's figure, said as what it is)
_ESTIMATE = re.compile(r"\b(?:estimat\w*|projected|expected|target)\b", re.I)
_FACTOR = re.compile(r"(?<![\w.#])~?\d+(?:\.\d+)?\s*[x×](?!\w)|\b(?i:sub)-\d+\s*(?:ms|s|µs)\b|"
                     r"\b(?i:in|takes?|within)\s+~\d+(?:-\d+)?\s*(?i:hours?|days?|minutes?)\b|"
                     r"\b\d+(?:-\d+)?[- ](?i:hours?|days?)\s+(?i:implementation|of work|effort)\b")
# a forecast trailing a statement of what the thing does ("`matchesSessionPattern()` - Date filtering for 30x
# performance", "date filtering with ~30x improvement", "Reduces filesystem traversal by ~30x"): the forecast goes
_FACTOR_TAIL = re.compile(r"\s+(?i:for|with|by|giving)\s+(?:(?i:an?)\s+)?~?\d+(?:\.\d+)?\s*[x×](?:\s+(?i:improvement|"
                          r"performance|speed-?up|faster|reduction|gain|fewer \w+|less \w+))?\s*$")
# a measurement said with the figure
_MEASURED = re.compile(r"\b(?:measured|benchmark\w*|bench|timed|profil\w+|took|ran in|median|mean|cpu|wall|"
                       r"observed|reported by|according to|output shows?)\b", re.I)


class _Noted(Protocol):
    text: str
    core: bool


N = TypeVar("N", bound=_Noted)


def unmeasured(piece: str) -> bool:
    """A grade, praise or forecast of the work that nobody measured."""
    if _GRADE.search(piece) or _PRAISE.search(piece):
        return True
    return not _MEASURED.search(piece) and not _ESTIMATE.search(piece) and bool(_FACTOR.search(piece))


def _without_forecast(piece: str) -> str:
    """The statement without a forecast trailing what it says (or as it was)."""
    bare = piece.rstrip(".!")
    cut = _FACTOR_TAIL.sub("", bare)
    return cut if cut != bare and len(cut.split()) >= 2 and not unmeasured(cut) else piece


def measured_only(notes: Sequence[N], rewrite: Callable[[N, str], N]) -> list[N]:
    """The notes without their grades, praise and forecasts: a statement, an item, or the list whose
    label is one or whose items mostly are; a forecast trailing a statement goes from it."""
    out: list[N] = []
    for note in notes:
        if note.core:
            out.append(note)
            continue
        label, items = split(note.text)
        if label and unmeasured(label[:-2]):
            continue  # "Implementation Confidence: 100%: …": the list is the grade's
        cut = [_without_forecast(p) for p in items]
        left = [p for p in cut if not unmeasured(p)]
        if left == items:
            out.append(note)
        elif left and len(left) * 2 >= len(items):
            out.append(rewrite(note, join(label, left)))
    return out
