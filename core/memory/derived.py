"""Views derived from the topics, rebuilt after every install (formats §4.6).

* `timeline/<YYYY>.md`, `<YYYY>/<MM>.md`, `<YYYY>/<MM>/<DD>.md`: every dated piece of
  evidence, quoted, with links to its block and its sources. Links inside a quote
  are rebased to the timeline file (the reference copies them verbatim and breaks
  them).
* `relations.json`: block links, outbound and backlinks.
* `recent_events.jsonl`: the newest blocks by creation order.

Everything here is a pure function of the topic documents, the creation order and
the archive; the caller decides which bytes actually changed.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from .sources import SourceIndex, handle_target
from .topics import Paragraph, TopicDoc, is_relative_target, topic_rel_to_root

RECENT_LIMIT = 50


@dataclass(frozen=True)
class Evidence:
    quote: tuple[str, ...]  # claim text pieces; odd items are link targets relative to the root
    when: str | None
    links: tuple[tuple[str, str], ...]  # (label, root-relative target)


@dataclass(frozen=True)
class Unit:
    """One block id (an alias of a merged block is its own unit)."""

    memory_id: str
    topic: str  # relative to topics/
    paragraph: Paragraph
    evidence: tuple[Evidence, ...]
    targets: tuple[str, ...]  # block ids this block links to

    @property
    def content(self) -> str:
        return self.paragraph.content

    @property
    def when(self) -> str | None:
        return next((e.when for e in self.evidence if e.when), None)


def _root_target(topic: str, target: str) -> str:
    target = target.strip()
    if "#" in target:
        return topic_rel_to_root(topic, target)
    return handle_target(target) or target


def units_of(doc: TopicDoc) -> list[Unit]:
    out = []
    for p in doc.blocks:
        evidence = []
        for claim in p.claims:
            for cid in claim.citation_ids:
                d = doc.definitions.get(cid)
                if d is not None:
                    links = tuple((s.label, _root_target(doc.path, s.target)) for s in d.sources)
                    evidence.append(Evidence(_quote(doc.path, p, claim.start, claim.end), d.when, links))
        targets = tuple(bid for _link, _path, bid in p.block_refs())
        out.extend(Unit(bid, doc.path, p, tuple(evidence), targets) for bid in p.ids)
    return out


def all_units(docs: dict[str, TopicDoc]) -> list[Unit]:
    return [u for rel in sorted(docs) for u in units_of(docs[rel])]


def _quote(topic: str, p: Paragraph, start: int, end: int) -> tuple[str, ...]:
    """The claim `p.body[start:end]`, split around its relative link targets (made
    relative to the workspace root), so each view can rebase them to where it writes."""
    body = p.body
    while start < end and body[start].isspace():
        start += 1
    while end > start and body[end - 1].isspace():
        end -= 1
    pieces, pos = [], start
    for link in p.links:
        if start <= link.target_start and link.target_end <= end and is_relative_target(link.target):
            pieces += [body[pos:link.target_start], topic_rel_to_root(topic, link.target)]
            pos = link.target_end
    pieces.append(body[pos:end])
    return tuple(pieces)


def _rebased(quote: tuple[str, ...], from_dir: str) -> str:
    return "".join(_relative(piece, from_dir) if k % 2 else piece for k, piece in enumerate(quote))


def _relative(root_target: str, from_dir: str) -> str:
    path, sep, frag = root_target.partition("#")
    return posixpath.relpath(path, from_dir) + (sep + frag if sep else "")


def timeline(units: Iterable[Unit]) -> dict[str, bytes]:
    grouped: dict[str, list[tuple[Unit, Evidence]]] = {}
    for unit in units:
        for e in unit.evidence:
            if e.when:
                grouped.setdefault(e.when, []).append((unit, e))
    files: dict[str, bytes] = {}
    for when, rows in grouped.items():
        path = "timeline/" + "/".join(when.split("-")) + ".md"
        here = posixpath.dirname(path)
        blocks = [f"# {when}"]
        for unit, e in sorted(rows, key=lambda r: (r[1].links[0][1] if r[1].links else "", r[0].memory_id)):
            topic_link = _relative(f"topics/{unit.topic}", here)
            fragment = unit.memory_id if unit.memory_id.startswith("mem_") else f"^{unit.memory_id}"
            sources = " ".join(f"[{label}]({_relative(target, here)})" for label, target in e.links)
            blocks.extend(["", f"{_rebased(e.quote, here)} [Topic]({topic_link}#{fragment}) {sources}".rstrip()])
        files[path] = ("\n".join(blocks) + "\n").encode("utf-8")
    return files


def relations(units: list[Unit]) -> bytes:
    outbound = {u.memory_id: sorted(set(u.targets)) for u in units}
    backlinks: dict[str, list[str]] = {}
    for source, targets in outbound.items():
        for target in targets:
            backlinks.setdefault(target, []).append(source)
    doc = {"backlinks": {t: sorted(s) for t, s in backlinks.items()}, "outbound": outbound}
    return (json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def creation_order(previous: dict[str, int], units: list[Unit]) -> dict[str, int]:
    """Existing order kept, new ids appended in file order; ids that left are dropped."""
    present = {u.memory_id for u in units}
    order = {bid: n for bid, n in previous.items() if bid in present}
    nxt = max(previous.values(), default=-1) + 1
    for u in units:
        if u.memory_id not in order:
            order[u.memory_id] = nxt
            nxt += 1
    return order


def recent_events(units: list[Unit], order: dict[str, int], sources: SourceIndex, limit: int = RECENT_LIMIT) -> bytes:
    newest = sorted(units, key=lambda u: order[u.memory_id])[-limit:] if limit > 0 else []
    lines = []
    for u in newest:
        refs = []
        for e in u.evidence:
            for _label, target in e.links:
                frame = sources.resolve(target)
                refs.append(frame.source_id if frame else target)
        refs = list(dict.fromkeys(refs))
        lines.append(json.dumps({
            "memory_id": u.memory_id,
            "when": u.when,
            "whens": list(dict.fromkeys(e.when for e in u.evidence if e.when)),
            "content": u.content,
            "refs": refs,
            "source_refs": refs,
            "topic_path": f"topics/{u.topic}",
            "headings": list(u.paragraph.headings),
            "created_order": order[u.memory_id],
        }, ensure_ascii=False) + "\n")
    return "".join(lines).encode("utf-8")
