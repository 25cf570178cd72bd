"""A verb agrees with the name that replaced "I" or "you": "I really admire his work" is
"John really admires his work", "my teammates and I were thrilled" keeps "were".

The words are `re.split(r"(\\s+)", sentence)`: words at even places, the spaces between
them at odd ones, so the word after the one at `i` is at `i + 2`.
"""

from __future__ import annotations

import re

# "you" is an object as often as a subject ("I told you about it"), so after it only these
# verbs are inflected; after "I", always a subject, any present verb is.
PRESENT = frozenset("""
love like want need think know feel enjoy hope plan prefer use work live believe mean wish miss agree remember
understand play paint write teach study volunteer care find make take keep run own spend visit practice cook
read watch listen collect dance sing draw support suggest recommend admire appreciate
""".split())
IRREGULAR = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "haven't": "hasn't",
             "aren't": "isn't", "weren't": "wasn't"}
ADVERBS = frozenset("""
really still just also always never often usually actually totally definitely sometimes truly even only absolutely
honestly already kinda sorta especially mostly rarely seldom generally normally typically certainly completely fully
personally genuinely sincerely constantly regularly occasionally barely hardly literally seriously simply
maybe perhaps quite first once then now later soon
""".split())
_HEDGES = frozenset({"kind", "sort"})  # "I sort of made it up": "sort of" is stepped over like an adverb
# what follows "I" and is no present verb to inflect: modals, past forms, and the forms a
# present shares with its past ("I read", "I put"), which are left as said
NOT_PRESENT = frozenset("""
am are is was were had did can could will would shall should may might must ought used gotta wanna gonna
went got made took felt thought knew found gave came told said left met ran wrote bought brought built began became
sent spent kept lost saw heard held stood sat ate drank drove flew grew threw wore won taught caught fought sought
slept swam sang forgot understood meant paid laid sold fell broke chose spoke woke rode rose shook stole struck hung
led fed bent lent dealt dreamt learnt burnt
read put cut set let hit hurt quit cost bet shut spread fit beat
""".split())
_LY_VERBS = frozenset("apply reply rely supply fly comply multiply imply ally rally bully tally".split())
_GROUP = frozenset({"and", "or", "nor"})  # "my sister and I love it": the verb is the group's
_WORD = re.compile(r"[a-z]+(?:n't)?")


def agree(words: list[str], i: int, *, subject: str) -> None:
    """Make the verb after the pronoun at `words[i]` agree with a third-person name, in place.

    `subject`: "I" (any present verb after it is inflected) or "you" (only `PRESENT`'s);
    adverbs between the two are stepped over. A pronoun that ends its clause ("than I.")
    changes nothing, nor one in a group ("Tim and I were") but for "am"."""
    if split_punct(words[i])[1]:
        return
    group = _in_group(words, i)
    j = i + 2
    while j + 2 < len(words) and (is_adverb(words[j]) or words[j].casefold() in _HEDGES
                                  and words[j + 2].casefold() == "of"):
        j += 4 if words[j].casefold() in _HEDGES else 2
    if j >= len(words):
        return
    verb, trail = split_punct(words[j])
    low = verb.casefold().replace("’", "'")
    if low == "am":  # never a group's
        words[j] = "is" + trail
    elif group:
        return
    elif low == "are":
        words[j] = "is" + trail
    elif low == "were":
        words[j] = "was" + trail
    elif (inflected := inflect(verb, closed=subject != "I")) is not None:
        words[j] = inflected + trail


def is_adverb(word: str) -> bool:
    """ "really", "probably", "recently": the known ones and any other in "-ly" ("apply" is a verb)."""
    low = word.casefold()
    return low in ADVERBS or (low.endswith("ly") and low.isalpha() and low not in _LY_VERBS)


def _in_group(words: list[str], i: int) -> bool:
    """ "Tim and I", "my teammates and I": the pronoun ends a group of a few words with no
    verb or "I" of their own since the clause began ("I paint and I love it" is two clauses)."""
    if i < 2 or words[i - 2].casefold() not in _GROUP:
        return False
    before: list[str] = []
    for word in reversed(words[:i - 3:2]):
        core, trail = split_punct(word)
        if trail:
            break
        before.append(core.casefold())
    return 0 < len(before) <= 4 and not any(w == "i" or w in PRESENT or w in NOT_PRESENT for w in before)


def inflect(verb: str, *, closed: bool = True) -> str | None:
    """The third person singular of a present verb; None when `verb` is not one (`closed`:
    not one of `PRESENT`)."""
    low = verb.casefold().replace("’", "'")
    if low in IRREGULAR:
        return IRREGULAR[low]
    if low.endswith("n't"):  # "can't", "didn't", "won't": a modal's or a past's, the same after any subject
        return None
    if closed and low not in PRESENT:
        return None
    if not closed and low not in PRESENT and (
            not _WORD.fullmatch(verb) or low in NOT_PRESENT or is_adverb(verb) or low.endswith("ed")
            or (low.endswith("s") and not low.endswith(("ss", "us")))):  # "Part I covers": no verb of I's
        return None
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def split_punct(token: str) -> tuple[str, str]:
    """A word and the punctuation after it: "thrilled." -> ("thrilled", ".")."""
    m = re.match(r"^(.*?)([,.!?;:…)\"”’]*)$", token)
    return (m.group(1), m.group(2)) if m else (token, "")
