"""Keywords of a piece of text, for the offline model's choice of topic.

Latin-script words are taken whole (casefolded, stop words and short words dropped).
Chinese and Japanese are written without spaces, so a run of such characters is cut
into adjacent pairs (bigrams); pairs that are stop words or contain a one-character
stop word (的, 是, 了 ...) are dropped. Stop word lists come from bm25s.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df]+")
_SLUG_UNSAFE = re.compile(r"[^\w-]+")


@functools.lru_cache(maxsize=1)
def _stopwords() -> tuple[frozenset[str], frozenset[str]]:
    from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN_PLUS

    latin = frozenset(STOPWORDS_EN_PLUS) | {"also", "like", "yes", "okay", "thanks", "please", "sure", "well"}
    return latin, frozenset(STOPWORDS_CHINESE)


def keywords(text: str) -> list[str]:
    """Candidate keywords, most frequent first (ties: first seen first)."""
    latin_stop, cjk_stop = _stopwords()
    found: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0).casefold()
        pos = 0
        for run in _CJK.finditer(word):
            _latin(word[pos:run.start()], latin_stop, found)
            chars = run.group(0)
            for i in range(len(chars) - 1):
                pair = chars[i:i + 2]
                if pair not in cjk_stop and pair[0] not in cjk_stop and pair[1] not in cjk_stop:
                    found.append(pair)
            pos = run.end()
        _latin(word[pos:], latin_stop, found)
    counts = Counter(found)
    first = {w: i for i, w in reversed(list(enumerate(found)))}
    return sorted(counts, key=lambda w: (-counts[w], first[w]))


def _latin(word: str, stop: frozenset[str], out: list[str]) -> None:
    if len(word) >= 3 and word not in stop and not word.isdigit():
        out.append(word)


def slug(keyword: str) -> str:
    """A file-name-safe form of a keyword (letters, digits, CJK and `-`)."""
    return _SLUG_UNSAFE.sub("-", keyword).strip("-_")[:48] or "notes"
