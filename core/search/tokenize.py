"""Search tokens for English and CJK text (formats §7).

Words are runs of letters and digits (`[^\\W_]+`), casefolded. Chinese and Japanese are
written without spaces, so a "word" there is a whole clause; a word made entirely of
such characters also yields each character and each adjacent pair, which lets a query
match any part of the clause. A mixed word (`abc가나`) is left whole.

English stop words (Lucene's list, as bm25s ships it in `bm25s.stopwords.STOPWORDS_EN`;
copied here, because importing bm25s costs a quarter of a second and recall before an
agent's prompt must not pay it) are dropped: in a workspace of a few hundred blocks,
"is" and "the" would otherwise outrank the words that matter. Other words are reduced
to their Snowball English stem (PyStemmer, the C implementation bm25s itself uses), so
"tests", "tested" and "testing" all find "test". Index and query go through this same
function, so both sides always agree.

An identifier written in camelCase or PascalCase (`pendingMessageContainer`,
`AshComputer`, `HTTPServer`) also yields its parts: an engineer asks where "pending
messages" are shown, the session named the field. The whole word stays a token too, so
a query naming the identifier still matches it best. (snake_case and paths are split
already: `_` and `/` are no word characters.) `VERSION` names this scheme: a saved index
built by another is not reused.
"""

from __future__ import annotations

import re

import Stemmer

_WORD_RE = re.compile(r"[^\W_]+")
_UNSEGMENTED = (
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0002a6df"  # CJK extension B
    "\U0002f800-\U0002fa1f"  # CJK compatibility supplement
    "\u3040-\u309f"  # hiragana
    "\u30a0-\u30ff"  # katakana
    "\uac00-\ud7af"  # hangul syllables
)
_UNSEGMENTED_RE = re.compile(f"[{_UNSEGMENTED}]+")
STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
    "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
    "will", "with",
))
_STEMMER = Stemmer.Stemmer("english")
_CAMEL_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
VERSION = 2


def tokenize(text: str, *, parts: bool = True) -> list[str]:
    tokens: list[str] = []
    for match in _WORD_RE.finditer(text):
        word = match.group(0).casefold()
        if word in STOPWORDS:
            continue
        if _UNSEGMENTED_RE.search(word) is None:
            tokens.append(_STEMMER.stemWord(word))
            if parts:
                tokens.extend(_camel_parts(match.group(0)))
            continue
        tokens.append(word)
        if len(word) > 1 and _UNSEGMENTED_RE.fullmatch(word):
            tokens.extend(word)
            tokens.extend(word[i : i + 2] for i in range(len(word) - 1))
    return tokens


def _camel_parts(word: str) -> list[str]:
    """The stemmed parts of a camelCase / PascalCase word (none for a word of one case)."""
    if word.islower() or word.isupper() or word[1:].islower() or not word.isascii():
        return []
    parts = _CAMEL_RE.findall(word)
    if len(parts) < 2:
        return []
    return [_STEMMER.stemWord(part.casefold()) for part in parts if part.casefold() not in STOPWORDS]
