"""A query's search tokens: the index's tokens less the words that only make it a question.

"When did Caroline go to the support group?" asks about Caroline, going and the support
group; "when" and "did" occur in thousands of chat turns that have nothing to do with it,
and BM25+ still gives them weight (the index keeps them: a statement's "did" can matter
when it is typed as a keyword). So a query drops question words, auxiliaries, the hedges
of a question asking for a guess ("would Caroline likely ...": rare in chat, so weighty
and wrong) and pronouns, unless nothing else is left. Measured on LoCoMo's tuning
conversations, `search` top 5 by words alone: 0.724 -> 0.740 (bench/RESULTS.md).
"""

from __future__ import annotations

from .tokenize import tokenize

_QUESTION_WORDS = (
    "what when where who whom whose which why how "
    "do does did done doing has have had having was were is are am be been being "
    "would could should can will shall may might must likely probably possibly "
    "i me my you your he him his she her it its we us our they them their"
)
QUESTION_TOKENS = frozenset(t for word in _QUESTION_WORDS.split() for t in tokenize(word))


def query_tokens(query: str) -> list[str]:
    """The tokens a query is ranked by (all of them when it is nothing but question words)."""
    tokens = tokenize(query, parts=False)
    kept = [t for t in tokens if t not in QUESTION_TOKENS]
    return kept or tokens
