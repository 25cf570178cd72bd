"""What the Topics screen shows and does, through `scriptorium.core.memory`'s public API.

No Textual here: everything runs in worker threads and returns snapshots. Reading
never creates the workspace (a viewer writes nothing but the completion of an install a
crash interrupted: `read_consistent`, never half of one); saving and retiring go
through the transaction like every other change to memory. A block's history is
read through `scriptorium.core.memory.log`: the commits whose topic changes altered
that block (created, edited, moved or removed it).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scriptorium.core.memory import TopicDoc, TransactionResult, Workspace
    from scriptorium.core.memory.log import BlockChange
    from scriptorium.core.memory.topics import Paragraph

# The memory package (git, the parser, BM25) is imported inside the functions, which
# run in workers: opening the app or switching screens must not wait for it.

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
    skipped: tuple[str, ...] = ()  # `.md` files memory leaves out for their names: "topics/…: why" (printable)


def first_words(text: str, count: int = WORDS) -> str:
    words = text.split()
    return " ".join(words[:count]) + (" …" if len(words) > count else "")


def list_topics(state_dir: Path) -> TopicListing:
    """Every topic file with its block count, and who links to which block."""
    from scriptorium.core.memory import read_consistent

    return read_consistent(state_dir, _listing)


def _listing(state_dir: Path) -> TopicListing:
    from scriptorium.core.memory import Workspace
    from scriptorium.core.memory.core_render import CORE_TOPIC

    workspace = Workspace(state_dir)
    topics: list[TopicEntry] = []
    backlinks: dict[str, list[Backlink]] = {}
    files = workspace.topic_files()  # names memory does not accept are skipped and said (core/memory/names.py)
    for rel in files.paths:
        doc = workspace.topic(rel)
        if doc is None:  # removed while listing
            continue
        topics.append(TopicEntry(rel, len(doc.blocks), rel == CORE_TOPIC))
        for paragraph in doc.paragraphs:
            for _link, _path, target in paragraph.block_refs():  # block ids are unique workspace-wide
                backlinks.setdefault(target, []).append(
                    Backlink(rel, paragraph.line, paragraph.block_id, first_words(paragraph.content)))
    return TopicListing(topics, backlinks, tuple(str(s) for s in files.skipped))


def read_topic(state_dir: Path, path: str) -> str | None:
    """The topic's text; None when it is not there or `path` names no topic (a link to
    `.trash/old.md` or to a name holding a control character: see `name_problem`)."""
    from scriptorium.core.memory import TopicPathError, Workspace, read_consistent

    try:
        return read_consistent(state_dir, lambda state: Workspace(state).read_topic(path))
    except TopicPathError:
        return None


def name_problem(path: str) -> str | None:
    """Why `path` cannot be a topic's name (core/memory/names.py), or None."""
    from scriptorium.core.memory.names import name_problem as problem

    return problem(path)


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
    from scriptorium.core.memory import read_consistent

    return read_consistent(state_dir, lambda state: _cited_sources(state, doc, paragraph))


def _cited_sources(state_dir: Path, doc: TopicDoc, paragraph: Paragraph) -> list[CitedSource]:
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
                                   frame.source_id if frame else None, (frame.readable_text or None) if frame else None))
    return out


# -- history --------------------------------------------------------------------------------


def block_history(state_dir: Path, block_id: str) -> list[BlockChange]:
    """The commits (newest first) that created, edited, moved or removed this block."""
    from scriptorium.core.memory import Workspace
    from scriptorium.core.memory.log import block_history as read_history

    return read_history(Workspace(state_dir).root, block_id)


# -- changes (the transaction) ----------------------------------------------------------------


Installed = Callable[[Iterable[Path]], None]  # told the files a transaction installed, before it returns


def _ignore(paths: Iterable[Path]) -> None:
    pass


def save(state_dir: Path, path: str, text: str, base: str | None,
         installed: Installed = _ignore) -> tuple[TransactionResult | None, str]:
    """Save a human's draft of one topic. `base` is the text the draft started from
    (None for a new topic): if the file changed on disk since, the result is a `conflict`."""
    from scriptorium.core.memory import save_topic

    return _transact(state_dir, lambda workspace: save_topic(workspace, path, text, base=base), installed)


def retire(state_dir: Path, path: str, block_id: str, reason: str,
           installed: Installed = _ignore) -> tuple[TransactionResult | None, str]:
    from scriptorium.core.memory import retire_block

    return _transact(state_dir, lambda workspace: retire_block(workspace, path, block_id, reason), installed)


def _transact(state_dir: Path, run: Callable[[Workspace], TransactionResult],
              installed: Installed) -> tuple[TransactionResult | None, str]:
    """One transaction: its result (installed, rejected or a conflict), or None and why it
    could not run at all (a busy lock, an unreadable workspace)."""
    from scriptorium.core.memory import Workspace, WorkspaceError

    try:
        workspace = Workspace.open(state_dir)
        result = run(workspace)
    except (WorkspaceError, OSError, ValueError) as exc:
        return None, str(exc) or type(exc).__name__
    installed(workspace.root / name for name in result.changed_files)
    return result, ""


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
                  backlinks: dict[str, list[Backlink]]) -> tuple[BlockInspection | None, str]:
    """Everything the inspector shows for one paragraph of `doc` (the draft or the file), or
    None and why it cannot be read (git or the archive failed)."""
    import git

    links = [link for block_id in paragraph.ids for link in backlinks.get(block_id, [])]
    try:
        history = block_history(state_dir, paragraph.ids[-1]) if paragraph.ids else []
        return BlockInspection(doc.path, paragraph.line, paragraph.ids, paragraph.headings,
                               cited_sources(state_dir, doc, paragraph), links, history), ""
    except (OSError, ValueError, git.GitError) as exc:
        return None, str(exc) or type(exc).__name__
