"""What the Topics screen shows and does, through `scriptorium.core.memory`'s public API.

No Textual here: everything runs in worker threads and returns snapshots. Reading
never creates the workspace (a viewer writes nothing); saving and retiring go
through the transaction like every other change to memory. A block's history is
read from the workspace's git repository: the commits whose topic changes altered
that block (created, edited, moved or removed it).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scriptorium.core.memory import TopicDoc, TransactionResult
    from scriptorium.core.memory.topics import Paragraph

# The memory package (git, the parser, BM25) is imported inside the functions, which
# run in workers: opening the app or switching screens must not wait for it.

HISTORY_SCAN = 200  # commits touching topics/ looked at for one block's history
WORDS = 10


@dataclass(frozen=True)
class TopicEntry:
    path: str  # relative to topics/
    blocks: int
    is_core: bool  # the canonical core (topics/core.md)


@dataclass(frozen=True)
class Backlink:
    path: str  # the linking topic, relative to topics/
    line: int
    block_id: str | None  # the linking block (None: a paragraph without an id)
    words: str  # untrusted: sanitize before display


@dataclass(frozen=True)
class TopicListing:
    topics: list[TopicEntry]
    backlinks: dict[str, list[Backlink]]  # target block id -> the blocks linking to it


def first_words(text: str, count: int = WORDS) -> str:
    words = text.split()
    return " ".join(words[:count]) + (" …" if len(words) > count else "")


def list_topics(state_dir: Path) -> TopicListing:
    """Every topic file with its block count, and who links to which block."""
    from scriptorium.core.memory import Workspace
    from scriptorium.core.memory.core_render import CORE_TOPIC

    workspace = Workspace(state_dir)
    topics: list[TopicEntry] = []
    backlinks: dict[str, list[Backlink]] = {}
    for rel in workspace.topic_paths():
        doc = workspace.topic(rel)
        if doc is None:  # removed while listing
            continue
        topics.append(TopicEntry(rel, len(doc.blocks), rel == CORE_TOPIC))
        for paragraph in doc.paragraphs:
            for _link, _path, target in paragraph.block_refs():  # block ids are unique workspace-wide
                backlinks.setdefault(target, []).append(
                    Backlink(rel, paragraph.line, paragraph.block_id, first_words(paragraph.content)))
    return TopicListing(topics, backlinks)


def read_topic(state_dir: Path, path: str) -> str | None:
    from scriptorium.core.memory import Workspace

    return Workspace(state_dir).read_topic(path)


def parse(path: str, text: str) -> TopicDoc:
    """The parsed draft (or file); cached per text, so moving the cursor costs nothing."""
    from scriptorium.core.memory.topics import parse_cached

    return parse_cached(path, text)


def paragraph_at(doc: TopicDoc, row: int) -> Paragraph | None:
    """The paragraph on 0-based line `row`, if any."""
    starts = [p.start for p in doc.paragraphs]
    index = bisect.bisect_right(starts, row) - 1
    if index >= 0 and doc.paragraphs[index].start <= row < doc.paragraphs[index].end:
        return doc.paragraphs[index]
    return None


def block_paragraph(doc: TopicDoc, block_id: str) -> Paragraph | None:
    return next((p for p in doc.paragraphs if block_id in p.ids), None)


# -- citations ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitedSource:
    footnote: str  # the footnote id cited in the paragraph
    number: int  # its number in the file (definition order), as the rendered view shows it
    when: str | None  # None: undated
    label: str
    target: str  # as written in the topic
    source_id: str | None  # None: the target resolves to no archived record
    record: str | None  # the record's text (untrusted)


def footnote_numbers(doc: TopicDoc) -> dict[str, int]:
    return {d.id: n for n, d in enumerate(doc.definition_list, start=1)}


def cited_sources(state_dir: Path, doc: TopicDoc, paragraph: Paragraph) -> list[CitedSource]:
    """The paragraph's citations, each source resolved to its archived record."""
    from scriptorium.core.memory import SourceIndex, Workspace
    from scriptorium.core.memory.topics import topic_rel_to_root

    sources = SourceIndex(Workspace(state_dir).root)
    numbers = footnote_numbers(doc)
    out = []
    for footnote in dict.fromkeys(c.id for c in paragraph.citations):
        definition = doc.definitions.get(footnote)
        if definition is None:
            out.append(CitedSource(footnote, 0, None, "(undefined footnote)", "", None, None))
            continue
        for source in definition.sources:
            frame = sources.resolve(topic_rel_to_root(doc.path, source.target.strip()))
            out.append(CitedSource(footnote, numbers[footnote], definition.when, source.label, source.target,
                                   frame.source_id if frame else None, (frame.text or None) if frame else None))
    return out


# -- history --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockChange:
    commit: str
    at: float
    summary: str  # untrusted (a commit message): sanitize before display
    change: str  # "created" | "edited" | "moved" | "removed"
    path: str | None  # where the block is after the commit (None once removed)


def _block_at(commit, files: list[str], block_id: str) -> tuple[str, str] | None:
    """(topic path, paragraph text) of the block in `files` at `commit`, if one holds it."""
    from scriptorium.core.memory.topics import parse_cached

    if commit is None:
        return None
    for name in files:
        try:
            blob = commit.tree / name
        except KeyError:
            continue
        rel = name.removeprefix("topics/")
        doc = parse_cached(rel, blob.data_stream.read().decode("utf-8", errors="replace"))
        paragraph = block_paragraph(doc, block_id)
        if paragraph is not None:
            return rel, paragraph.text
    return None


def block_history(state_dir: Path, block_id: str, limit: int = HISTORY_SCAN) -> list[BlockChange]:
    """The commits (newest first) among the last `limit` that changed topics/ and changed
    this block: it appeared, its paragraph changed, it moved to another file, or it went."""
    import git
    from scriptorium.core.memory import Workspace

    root = Workspace(state_dir).root
    if not (root / ".git").is_dir():
        return []
    out = []
    with git.Repo(root) as repo:
        if not repo.head.is_valid():
            return []
        log = repo.git.log(f"-n{limit}", "--format=%x1e%H%x1f%ct%x1f%s", "--name-only", "--no-renames",
                           "--", "topics")
        for record in log.split("\x1e")[1:]:
            head, _, names = record.partition("\n")
            sha, stamp, summary = head.split("\x1f", 2)
            files = [n for n in names.split("\n") if n.endswith(".md")]
            commit = repo.commit(sha)
            parent = commit.parents[0] if commit.parents else None
            after = _block_at(commit, files, block_id)
            before = _block_at(parent, files, block_id)
            if after == before:
                continue
            if before is None:
                change = "created"
            elif after is None:
                change = "removed"
            else:
                change = "moved" if after[0] != before[0] else "edited"
            out.append(BlockChange(sha, float(stamp), summary, change, after[0] if after else None))
    return out


# -- changes (the transaction) ----------------------------------------------------------------


def save(state_dir: Path, path: str, text: str, base: str | None) -> TransactionResult:
    """Save a human's draft of one topic. `base` is the text the draft started from
    (None for a new topic): if the file changed on disk since, the result is a `conflict`."""
    from scriptorium.core.memory import Workspace, save_topic

    return save_topic(Workspace.open(state_dir), path, text, base=base)


def retire(state_dir: Path, path: str, block_id: str, reason: str) -> TransactionResult:
    from scriptorium.core.memory import Workspace, retire_block

    return retire_block(Workspace.open(state_dir), path, block_id, reason)



# -- the block inspector ------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockInspection:
    path: str  # the topic, relative to topics/
    line: int
    ids: tuple[str, ...]  # empty: a paragraph the draft adds (its id is given on save)
    headings: tuple[str, ...]
    citations: list[CitedSource]
    backlinks: list[Backlink]
    history: list[BlockChange]

    @property
    def block_id(self) -> str | None:
        return self.ids[-1] if self.ids else None


def inspect_block(state_dir: Path, doc: TopicDoc, paragraph: Paragraph,
                  backlinks: dict[str, list[Backlink]]) -> BlockInspection:
    """Everything the inspector shows for one paragraph of `doc` (the draft or the file)."""
    links = [link for block_id in paragraph.ids for link in backlinks.get(block_id, [])]
    history = block_history(state_dir, paragraph.ids[-1]) if paragraph.ids else []
    return BlockInspection(doc.path, paragraph.line, paragraph.ids, paragraph.headings,
                           cited_sources(state_dir, doc, paragraph), links, history)
