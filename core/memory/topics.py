"""Topic files: the strict Markdown of canonical memory (formats §3).

A topic is prose paragraphs, each a *block* ending in its runtime-owned `^id`, whose
claims cite evidence footnotes (`[^e-…]`) defined in the same file as
``[^id]: Time: `WHEN`; Sources: [label](../sources/…#source-…)``.

The block grammar is line-based on purpose — ATX headings, blank lines, fences and
structural lines split paragraphs exactly as the reference reader does, so a file
means the same thing to both — while everything inside a paragraph (links,
citations, code spans, escapes) is tokenised by mistune's inline parser, extended
with two rules that record exact offsets. Nothing is re-rendered: a `TopicDoc` keeps
its text, `render()` returns it byte for byte, and edits (normalize.py) are made by
splicing at recorded offsets. Problems are collected as `Issue`s with line numbers,
never raised, so one pass reports all of them.
"""

from __future__ import annotations

import calendar
import functools
import posixpath
import re
import threading
import urllib.parse
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from .errors import TopicNameError, TopicPathError
from .names import printable, unsafe_problem

if TYPE_CHECKING:
    import mistune

BLOCK_ID = r"[A-Za-z0-9-]+"
FOOTNOTE_ID = r"[A-Za-z0-9_-]+"
MEMORY_ID = r"mem_[A-Za-z0-9_-]+"
TIME_VALUE = r"\d{4}(?:-\d{2}(?:-\d{2})?)?"

HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
_STRUCTURAL = re.compile(r"\s*(?:<!--|<a\s)")
DEFINITION = re.compile(
    rf"^\[\^(?P<id>{FOOTNOTE_ID})\]:\s*Time:\s*(?P<tick>`)?(?P<when>{TIME_VALUE}|undated)(?(tick)`)"
    r"\s*;\s*Sources:\s*(?P<sources>.+?)\s*$"
)
LEGACY_DEFINITION = re.compile(
    rf"^\[\^(?P<id>{FOOTNOTE_ID})\]:\s*(?P<when>{TIME_VALUE}|undated)\s*\u00b7\s*Sources:\s*(?P<sources>.+?)\s*$"
)
_DEFINITION_LIKE = re.compile(r"^\[\^[^\]\s]*\]:")
SOURCE_LINK = re.compile(r"\[([^]]+)\]\(([^)]+)\)")
SUFFIX = re.compile(rf"(?:\s+\^{BLOCK_ID})*\s+\^(?P<id>{BLOCK_ID})\s*$")
_SUFFIX_ID = re.compile(rf"\^({BLOCK_ID})")
_ANY_SUFFIX = re.compile(r"\s+\^(?P<id>\S+)\s*$")
_ONLY_IDS = re.compile(rf"^\^({BLOCK_ID})(?:\s+\^{BLOCK_ID})*$")
_BLOCK_TARGET = re.compile(rf"(?:{MEMORY_ID}|{BLOCK_ID})")
_MEMORY_ID = re.compile(MEMORY_ID)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
UNUSED_DEFINITION = "unused-definition"  # an issue normalization repairs (`prune`), not a rejection


def valid_time(value: str) -> bool:
    """`undated`, or a year / year-month / real calendar date."""
    if value == "undated":
        return True
    if not re.fullmatch(TIME_VALUE, value):
        return False
    parts = [int(p) for p in value.split("-")]
    if len(parts) >= 2 and not 1 <= parts[1] <= 12:
        return False
    if len(parts) == 3 and not 1 <= parts[2] <= calendar.monthrange(parts[0], parts[1])[1]:
        return False
    return True


def is_relative_target(target: str) -> bool:
    return bool(target) and not target.startswith(("/", "#")) and not _SCHEME.match(target)


# -- inline tokens -----------------------------------------------------------------------


@dataclass(frozen=True)
class Citation:
    id: str
    start: int  # offsets within the paragraph text
    end: int


@dataclass(frozen=True)
class Link:
    label: str
    target: str  # the raw destination as written
    start: int
    end: int
    target_start: int
    target_end: int

    @property
    def block_ref(self) -> tuple[str, str] | None:
        """(path, block id) when this links to a block (`path.md#^id`, or `#^id` in the same file)."""
        path, sep, fragment = self.target.partition("#")
        if not sep or not fragment.startswith("^") or _SCHEME.match(self.target) or path.startswith("/"):
            return None
        block = fragment[1:]
        return (urllib.parse.unquote(path), block) if _BLOCK_TARGET.fullmatch(block) else None


def _on_citation(parser: Any, m: re.Match[str], state: Any) -> int:
    state.env["citations"].append(Citation(m.group(0)[2:-1], m.start(), m.end()))
    state.append_token({"type": "text", "raw": m.group(0)})
    return m.end()


def _on_link(parser: Any, m: re.Match[str], state: Any) -> int | None:
    from mistune.helpers import parse_link, parse_link_href, parse_link_label

    src = state.src
    label, pos = parse_link_label(src, m.end())
    if label is None or pos is None or pos >= len(src) or src[pos] != "(":
        return None
    attrs, end = parse_link(src, pos + 1)
    href, _ = parse_link_href(src, pos + 1)
    if attrs is None or href is None or end is None:
        return None
    state.append_token({"type": "text", "raw": src[m.start():end]})
    if m.group(0).startswith("!"):
        return end  # an image: consumed, not a link
    start = pos + 1
    while start < end and src[start] in " \t\r\n":
        start += 1
    if src.startswith("<", start):
        start += 1
    if src.startswith(href, start):
        state.env["links"].append(Link(label, href, m.start(), end, start, start + len(href)))
    return end


@functools.cache
def _inline_parser() -> mistune.InlineParser:
    """Built on first use: a command that parses no topic never loads mistune."""
    import mistune

    parser = mistune.InlineParser()
    # Only what decides where a citation or a link can be: code spans, escapes, raw
    # HTML and autolinks swallow brackets; emphasis and line breaks do not matter here.
    parser.rules = [r for r in parser.rules if r in ("escape", "codespan", "auto_link", "auto_email", "inline_html")]
    parser.register("citation", rf"\[\^{FOOTNOTE_ID}\]", _on_citation)
    parser.register("md_link", r"!?\[", _on_link)
    return parser


def scan_inline(text: str) -> tuple[list[Citation], list[Link]]:
    """Citations and links of a paragraph (or any inline text), with exact offsets."""
    import mistune

    state = mistune.InlineState({"citations": [], "links": []})
    state.src = text
    _inline_parser().parse(state)
    return state.env["citations"], state.env["links"]


# -- the document model -------------------------------------------------------------------


@dataclass(frozen=True)
class Issue:
    rule: str
    line: int  # 1-based
    message: str
    hint: str = ""
    block_id: str | None = None


@dataclass
class Claim:
    text: str
    start: int
    end: int
    citation_ids: tuple[str, ...]


@dataclass
class Paragraph:
    start: int  # 0-based index of the first line
    end: int  # exclusive
    offset: int  # character offset of the first line in the file
    headings: tuple[str, ...]
    text: str  # the raw lines joined by "\n"
    ids: tuple[str, ...] = ()  # block ids (aliases first, identity last); legacy mem_ ids
    suffix_start: int | None = None  # where the `^id` suffix begins in `text`
    citations: list[Citation] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.start + 1

    @property
    def block_id(self) -> str | None:
        return self.ids[-1] if self.ids else None

    @property
    def body(self) -> str:
        return self.text if self.suffix_start is None else self.text[: self.suffix_start]

    @property
    def content(self) -> str:
        body, out, pos = self.body, [], 0
        for c in self.citations:
            out.append(body[pos:c.start])
            pos = c.end
        out.append(body[pos:])
        return "".join(out).strip()

    @property
    def legacy(self) -> bool:
        return self.suffix_start is None and bool(self.ids)

    def block_refs(self) -> list[tuple[Link, str, str]]:
        return [(link, *ref) for link in self.links if (ref := link.block_ref)]


@dataclass
class SourceLink:
    label: str
    target: str
    start: int  # offsets within the definition line
    end: int
    target_start: int
    target_end: int


@dataclass
class Definition:
    index: int  # 0-based line index
    offset: int
    id: str
    when: str | None  # None for `undated`
    raw_when: str
    sources: list[SourceLink]
    legacy: bool

    @property
    def line(self) -> int:
        return self.index + 1


@dataclass
class Heading:
    index: int
    level: int
    title: str


@dataclass(eq=False)  # identity: documents are cached and keyed by object
class TopicDoc:
    path: str  # relative to topics/, posix
    text: str
    lines: list[str]
    paragraphs: list[Paragraph]
    definitions: dict[str, Definition]
    definition_list: list[Definition]
    headings: list[Heading]
    issues: list[Issue]

    def render(self) -> str:
        return self.text

    @property
    def blocks(self) -> list[Paragraph]:
        return [p for p in self.paragraphs if p.ids]

    @cached_property
    def block_ids(self) -> list[tuple[str, int]]:
        """(block id, line) of every block, aliases included."""
        return [(bid, p.line) for p in self.paragraphs for bid in p.ids]

    @cached_property
    def id_set(self) -> frozenset[str]:
        return frozenset(bid for p in self.paragraphs for bid in p.ids)

    @cached_property
    def block_links(self) -> list[tuple[str, int]]:
        """(target block id, line) of every block link in the file."""
        return [(bid, p.line) for p in self.paragraphs for _link, _path, bid in p.block_refs()]

    @cached_property
    def cited_targets(self) -> frozenset[str]:
        """Every cited source, as a target relative to the workspace root (`sources/…#anchor`)."""
        cited = self.cited_ids()
        return frozenset(
            topic_rel_to_root(self.path, s.target.strip())
            for d in self.definition_list if d.id in cited for s in d.sources
        )

    def cited_ids(self) -> set[str]:
        return {c.id for p in self.paragraphs for c in p.citations}


def _definition(line: str, index: int, offset: int, issues: list[Issue]) -> Definition | None:
    m = DEFINITION.match(line)
    legacy = False
    if not m:
        m = LEGACY_DEFINITION.match(line)
        legacy = True
    if not m:
        return None
    fid, when = m.group("id"), m.group("when")
    if not valid_time(when):
        issues.append(Issue("parse", index + 1, f"invalid evidence date: {when}",
                            "use YYYY, YYYY-MM, YYYY-MM-DD (a real date) or `undated`"))
    base = m.start("sources")
    sources = [
        SourceLink(s.group(1), s.group(2), base + s.start(), base + s.end(), base + s.start(2), base + s.end(2))
        for s in SOURCE_LINK.finditer(m.group("sources"))
    ]
    if not sources:
        issues.append(Issue("parse", index + 1, f"memory source links required: {fid}",
                            "cite at least one source as [label](../sources/…#source-…)"))
    elif any(not s.label.strip() for s in sources):
        issues.append(Issue("parse", index + 1, f"memory source labels required: {fid}",
                            "give every source link a short keyword label"))
    return Definition(index, offset, fid, None if when == "undated" else when, when, sources, legacy)


def _analyse(p: Paragraph, path: str, issues: list[Issue]) -> None:
    stripped = p.text.strip()
    if only := _ONLY_IDS.match(stripped):
        p.ids, p.suffix_start = tuple(_SUFFIX_ID.findall(stripped)), 0
        issues.append(Issue("parse", p.line, f"missing memory content before {only.group(1)}",
                            "write the paragraph's text before its ^id", only.group(1)))
        return
    m = SUFFIX.search(p.text)
    if m:
        p.suffix_start = m.start()
        p.ids = tuple(_SUFFIX_ID.findall(m.group(0)))
    elif bad := _ANY_SUFFIX.search(p.text):
        issues.append(Issue("parse", p.end, f"invalid block_id: {bad.group('id')}",
                            "block ids are letters, digits and '-'; let the runtime assign them"))
    p.citations, p.links = scan_inline(p.body)
    groups: list[list[Citation]] = []
    for c in p.citations:
        if groups and groups[-1][-1].end == c.start:
            groups[-1].append(c)
        else:
            groups.append([c])
    pos = 0
    for group in groups:
        p.claims.append(Claim(p.body[pos:group[0].start].strip(), pos, group[0].start, tuple(c.id for c in group)))
        pos = group[-1].end
    if not p.ids and p.citations and all(_MEMORY_ID.fullmatch(c.id) for c in p.citations):
        p.ids = tuple(dict.fromkeys(c.id for c in p.citations))  # legacy: each mem_ citation is a unit
        return
    label = p.block_id or path
    if not p.citations:
        if p.ids:
            issues.append(Issue("citation-required", p.line, f"memory source footnote required: {p.block_id}",
                                "cite the evidence for this paragraph with [^e1] and define it below", p.block_id))
        else:
            issues.append(Issue("citation-required", p.line, f"memory block ID required: {path}",
                                "every paragraph is a cited memory block; cite its evidence or remove it"))
        return
    if p.body[pos:].strip():
        issues.append(Issue("parse", p.line, f"content after final evidence: {label}",
                            "end every claim with its citation, e.g. 'Ada likes tea.[^e1]'", p.block_id))
    elif not any(claim.text for claim in p.claims):
        issues.append(Issue("parse", p.line, f"missing memory content before [^{p.citations[0].id}]",
                            "write the fact the citation supports before it, or remove the paragraph", p.block_id))


def parse_topic(path: str, text: str) -> TopicDoc:
    """Parse one topic file (`path` relative to `topics/`). Never raises on content."""
    lines = text.split("\n")
    issues: list[Issue] = []
    paragraphs: list[Paragraph] = []
    definitions: dict[str, Definition] = {}
    definition_list: list[Definition] = []
    headings: list[Heading] = []
    trail: list[str] = []
    start: int | None = None
    start_offset = 0
    in_fence = False
    offset = 0

    def close(end: int) -> None:
        nonlocal start
        if start is not None:
            body = "\n".join(lines[start:end])
            if body.strip():
                paragraphs.append(Paragraph(start, end, start_offset, tuple(trail), body))
            start = None

    for index, line in enumerate(lines):
        here = offset
        offset += len(line) + 1
        if line.lstrip().startswith("```"):
            close(index)
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if _DEFINITION_LIKE.match(line):
            close(index)
            found = _definition(line, index, here, issues)
            if found is None:
                issues.append(Issue("parse", index + 1, "malformed footnote definition",
                                    "write it as [^id]: Time: `YYYY-MM-DD`; Sources: [label](path#anchor)"))
            elif found.id in definitions:
                issues.append(Issue("parse", index + 1, f"duplicate footnote definition: {found.id}",
                                    "define each footnote once per file"))
                definition_list.append(found)
            else:
                definitions[found.id] = found
                definition_list.append(found)
            continue
        if _STRUCTURAL.match(line):
            close(index)
            continue
        if h := HEADING.match(line):
            close(index)
            level = len(h.group(1))
            trail[:] = trail[: level - 1] + [h.group(2)]
            headings.append(Heading(index, level, h.group(2)))
            continue
        if not line.strip():
            close(index)
            continue
        if start is None:
            start, start_offset = index, here
    close(len(lines))
    if in_fence:
        issues.append(Issue("parse", len(lines), "unclosed code fence", "close the ``` fence"))
    if lines[0].lstrip("\ufeff").rstrip() == "---":  # else it would become a (manually sourced) block
        issues.append(Issue("parse", 1, "YAML front matter is not supported in a topic",
                            "remove the --- block: a topic is a # Title, then cited paragraphs"))

    cited: set[str] = set()
    for p in paragraphs:
        _analyse(p, path, issues)
        for c in p.citations:
            cited.add(c.id)
            if c.id not in definitions:
                issues.append(Issue("parse", p.line, f"undefined footnote: {c.id}",
                                    f"add a definition line [^{c.id}]: Time: `…`; Sources: […](…)", p.block_id))
    for d in definition_list:
        if d.id not in cited:
            issues.append(Issue(UNUSED_DEFINITION, d.line, f"unused footnote definition: {d.id}",
                                "remove the definition or cite it"))
    return TopicDoc(path, text, lines, paragraphs, definitions, definition_list, headings, issues)


_DOCS: OrderedDict[tuple[str, str], TopicDoc] = OrderedDict()
_DOC_CACHE_SIZE = 1024  # ~100 KB per parsed 25-block topic, derived pieces included
_DOCS_LOCK = threading.Lock()  # the TUI transacts and reads from worker threads


def parse_cached(path: str, text: str) -> TopicDoc:
    """`parse_topic`, remembered per (path, text): an unchanged topic is parsed once per
    process. Callers must treat the returned document as read-only."""
    key = (path, text)
    with _DOCS_LOCK:
        doc = _DOCS.get(key)
        if doc is not None:
            _DOCS.move_to_end(key)
            return doc
    doc = parse_topic(path, text)
    with _DOCS_LOCK:
        doc = _DOCS.setdefault(key, doc)
        if len(_DOCS) > _DOC_CACHE_SIZE:
            _DOCS.popitem(last=False)
    return doc


FORMERLY = "formerly:"  # `<!-- formerly: notes.md -->`: the names a topic had before sleep renamed it
_FORMER = re.compile(r"^[ \t]*<!-- formerly: (.+?) -->[ \t]*$", re.M)


def former_names(text: str) -> list[str]:
    """The names (relative to topics/) a topic had before it was renamed, as its
    `<!-- formerly: a.md, b.md -->` line records them; a structural line, no block."""
    return [n for m in _FORMER.finditer(text) for n in (p.strip() for p in m.group(1).split(", ")) if n]


def topic_rel(topic: str) -> str:
    """A user-given topic path as a path under `topics/` (`people/ada.md`; `core.md` is
    the canonical core). Refuses anything that is not a `.md` file inside `topics/`, and
    (`TopicNameError`) a name that cannot be shown or stored as it is (names.py)."""
    if problem := unsafe_problem(topic):
        raise TopicNameError(f"refused topic name {printable(topic)}: {problem}")
    raw = topic.replace("\\", "/")
    if raw.startswith("topics/"):
        raw = raw[len("topics/"):]
    path = PurePosixPath(raw)
    if (not raw or path.is_absolute() or any(part in ("", ".", "..") for part in raw.split("/"))
            or path.suffix != ".md" or any(part.startswith(".") for part in path.parts)):
        raise TopicPathError(f"not a topic path (a .md file under topics/): {printable(topic)}")
    return path.as_posix()


def topic_rel_to_root(topic: str, target: str) -> str:
    """A link target written in `topics/<topic>`, as a path relative to the workspace root
    (fragment kept). Plain source handles (`P/T/M`, `D1:2`) come back unchanged."""
    path, sep, frag = target.partition("#")
    if not sep and not path.endswith(".md"):
        return target
    root = posixpath.normpath(posixpath.join("topics", posixpath.dirname(topic), path))
    return root + (sep + frag if sep else "")


def root_to_topic_rel(topic: str, root_target: str) -> str:
    path, sep, frag = root_target.partition("#")
    rel = posixpath.relpath(path, posixpath.join("topics", posixpath.dirname(topic)))
    return rel + (sep + frag if sep else "")


def resolve_topic_link(from_topic: str, link_path: str) -> str:
    """The topic path (relative to topics/) a block link points at; '' path = same file."""
    if not link_path:
        return from_topic
    return posixpath.normpath(posixpath.join(posixpath.dirname(from_topic), link_path))


def relative_link(from_topic: str, to_topic: str) -> str:
    """The relative path from one topic file to another, percent-quoted like the reference."""
    rel = posixpath.relpath(to_topic, posixpath.dirname(from_topic) or ".")
    return urllib.parse.quote(rel, safe="/._-")


def without_block(doc: TopicDoc, block_id: str) -> str:
    """The topic with block `block_id` taken out: the id alone when the paragraph
    carries others (a merged block), else the whole paragraph. Definitions it alone
    used are left for normalization to prune."""
    for p in doc.paragraphs:
        if block_id not in p.ids or p.suffix_start is None:
            continue
        if len(p.ids) > 1:
            suffix = " ".join(f"^{i}" for i in p.ids if i != block_id)
            lead = p.text[p.suffix_start:]
            gap = lead[: len(lead) - len(lead.lstrip())]
            new = p.text[: p.suffix_start] + gap + suffix
            return doc.text[: p.offset] + new + doc.text[p.offset + len(p.text):]
        lines = doc.lines[: p.start] + doc.lines[p.end:]
        if p.start < len(lines) and not lines[p.start].strip() and (p.start == 0 or not lines[p.start - 1].strip()):
            del lines[p.start]
        return "\n".join(lines)
    return doc.text
