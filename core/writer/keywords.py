"""Words and key phrases of notes, for the offline model's grouping and topic names.

A content word is one that is neither a stop word nor conversational filler ("wow",
"awesome", "thanks"), at least three letters long or holding a digit. Words are
compared by their Snowball stem (PyStemmer), so "paintings" and "painting" are one
word. Chinese and Japanese are written without spaces: a run of such characters is cut
into adjacent pairs (bigrams), dropping pairs that hold a one-character stop word.

Key phrases are candidates in the RAKE manner (Rose et al., 2010): maximal runs of
content words, at most three, split at stop words and punctuation; identifiers (file
paths, dotted or snake_case names) stand alone. YAKE would fit too, but importing it
(networkx) costs over a second, more than a whole offline write may take.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df"
_CJK_RUN = re.compile(f"[{_CJK}]+")
# words, keeping identifiers whole: core/writer/model.py, Spotter.Telemetry.Otel, set_text_map
_TOKEN = re.compile(r"[^\W_](?:[\w'’]|[./\-:](?=[^\W_]))*", re.UNICODE)
_IDENTIFIER = re.compile(r"[./_]|[a-z][A-Z]|\d[A-Za-z]|[A-Za-z]\d")
_SLUG_UNSAFE = re.compile(r"[^\w-]+")


def word_count(text: str) -> int:
    """Words of a text, a run of CJK characters (written without spaces) as one word per two
    characters: "满足任一条件即可算热修复" is six words, not one."""
    runs = _CJK_RUN.findall(text)
    return len(_CJK_RUN.sub(" ", text).split()) + sum((len(run) + 1) // 2 for run in runs)

# Conversational filler: greetings, thanks, acknowledgements, interjections, empty
# praise and intensifiers. They carry no fact, so they are never content nor a key.
FILLER = frozenset("""
so oh and but btw also then now hey hi hello hiya howdy bye goodbye cheers thanks thank thx ty welcome please sorry ok okay okey k kk yes yeah yep
yup nope nah sure alright right fine wow whoa oh ooh ah aha aww awww hmm hm um uh umm haha hahaha lol lmao omg yay
woohoo hooray woah dang gosh geez jeez yikes congrats congratulations great good nice cool awesome amazing wonderful fantastic excellent perfect
brilliant lovely terrific incredible super superb neat sweet glad happy really truly totally absolutely definitely
certainly indeed quite pretty basically literally actually seriously honestly surely exactly anyway anyways well
also still even ever much lot lots things thing stuff something anything everything kind kinda sorta gonna wanna
gotta yeah sounds sound seems looks look let lets got get gets getting thanks appreciate appreciated love loved
hope hoping awesome inspiring inspired proud keep going way tell told glad enjoy enjoyed fun cute
""".split())


# words that make a bad subject for a block (verbs and adverbs found everywhere)
COMMON_WORDS = frozenset("""
went go goes going gone made make makes making need needs needed call called want wants wanted feel feels felt
take took taken come came see saw seen know knew think thought said say says tell try tried use used using start
started put give gave find found keep kept work worked working help helped show showed learn learned mean meant
decided decide add added adds create created fix fixed update updated configure configured remove removed
implement implemented wire wired set sets run runs check checked needs can time times day days today yesterday week weeks month months year years last next new first recently lately
able always never ever often sometimes usually wanted lot great people person guy guys life world
""".split())


@functools.lru_cache(maxsize=1)
def _stopwords() -> tuple[frozenset[str], frozenset[str]]:
    from .stopwords import STOPWORDS_CHINESE, STOPWORDS_EN_PLUS

    latin = STOPWORDS_EN_PLUS | {"i'm", "i've", "i'll", "i'd", "it's", "that's", "there's", "let's", "what's", "im",
                                 "ive", "youre", "dont", "doesnt", "would", "could", "might", "must", "shall", "may",
                                 "one", "two", "like", "yet"}
    return latin, STOPWORDS_CHINESE


@functools.lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    return _stemmer().stemWord(word.casefold())


def is_content(word: str) -> bool:
    """Whether a casefolded Latin word carries content (see the module docstring)."""
    latin, _ = _stopwords()
    bare = word.strip("'’")
    if bare in latin or bare in FILLER or bare.split("'")[0] in FILLER:
        return False
    return len(bare) >= 3 or any(ch.isdigit() for ch in bare)


def content_words(text: str) -> list[str]:
    """The content words of a text, casefolded, in order (CJK as bigrams)."""
    _, cjk_stop = _stopwords()
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = re.sub(r"['’]s$", "", match.group(0).casefold())
        pos = 0
        for run in _CJK_RUN.finditer(token):
            out.extend(w for w in _split_latin(token[pos:run.start()]) if is_content(w))
            chars = run.group(0)
            out.extend(chars[i:i + 2] for i in range(len(chars) - 1)
                       if chars[i:i + 2] not in cjk_stop and chars[i] not in cjk_stop and chars[i + 1] not in cjk_stop)
            pos = run.end()
        rest = token[pos:]
        if rest and _IDENTIFIER.search(match.group(0)[pos:]) and pos == 0:
            out.append(rest)  # an identifier is one content word
        else:
            out.extend(w for w in _split_latin(rest) if is_content(w))
    return out


def _split_latin(token: str) -> list[str]:
    return [w for w in re.split(r"[./\-:]", token) if w]


def stems(text: str) -> set[str]:
    """The stems of a text's content words (CJK bigrams as they are)."""
    return {stem(w) if not _CJK_RUN.search(w) else w for w in content_words(text)}


def phrases(text: str) -> list[str]:
    """Candidate key phrases of a sentence: runs of up to three content words, split at
    stop words, filler and punctuation; identifiers alone. Casefolded."""
    out: list[str] = []
    for clause in re.split(r"[,;:!?()\[\]\"“”]|\.(?:\s|$)| - | — ", text):
        run: list[str] = []
        for match in _TOKEN.finditer(clause):
            raw = re.sub(r"['’]s$", "", match.group(0))  # "user's listeners": the user's, not "user-s"
            word = raw.casefold()
            if _CJK_RUN.search(word):
                out.extend(content_words(word))
                run = _flush(run, out)
            elif _IDENTIFIER.search(raw) and len(raw) > 3:
                run = _flush(run, out)
                out.append(word.strip("./-:"))
            elif is_content(word) and not word.isdigit():
                run.append(word)
                if len(run) == 3:
                    run = _flush(run, out)
            else:
                run = _flush(run, out)
        _flush(run, out)
    return out


def _flush(run: list[str], out: list[str]) -> list[str]:
    if run:
        out.append(" ".join(run))
    return []


def keyphrases(texts: list[str]) -> list[tuple[str, float]]:
    """Key phrases of several texts, best first, RAKE-scored: a word scores its degree
    over its frequency, a phrase the sum of its words; a phrase found in several texts
    counts once per text. Ties: first seen first."""
    found = [phrases(t) for t in texts]
    freq: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for candidates in found:
        for phrase in candidates:
            words = phrase.split()
            for w in words:
                freq[w] += 1
                degree[w] += len(words)
    seen: dict[str, int] = {}
    order: dict[str, int] = {}
    for candidates in found:
        for phrase in dict.fromkeys(candidates):
            seen[phrase] = seen.get(phrase, 0) + 1
            order.setdefault(phrase, len(order))
    scored = {p: seen[p] * sum(degree[w] / freq[w] for w in p.split()) for p in seen}
    return sorted(scored.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def slug(keyword: str) -> str:
    """A file-name-safe form of a keyword (letters, digits, CJK and `-`)."""
    return _SLUG_UNSAFE.sub("-", keyword.casefold()).strip("-_")[:48] or "notes"
