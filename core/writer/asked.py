"""An answer that is a fragment takes its subject from the question.

"Where should they look?" "In the team vault under `staging/`, readable by the
`eng-staging` group." kept alone is a phrase about nothing: the note must say what is in
the vault. The question's own words give it, in a statement's order: an embedded clause
("… keep asking where the staging credentials live"), or a direct question whose subject
is a noun ("Where are the backups?" -> "the backups are"). Kept with the question instead,
the note would be a question followed by its answer; with the subject it is one sentence
that stands alone.
"""

from __future__ import annotations

import re

from .verbatim import lower_first, upper_first

# a place or a time, said without a clause: "In the team vault …", "Under `src/`", "On Tuesdays"
_PREPOSITIONS = frozenset("""
in inside within under at on from into to behind beside next near via through after before during until by every once
""".split())
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|does|do|did|should|must|will|would|can|could|may|might|"
                   r"shall|need|needs|goes|go|went|lives?|lived|sits?|stays?|runs?|ran)\b", re.I)
_CODE = re.compile(r"`[^`\n]*`")
_SUBJECTS = frozenset("i you he she we they".split())  # "In CI, we clean …": a clause after all
_PRONOUN = frozenset("i you he she it we they this that these those there one someone".split())
_WH = r"(?:where|when)"
# "… keep asking where the staging credentials live", "I don't know when the window opens."
_EMBEDDED = re.compile(rf"\b(?:ask(?:s|ed|ing)?|know(?:s|n)?|wonder(?:s|ed|ing)?|tell (?:me|us|them)|find out|"
                       rf"sure|remember|forgot|forget)\s+{_WH}\s+(?P<clause>[^?.!;:,]{{3,80}}?)\s*[.?!]?$", re.I)
# "Where are the backups?", "When is the release window?"
_DIRECT = re.compile(rf"^(?:so,?\s+|and\s+)?{_WH}\s+(?P<verb>is|are|was|were)\s+(?P<subject>[^?]{{3,60}}?)\s*\?$", re.I)


def fragment(answer: str) -> bool:
    """Whether a note is a place or a time without a clause of its own ("In the team vault
    under `staging/`, readable by …"): it opens with a preposition and its first part says no verb."""
    first = answer.split(" ", 1)[0].casefold()
    head = _CODE.sub(" ", re.split(r"[;.]", answer, maxsplit=1)[0])
    said = {w.casefold() for w in re.findall(r"[\w']+", head)}
    return first in _PREPOSITIONS and not _VERB.search(head) and not said & _SUBJECTS


def subject_clause(sentences: list[str]) -> tuple[str, int] | None:
    """The question's subject as a statement's start ("the staging credentials live"), and the
    index of the sentence it came from; None when the question names no subject but a pronoun."""
    for i in range(len(sentences) - 1, -1, -1):
        sentence = sentences[i].strip()
        m = _DIRECT.match(sentence)
        clause = f"{m.group('subject')} {m.group('verb').casefold()}" if m else None
        if clause is None and (m := _EMBEDDED.search(sentence)):
            clause = m.group("clause")
            if _VERB.match(clause):  # "where should they look": the question's own order, not a statement's
                continue
        if clause and clause.split(" ", 1)[0].casefold() not in _PRONOUN:
            return clause, i
    return None


def completed(answer: str, clause: str) -> str:
    """"the staging credentials live" + "In the team vault …" -> "The staging credentials live in the team vault …"."""
    return f"{upper_first(clause)} {lower_first(answer)}"
