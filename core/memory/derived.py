"""Views derived from the topics, rebuilt after every install (formats §4.6).

* `timeline/<YYYY>.md`, `<YYYY>/<MM>.md`, `<YYYY>/<MM>/<DD>.md`: every dated piece of
  evidence, quoted, with links to its block and its sources. Links inside a quote
  are rebased to the timeline file (the reference copies them verbatim and breaks
  them).
* `relations.json`: block links, outbound and backlinks.
* `recent_events.jsonl`: the newest blocks by creation order.

Everything here is a pure function of the topic documents, the creation order and
the archive; the caller decides which bytes actually changed. Per-document pieces are
computed once per parsed document, and a timeline rebuild redoes only the dates of
documents that differ from those the live timeline was last built from in this
process (a document edited now, or changed on disk since) — the first build in a
process redoes every date.
"""

from __future__ import annotations

import json
import posixpath
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from weakref import WeakKeyDictionary

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


_UNITS: WeakKeyDictionary[TopicDoc, list[Unit]] = WeakKeyDictionary()
_OUTBOUND: WeakKeyDictionary[TopicDoc, dict[str, list[str]]] = WeakKeyDictionary()
_ENTRIES: WeakKeyDictionary[TopicDoc, list[tuple[str, tuple[str, str], str]]] = WeakKeyDictionary()


def units_of(doc: TopicDoc) -> list[Unit]:
    """The units of one document (computed once per parsed document)."""
    cached = _UNITS.get(doc)
    if cached is not None:
        return cached
    out: list[Unit] = []
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
    _UNITS[doc] = out
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
    """A root-relative target (normalized, inside the workspace) seen from `from_dir`."""
    return "../" * (from_dir.count("/") + 1) + root_target


def timeline_path(when: str) -> str:
    return "timeline/" + "/".join(when.split("-")) + ".md"


def _timeline_entries(doc: TopicDoc) -> list[tuple[str, tuple[str, str], str]]:
    """(when, sort key, rendered line) of every dated piece of evidence in `doc`."""
    cached = _ENTRIES.get(doc)
    if cached is not None:
        return cached
    out = []
    for unit in units_of(doc):
        for e in unit.evidence:
            if not e.when:
                continue
            here = posixpath.dirname(timeline_path(e.when))
            fragment = unit.memory_id if unit.memory_id.startswith("mem_") else f"^{unit.memory_id}"
            topic_link = _relative(f"topics/{unit.topic}", here)
            sources = " ".join(f"[{label}]({_relative(target, here)})" for label, target in e.links)
            line = f"{_rebased(e.quote, here)} [Topic]({topic_link}#{fragment}) {sources}".rstrip()
            out.append((e.when, (e.links[0][1] if e.links else "", unit.memory_id), line))
    _ENTRIES[doc] = out
    return out


def whens_of(doc: TopicDoc) -> frozenset[str]:
    return frozenset(when for when, _key, _line in _timeline_entries(doc))


def timeline(docs: dict[str, TopicDoc], whens: set[str] | None = None) -> dict[str, bytes | None]:
    """Timeline files for `whens` (every date when None): their bytes, or None for a date
    no entry points at any more."""
    grouped: dict[str, list[tuple[tuple[str, str], str]]] = {w: [] for w in whens or ()}
    for rel in sorted(docs):
        for when, key, line in _timeline_entries(docs[rel]):
            if whens is None or when in whens:
                grouped.setdefault(when, []).append((key, line))
    files: dict[str, bytes | None] = {}
    for when, rows in grouped.items():
        rows.sort(key=lambda row: row[0])
        files[timeline_path(when)] = (
            (f"# {when}\n\n" + "\n\n".join(line for _key, line in rows) + "\n").encode("utf-8") if rows else None)
    return files


# The topic documents each workspace's live timeline was last built from, in this
# process. A later build only redoes the dates of documents that differ from these
# (edited now, or changed on disk since); with no record, everything is rebuilt.
_BUILT_FROM: OrderedDict[str, dict[str, TopicDoc]] = OrderedDict()
_BUILT_FROM_SIZE = 16
_BUILT_LOCK = threading.Lock()


def dates_to_rebuild(root: str, docs: dict[str, TopicDoc]) -> set[str] | None:
    """The dates whose timeline files a build from `docs` must redo; None: all of them."""
    with _BUILT_LOCK:
        built = _BUILT_FROM.get(root)
    return None if built is None else dates_changed(built, docs)


def dates_changed(before: dict[str, TopicDoc], docs: dict[str, TopicDoc]) -> set[str]:
    """The dates of every document that differs between `before` and `docs`, old and new."""
    out: set[str] = set()
    for rel in set(before) | set(docs):
        old, new = before.get(rel), docs.get(rel)
        if old is not new and (old is None or new is None or old.text != new.text):
            out |= (whens_of(old) if old else frozenset()) | (whens_of(new) if new else frozenset())
    return out


_LINK_TARGET = re.compile(r"\]\(([^()\s]*)\)")


def timeline_facts(data: bytes) -> list[str]:
    """A timeline file's entries as facts, in any order: trailing blanks and the folders of
    link targets dropped, so a quote's link kept verbatim (OpenProgram) and rebased (ours)
    read alike, and so do entries OpenProgram sorted by its own source refs."""
    text = data.decode("utf-8", errors="replace")
    return sorted(_LINK_TARGET.sub(lambda m: "](" + posixpath.basename(m.group(1).partition("#")[0]) + "#"
                                   + m.group(1).partition("#")[2] + ")", line).rstrip()
                  for line in text.splitlines() if line.strip())


def remember_build(root: str, docs: dict[str, TopicDoc]) -> None:
    with _BUILT_LOCK:
        _BUILT_FROM[root] = dict(docs)
        _BUILT_FROM.move_to_end(root)
        if len(_BUILT_FROM) > _BUILT_FROM_SIZE:
            _BUILT_FROM.popitem(last=False)


def _outbound(doc: TopicDoc) -> dict[str, list[str]]:
    cached = _OUTBOUND.get(doc)
    if cached is None:
        cached = _OUTBOUND[doc] = {u.memory_id: sorted(set(u.targets)) for u in units_of(doc)}
    return cached


def relations(docs: dict[str, TopicDoc]) -> bytes:
    outbound: dict[str, list[str]] = {}
    for rel in sorted(docs):
        outbound.update(_outbound(docs[rel]))
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
