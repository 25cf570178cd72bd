"""Search hits: score, block id, where it lives, and its text with the query's words lit."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from scriptorium.core.sanitize import sanitize_line
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from scriptorium.core.search import Hit

TEXT_CHARS = 400
_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def query_terms(query: str) -> list[str]:
    """The words to light in a hit: each query word, and for CJK runs their characters'
    pairs (how search tokenizes them); longest first, so a longer match wins."""
    terms: set[str] = set()
    for word in _WORD.findall(query.casefold()):
        if _CJK.fullmatch(word) and len(word) > 1:
            terms.update(word[i:i + 2] for i in range(len(word) - 1))
        elif len(word) > 1 or _CJK.fullmatch(word):
            terms.add(word)
    return sorted(terms, key=lambda term: (-len(term), term))


def lit(text: str, terms: list[str], style: str = "bold $text-accent") -> Content:
    content = Content(text)
    if not terms:
        return content
    pattern = re.compile("|".join(re.escape(t) for t in terms), re.IGNORECASE)
    for match in pattern.finditer(text):
        content = content.stylize(style, match.start(), match.end())
    return content


def hit_content(hit: Hit, terms: list[str]) -> Content:
    text = sanitize_line(hit.text)
    if len(text) > TEXT_CHARS:
        text = text[:TEXT_CHARS - 1] + "…"
    where = f"^{hit.block_id}" if hit.kind == "block" else sanitize_line(hit.block_id)
    head = Content.assemble((f"{hit.score:7.3f}", "bold $text-warning"), "  ", (where, "reverse $text-primary"),
                            "  ", (f"{sanitize_line(hit.path)}:{hit.line}", "$muted-text"))
    return Content("\n").join([head, Content("         ") + lit(text, terms)])


class SearchHits(OptionList):
    """One option per hit, best first, separated by rules; the option id is the hit's index."""

    DEFAULT_CSS = """
    SearchHits { background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.hits: list[Hit] = []

    def show(self, hits: list[Hit], query: str) -> None:
        self.hits = list(hits)
        terms = query_terms(query)
        options: list[Option | None] = []
        for index, hit in enumerate(hits):
            options += [None] if index else []
            options.append(Option(hit_content(hit, terms), id=str(index)))
        self.set_options(options)
        if hits:
            self.highlighted = 0

    def hit_for(self, option: Option) -> Hit | None:
        return self.hits[int(option.id)] if option.id is not None else None
