"""The always-on core (DESIGN §7, formats §6).

`topics/core.md` is the canonical core, an ordinary topic with no size limit.
`core.md` at the workspace root is rendered from it after every install: chunks in
file order until the token budget (default 2000, o200k_base via
`scriptorium.core.tokens`, so `<|endoftext|>` in a topic is text, not an error) is
full. Overflow is never a rejection: the blocks left out are reported by id and stay
in the canonical file. A block resting on untrusted or unresolvable evidence is
withheld. The injection honours the `inject` setting and is fenced once in
`<memory-context>` (`scriptorium.core.fence`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..fence import core_injection
from ..tokens import count_tokens
from .sources import SourceIndex
from .topics import TopicDoc, is_relative_target, parse_cached, root_to_topic_rel, topic_rel_to_root

CORE_TOPIC = "core.md"
DEFAULT_BUDGET = 2000
_CHUNK_SPLIT = re.compile(r"\n\s*\n")
_CHUNK_ID = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")
_DEFINITION_START = re.compile(r"^\[\^[A-Za-z0-9_-]+\]:")


@dataclass
class CoreRender:
    text: str  # what core.md holds
    budget: int
    tokens: int
    omitted: list[str] = field(default_factory=list)  # block ids past the budget
    withheld: list[str] = field(default_factory=list)  # block ids citing untrusted evidence

    @property
    def left_out(self) -> list[str]:
        return self.withheld + self.omitted


def _rebase_to_root(doc: TopicDoc) -> str:
    """The canonical text with relative links made relative to the workspace root."""
    return _rebased(doc, lambda target: topic_rel_to_root(doc.path, target))


def _rebased(doc: TopicDoc, rebase: Callable[[str], str]) -> str:
    edits = []
    for p in doc.paragraphs:
        edits += [(p.offset + link.target_start, p.offset + link.target_end, link.target)
                  for link in p.links if is_relative_target(link.target)]
    for d in doc.definition_list:
        edits += [(d.offset + s.target_start, d.offset + s.target_end, s.target)
                  for s in d.sources if is_relative_target(s.target) and "#" in s.target]
    text = doc.text
    for start, end, target in sorted(edits, reverse=True):
        text = text[:start] + rebase(target) + text[end:]
    return text


def promoted_legacy_core(root_text: str) -> str | None:
    """A root `core.md` from before `topics/` existed, as the text of `topics/core.md`
    (formats §4.6: links rebased from the root into topics/); None unless it parses."""
    text = _rebased(parse_cached(CORE_TOPIC, root_text), lambda target: root_to_topic_rel(CORE_TOPIC, target))
    if any(issue.rule == "parse" for issue in parse_cached(CORE_TOPIC, text).issues):
        return None
    return text


def _chunks(text: str) -> list[tuple[str, str | None]]:
    chunks: list[tuple[str, str | None]] = []
    for raw in _CHUNK_SPLIT.split(text):
        block = raw.strip("\n")
        if not block.strip():
            continue
        if chunks and _DEFINITION_START.match(block.lstrip()):
            previous, bid = chunks[-1]
            chunks[-1] = (f"{previous}\n\n{block}", bid)
            continue
        found = _CHUNK_ID.search(block)
        chunks.append((block, found.group(1) if found else None))
    return chunks


def _withheld(doc: TopicDoc, sources: SourceIndex) -> set[str]:
    """Blocks citing any source that is pending or does not resolve: one claim, one trust."""
    out: set[str] = set()
    for p in doc.blocks:
        for c in p.citations:
            d = doc.definitions.get(c.id)
            frames = [sources.resolve(topic_rel_to_root(doc.path, s.target)) for s in d.sources] if d else [None]
            if any(f is None or not f.trusted for f in frames):
                out.update(p.ids)
                break
    return out


def render_core(doc: TopicDoc, budget: int, sources: SourceIndex,
                count: Callable[[str], int] = count_tokens) -> CoreRender:
    """`count`: exact token counts (a `CountCache`'s, so unchanged chunks need no tokenizer)."""
    withheld = _withheld(doc, sources)
    kept: list[str] = []
    result = CoreRender("", budget, 0)
    chunks = _chunks(_rebase_to_root(doc))
    for index, (chunk, bid) in enumerate(chunks):
        if bid is not None and bid in withheld:
            result.withheld.append(bid)
            continue
        size = count(chunk) + (1 if kept else 0)  # the blank line joining chunks
        if result.tokens + size > budget:
            result.omitted += [b for _c, b in chunks[index:] if b and b not in withheld]
            break
        kept.append(chunk)
        result.tokens += size
    # Token counts of pieces need not add up exactly; the whole is what must fit.
    while kept and count("\n\n".join(kept) + "\n") > budget:
        dropped = _CHUNK_ID.search(kept.pop())
        if dropped:
            result.omitted.insert(0, dropped.group(1))
    result.text = "\n\n".join(kept).rstrip() + "\n"
    result.tokens = count(result.text)
    return result


def injection(rendered: str, inject: bool) -> str:
    """What goes into the system prompt (`scriptorium.core.fence.core_injection`)."""
    return core_injection(rendered, inject)
