"""The three-way merge of topic files by block id (DESIGN §17), pure: texts in, texts out.

Lines mean nothing to memory; blocks do. Each side's topics are read as blocks keyed by
their identity id, each with its paragraph and the evidence definitions it cites (their
targets made root-relative, so a block compares equal wherever it lives). Against the
merge base:

* a block changed on one side only takes that side (its text and its topic);
* new blocks from either side are kept, placed after the block they followed there;
* a block changed on both sides differently is a conflict: ours stays, theirs is added
  beside it as a new paragraph that links to ours and says it is a conflict;
* a block retired on one side and edited on the other keeps the edit (reported);
* a block retired on one side and untouched on the other is retired.

The skeleton of each merged file (headings, order) is our file, or theirs for a topic only
they have. Normalization (the transaction) then renders it canonically and assigns ids.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

from .redacted import redacted_of
from ..memory.topics import Definition, Paragraph, TopicDoc, parse_topic, root_to_topic_rel, topic_rel_to_root

CONFLICT_MARK = "Sync conflict"
_CITATION = re.compile(r"\[\^([A-Za-z0-9_-]+)\]")


@dataclass(frozen=True)
class Block:
    """One block of one side: where it lives and what it says."""

    id: str
    topic: str
    text: str  # the paragraph, citation ids as written in its file
    defs: tuple[tuple[str, str], ...]  # (footnote id, definition line with root-relative targets)
    after: str | None  # the block before it in its file

    @property
    def value(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.text, self.defs

    @property
    def body(self) -> str:
        """The paragraph without its `^id` suffix."""
        return re.sub(r"(?:\s+\^[A-Za-z0-9-]+)+\s*$", "", self.text)


@dataclass
class Conflict:
    block_id: str
    topic: str
    ours: str
    theirs: str


@dataclass
class BlockMerge:
    topics: dict[str, str] = field(default_factory=dict)  # changed or new topic files (path under topics/)
    deleted: list[str] = field(default_factory=list)  # topic files that end empty
    retire: dict[str, str] = field(default_factory=dict)  # block id -> reason
    conflicts: list[Conflict] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)


def _rebase_line(line: str, d: Definition, convert) -> str:
    out, pos = [], 0
    for s in d.sources:
        out.append(line[pos:s.target_start])
        out.append(convert(s.target))
        pos = s.target_end
    out.append(line[pos:])
    return "".join(out)


def blocks_of(doc: TopicDoc) -> dict[str, Block]:
    found: dict[str, Block] = {}
    prev: str | None = None
    for p in doc.paragraphs:
        bid = p.block_id
        if bid is None or p.suffix_start is None:
            continue
        defs = []
        for c in dict.fromkeys(c.id for c in p.citations):
            d = doc.definitions.get(c)
            if d is not None:
                line = doc.lines[d.index]
                defs.append((c, _rebase_line(line, d, lambda t: topic_rel_to_root(doc.path, t.strip()))))
        found[bid] = Block(bid, doc.path, p.text, tuple(defs), prev)
        for alias in p.ids[:-1]:
            found.setdefault(alias, Block(alias, doc.path, p.text, tuple(defs), prev))
        prev = bid
    return found


def side_blocks(topics: Mapping[str, str]) -> tuple[dict[str, Block], dict[str, TopicDoc]]:
    docs = {path: parse_topic(path, text) for path, text in topics.items()}
    blocks: dict[str, Block] = {}
    for doc in docs.values():
        for bid, block in blocks_of(doc).items():
            blocks.setdefault(bid, block)
    return blocks, docs


def _resolve(bid: str, base: Block | None, ours: Block | None, theirs: Block | None,
             out: BlockMerge) -> tuple[Block | None, Block | None]:
    """(the block as merged, a conflicting incoming version to add beside it)."""
    if ours is not None and theirs is not None and ours.defs == theirs.defs and (
            red := redacted_of(ours.text, theirs.text)) is not None:
        # the same text, one side with a span hidden (its redaction, a purge): the hidden one
        # wins, never the secret; where it lives follows the usual rule
        topic_from = theirs if base is not None and ours.topic == base.topic else ours
        return Block(bid, topic_from.topic, red, ours.defs, topic_from.after), None
    if base is None:
        if ours is None or theirs is None:
            return ours or theirs, None
        if ours.value == theirs.value:
            return ours, None
        return ours, theirs
    if ours is None and theirs is None:
        return None, None
    if ours is None or theirs is None:
        present = ours or theirs
        assert present is not None and base is not None
        side = "here" if theirs is None else "on the remote"
        if present.value == base.value and present.topic == base.topic:
            if theirs is None:  # retired on the remote: retire it here too (retired here: it is gone already)
                out.retire[bid] = f"retired on the remote; unchanged {side} (sync)"
            return None, None
        out.reports.append(f"^{bid}: retired {'on the remote' if theirs is None else 'here'} but edited {side}: "
                           "the edit is kept")
        return present, None
    text_from = theirs if ours.value == base.value else ours
    topic_from = theirs if ours.topic == base.topic else ours
    merged = Block(bid, topic_from.topic, text_from.text, text_from.defs, topic_from.after)
    if ours.value != base.value and theirs.value != base.value and ours.value != theirs.value:
        return Block(bid, topic_from.topic, ours.text, ours.defs, topic_from.after), theirs
    return merged, None


def merge_topics(base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str],
                 *, remote: str = "remote") -> BlockMerge:
    """Merge three versions of `topics/` ({path under topics/: text})."""
    out = BlockMerge()
    b_blocks, _ = side_blocks(base)
    o_blocks, o_docs = side_blocks(ours)
    t_blocks, t_docs = side_blocks(theirs)
    final: dict[str, Block] = {}
    incoming: dict[str, Block] = {}
    for bid in dict.fromkeys([*o_blocks, *t_blocks, *b_blocks]):
        merged, conflict = _resolve(bid, b_blocks.get(bid), o_blocks.get(bid), t_blocks.get(bid), out)
        if merged is not None:
            final[bid] = merged
        if conflict is not None and merged is not None:
            incoming[bid] = conflict
            out.conflicts.append(Conflict(bid, merged.topic, o_blocks[bid].body, conflict.body))

    wanted: dict[str, list[str]] = {}
    for bid, block in final.items():
        wanted.setdefault(block.topic, []).append(bid)
    for path in sorted(set(wanted) | set(o_docs) | set(t_docs)):
        if path not in wanted and path in base and (path not in ours or path not in theirs):
            if path in ours:
                out.deleted.append(path)  # deleted on one side, nothing of it left on the other
            continue
        order = wanted.get(path, [])
        loose = path in o_docs and any(p.block_id is None for p in o_docs[path].paragraphs)  # typed, not saved yet
        if not loose and path in t_docs and path in theirs and _holds_exactly(t_docs[path], order, final, incoming,
                                                                              t_blocks):
            if ours.get(path) != theirs[path]:  # their file says it all (their order too): both converge on it
                out.topics[path] = theirs[path]
            continue
        if path in o_docs and _untouched(o_docs[path], order, final, incoming, o_blocks):
            continue
        text = _render(path, o_docs.get(path) or t_docs.get(path), order, final, incoming, remote)
        if ours.get(path) != text:
            out.topics[path] = text
    return out


def _untouched(doc: TopicDoc, order: list[str], final: Mapping[str, Block], incoming: Mapping[str, Block],
               ours: Mapping[str, Block]) -> bool:
    """Our file already holds exactly its merged blocks, in order: keep its bytes."""
    mine = [p.block_id for p in doc.paragraphs if p.block_id is not None and p.suffix_start is not None]
    return mine == order and not any(b in incoming or final[b].value != ours[b].value for b in order)


def _holds_exactly(doc: TopicDoc, order: list[str], final: Mapping[str, Block], incoming: Mapping[str, Block],
                   blocks: Mapping[str, Block]) -> bool:
    """`doc` holds exactly the merged blocks of its file, in any order, each as merged."""
    mine = [p.block_id for p in doc.paragraphs if p.block_id is not None and p.suffix_start is not None]
    return sorted(mine) == sorted(order) and not any(
        b in incoming or final[b].value != blocks[b].value for b in order)


def _render(path: str, skeleton: TopicDoc | None, order: list[str], final: Mapping[str, Block],
            incoming: Mapping[str, Block], remote: str) -> str:
    """The merged file at `path`: the skeleton's lines with its blocks replaced, removed,
    or new ones inserted after the block they followed; definitions rebuilt at the end."""
    keep = set(order)
    lines = skeleton.lines if skeleton else []
    paragraphs = {p.start: p for p in (skeleton.paragraphs if skeleton else ())
                  if p.block_id is not None and p.suffix_start is not None}
    present = {p.block_id for p in paragraphs.values()} & keep
    insert_after: dict[str | None, list[str]] = {}
    for bid in order:
        if bid in present:
            continue
        after, seen = final[bid].after, {bid}
        while after is not None and after not in present and after in final and after not in seen:
            seen.add(after)
            after = final[after].after
        insert_after.setdefault(after if after in present else None, []).append(bid)

    used_defs: dict[str, str] = {}
    body: list[str] = []

    def emit(block: Block, text: str | None = None) -> None:
        """The paragraph, then the definitions it cites that are not out yet (the canonical shape)."""
        para = text if text is not None else block.text
        renames: dict[str, str] = {}
        fresh: list[str] = []
        for fid, root_line in block.defs:
            line = _set_id(_relocate(root_line, path), fid)
            if fid in used_defs and used_defs[fid] != line:
                n = 1
                while f"new-evidence-sync-{n}" in used_defs:
                    n += 1
                fid = renames[fid] = f"new-evidence-sync-{n}"
                line = _set_id(line, fid)
            if fid not in used_defs:
                used_defs[fid] = line
                fresh.append(line)
        if renames:
            para = _CITATION.sub(lambda m: f"[^{renames.get(m.group(1), m.group(1))}]", para)
        if body and body[-1].strip():
            body.append("")
        body.extend(para.split("\n"))
        body.append("")
        if fresh:
            body.extend(fresh)
            body.append("")

    def emit_block(bid: str) -> None:
        emit(final[bid])
        if bid in incoming:
            theirs = incoming[bid]
            link = f"[the local version]({urllib.parse.quote(posixpath.basename(path), safe='._-')}#^{bid})"
            emit(theirs, f"{CONFLICT_MARK} (from {remote}) with {link}: {theirs.body}")
        for new in insert_after.pop(bid, []):
            emit_block(new)

    index = 0
    while index < len(lines):
        p = paragraphs.get(index)
        if p is not None:
            if p.block_id in keep:
                emit_block(p.block_id)
            index = p.end
            continue
        if not _is_definition(lines[index]):
            body.append(lines[index])
        index += 1
    for new in insert_after.pop(None, []):
        emit_block(new)
    return "\n".join(_squeeze(body)).strip("\n") + "\n"


def _squeeze(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return out


def _is_definition(line: str) -> bool:
    return bool(re.match(r"^\[\^[^\]\s]*\]:", line))


def _relocate(root_line: str, topic: str) -> str:
    doc = parse_topic(topic, root_line)
    if not doc.definition_list:
        return root_line
    d = doc.definition_list[0]
    return _rebase_line(root_line, d, lambda t: root_to_topic_rel(topic, t) if t.startswith(("topics/", "sources/")) else t)


def _set_id(line: str, fid: str) -> str:
    return re.sub(r"^\[\^[^\]]+\]", f"[^{fid}]", line, count=1)
