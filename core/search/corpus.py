"""What search ranks: topic blocks (always) and source records (only when asked).

A topic block is one `^id` paragraph of a topic file, parsed by the workspace's own
topic parser (`scriptorium.core.memory.topics`); its searchable text is the claim text
with citations and link targets removed. A source record is one frame of an evidence
archive (`sources/**`), parsed by the archive's strict scanner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOPICS = "topics"
SOURCES = "sources"
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
# A record's first line (formats §2.4): `[timestamp] label: content`; a label is
# `display (id)` when both are known and differ.
_RECORD_RE = re.compile(r"^\[([^\]]*)\]\s+(.+?): (.*)$", re.DOTALL)
_LABEL_ID_RE = re.compile(r"^(.*\S)\s+\([^()]*\)$")


@dataclass(frozen=True)
class Doc:
    kind: str  # "block" | "source"
    ids: tuple[str, ...]  # block ids (aliases first, identity last) | (source id,)
    path: str  # relative to the memory workspace: topics/… or sources/…
    line: int  # 1-based
    headings: tuple[str, ...]
    text: str
    refs: tuple[str, ...] = ()  # every cited source as a root-relative `path#anchor`
    former: tuple[str, ...] = ()  # the names its topic had before sleep renamed it (topics.former_names)

    @property
    def id(self) -> str:
        return self.ids[-1]

    def search_text(self) -> str:
        """Content plus where it lives: a topic's path words and headings match too."""
        where = " ".join(p.removeprefix(f"{TOPICS}/").removesuffix(".md").replace("/", " ").replace("_", " ")
                         for p in (self.path, *self.former))
        return "\n".join([self.text, where, *self.headings])

    def semantic_text(self) -> str:
        """What the embedding model reads: a block's claim and headings, a record's words
        without its timestamp and speaker label (they would pull every record together)."""
        if self.kind == "source":
            return record_parts(self.text)[2]
        return "\n".join([self.text, *self.headings])

    def to_json(self) -> dict:
        return {"kind": self.kind, "ids": list(self.ids), "path": self.path, "line": self.line,
                "headings": list(self.headings), "text": self.text, "refs": list(self.refs),
                **({"former": list(self.former)} if self.former else {})}

    @classmethod
    def from_json(cls, raw: dict) -> "Doc":
        return cls(raw["kind"], tuple(raw["ids"]), raw["path"], int(raw["line"]), tuple(raw["headings"]),
                   raw["text"], tuple(raw["refs"]), tuple(raw.get("former", ())))


def topic_docs(rel: str, text: str) -> list[Doc]:
    """Blocks of the topic file at `rel` (`topics/…`), in file order."""
    # Parsing needs the memory package; a search that finds every file cached never does.
    from ..memory.sources import handle_target
    from ..memory.topics import former_names, parse_cached, topic_rel_to_root

    topic_path = rel.removeprefix(f"{TOPICS}/")
    doc = parse_cached(topic_path, text)
    former = tuple(former_names(text)) if "<!-- formerly:" in text else ()
    out = []
    for paragraph in doc.blocks:
        refs = []
        for citation in paragraph.citations:
            definition = doc.definitions.get(citation.id)
            for source in definition.sources if definition else ():
                target = topic_rel_to_root(topic_path, source.target)
                refs.append(handle_target(target) or target if "#" not in target else target)
        out.append(
            Doc("block", paragraph.ids, rel, paragraph.line, paragraph.headings, clean_text(paragraph.content),
                tuple(dict.fromkeys(refs)), former)
        )
    return out


def source_docs(rel: str, data: bytes) -> list[Doc]:
    """Records of the archive at `rel` (`sources/…`): its valid frames, trusted ones only."""
    from ..memory.sources import scan_archive

    scan = scan_archive(data, rel)
    return [
        Doc("source", (frame.source_id,), rel, frame.line, (), clean_text(frame.text))
        for frame in scan.frames
        if frame.trusted and frame.lines
    ]


def untrusted_targets(rel: str, data: bytes) -> set[str]:
    """`path#anchor` of every pending (untrusted) record of the archive at `rel`."""
    from ..memory.sources import scan_archive

    return {f"{rel}#{frame.anchor}" for frame in scan_archive(data, rel).frames if not frame.trusted}


def record_parts(text: str) -> tuple[str, str, str]:
    """(date, speaker, content) of a record's text: `2023-05-08`, `Caroline`, what was said.
    Text that is not a record line comes back whole as the content."""
    match = _RECORD_RE.match(text)
    if match is None:
        return "", "", text
    stamp, label, content = match.groups()
    named = _LABEL_ID_RE.match(label)
    return stamp.strip()[:10], (named.group(1) if named else label).strip(), content.strip()


def clean_text(text: str) -> str:
    """Links become their labels, comments go, whitespace collapses."""
    text = _COMMENT_RE.sub(" ", text)
    text = _LINK_RE.sub(lambda m: m.group(1), text)
    return " ".join(text.split())
