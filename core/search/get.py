"""`memory_get`: one block with its citations — the paragraph, the footnote definitions
it cites, and for each cited source the record it resolves to."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..memory.sources import SourceIndex
from ..memory.topics import parse_cached, topic_rel_to_root
from .corpus import TOPICS
from .index import SearchIndex


@dataclass(frozen=True)
class SourceRef:
    label: str
    target: str
    source_id: str | None  # None when the target does not resolve to an archived record
    record: str | None  # the record's text


@dataclass(frozen=True)
class CitationView:
    id: str
    time: str | None  # None = undated
    sources: tuple[SourceRef, ...]


@dataclass(frozen=True)
class BlockView:
    block_id: str
    ids: tuple[str, ...]
    path: str
    line: int
    headings: tuple[str, ...]
    text: str  # the paragraph as written, then the definitions it cites
    citations: tuple[CitationView, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def memory_get(index: SearchIndex, block_id: str) -> BlockView | None:
    doc = index.locate(block_id.removeprefix("^"))
    if doc is None:
        return None
    memory = index.memory
    text = (memory / doc.path).read_text(encoding="utf-8", errors="replace")
    topic = parse_cached(doc.path.removeprefix(f"{TOPICS}/"), text)
    paragraph = next((p for p in topic.blocks if block_id.removeprefix("^") in p.ids), None)
    if paragraph is None:  # the file changed between refresh and read
        return None
    cited = list(dict.fromkeys(c.id for c in paragraph.citations))
    definitions = [topic.definitions[c] for c in cited if c in topic.definitions]
    sources = SourceIndex(memory)
    citations = tuple(
        CitationView(d.id, d.when, tuple(_source(sources, topic.path, s.label, s.target) for s in d.sources))
        for d in definitions
    )
    lines = [paragraph.text, ""] + [topic.lines[d.index] for d in definitions] if definitions else [paragraph.text]
    return BlockView(paragraph.block_id or block_id, paragraph.ids, doc.path, paragraph.line, paragraph.headings,
                     "\n".join(lines), citations)


def _source(sources: SourceIndex, topic: str, label: str, target: str) -> SourceRef:
    frame = sources.resolve(topic_rel_to_root(topic, target))
    if frame is None:
        return SourceRef(label, target, None, None)
    return SourceRef(label, target, frame.source_id, frame.text or None)
