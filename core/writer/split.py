"""Sleep splits an overgrown topic into sub-topics along its sections (DESIGN §8).

A topic is read, edited and searched as a whole far more cheaply when it stays small;
past `sleep.split_chars` characters (default 100,000; `core.md`, the canonical core,
never) it is split, deterministically, whatever model is configured:

* along its top sections: `## Billing` of `ops.md` becomes `ops/billing.md`, titled
  `# Billing`, its inner headings raised one level; the blocks before the first
  section stay in `ops.md`, which goes when none do;
* a topic without sections (the offline writer appends plain blocks) is cut into
  consecutive runs of blocks: the first run stays, each later one becomes
  `<topic>/<word>.md`, named after the word that sets it apart from the others.

Every block keeps its id and its evidence: the definition lines travel with the
blocks that cite them (copied when blocks in two parts cite one), their relative
links rebased to the new folder. Every link to a moved block, in any topic, is
repointed at the file the block now lives in. A part still too large is split again.
The caller applies the result as one transaction, which validates it like any edit.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..config import load_config
from ..memory import Transaction, TransactionResult, Workspace
from ..memory.core_render import CORE_TOPIC
from ..memory.names import list_topic_files
from ..memory.topics import (HEADING, Definition, Paragraph, TopicDoc, is_relative_target, parse_topic, relative_link,
                             resolve_topic_link, root_to_topic_rel, topic_rel_to_root)
from .keywords import content_words, slug, stem

DEFAULT_SPLIT_CHARS = 100_000
MIN_SPLIT_CHARS = 2_000  # below this a split would only scatter a topic
MAX_PASSES = 4  # a part still too large is split again, this many times at most
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def split_chars(state_dir: Path) -> int:
    """`sleep.split_chars` in config.toml: the size (characters) past which sleep splits a topic."""
    return load_config(state_dir).integer("sleep.split_chars", DEFAULT_SPLIT_CHARS, low=MIN_SPLIT_CHARS)


@dataclass
class Part:
    """Lines of a topic and the file they go to: a split's part, or blocks sleep gathers (gather.py)."""

    path: str  # where the part goes (relative to topics/)
    title: str | None  # the new file's title; None: the lines keep the original title
    start: int  # the original lines [start, end) it takes
    end: int
    shift: int = 0  # heading levels to raise
    blocks: list[Paragraph] = field(default_factory=list)


@dataclass
class SplitPlan:
    """What a split changes: new text per topic (None: the topic goes), and the parts
    each overgrown topic became."""

    writes: dict[str, str | None]
    parts: dict[str, list[str]]

    def summary(self) -> str:
        return "; ".join(f"split {old} into {', '.join(new)}" for old, new in self.parts.items())


def plan_split(texts: dict[str, str], limit: int) -> SplitPlan:
    """The split of every topic in `texts` (relative path -> text) longer than `limit`."""
    current = dict(texts)
    origin: dict[str, str] = {}  # a part -> the topic it came from
    parts: dict[str, set[str]] = {}
    for _ in range(MAX_PASSES):
        done = _split_pass(current, limit)
        if not done:
            break
        for old, new in done.items():
            group = parts.setdefault(origin.get(old, old), {origin.get(old, old)})
            group.discard(old)
            group.update(new)
            origin.update((n, origin.get(old, old)) for n in new)
    writes: dict[str, str | None] = {rel: text for rel, text in current.items() if texts.get(rel) != text}
    writes.update({rel: None for rel in texts if rel not in current})
    return SplitPlan(writes, {old: sorted(new) for old, new in parts.items()})


def _split_pass(texts: dict[str, str], limit: int) -> dict[str, list[str]]:
    """Split each overgrown topic once, in place in `texts`; the parts each became."""
    taken = set(texts)
    plans: dict[str, tuple[TopicDoc, list[Part]]] = {}
    moved: dict[str, str] = {}  # block id -> the topic it moves to
    for rel in sorted(texts):
        if rel == CORE_TOPIC or len(texts[rel]) <= limit:
            continue
        doc = parse_topic(rel, texts[rel])
        if len(doc.blocks) < 2:
            continue  # one block is as small as a topic gets
        found = _sections(doc) or _runs(doc, limit)
        if not found or all(p.path == rel for p in found):
            continue
        for part in found:
            if part.path != rel:
                part.path = _free(part.path, taken)
                taken.add(part.path)
            for block in part.blocks:
                for bid in block.ids:
                    moved[bid] = part.path
        plans[rel] = (doc, found)
    if not plans:
        return {}
    out: dict[str, list[str]] = {}
    for rel, (doc, found) in plans.items():
        del texts[rel]
        for part in found:
            texts[part.path] = render_part(doc, part, moved)
        out[rel] = [p.path for p in found]
    for rel in sorted(set(texts) - {p.path for _, found in plans.values() for p in found}):
        if "#^" in texts[rel]:
            texts[rel] = relinked(parse_topic(rel, texts[rel]), moved)
    return out


def _free(path: str, taken: set[str]) -> str:
    if path not in taken:
        return path
    stem_, k = path[: -len(".md")], 2
    while f"{stem_}-{k}.md" in taken:
        k += 1
    return f"{stem_}-{k}.md"


def _folder(rel: str) -> str:
    return rel[: -len(".md")]


def _sections(doc: TopicDoc) -> list[Part]:
    """One part per top section holding blocks, plus the blocks before the first
    section (they stay); [] when that is fewer than two parts."""
    first_block = doc.blocks[0].start
    title = doc.headings[0] if doc.headings and doc.headings[0].level == 1 and doc.headings[0].index < first_block \
        else None
    inner = [h for h in doc.headings if h is not title]
    if not inner:
        return []
    level = min(h.level for h in inner)
    tops = [h for h in inner if h.level == level]
    parts = [Part(doc.path, None, 0, tops[0].index)]
    for k, h in enumerate(tops):
        end = tops[k + 1].index if k + 1 < len(tops) else len(doc.lines)
        parts.append(Part(f"{_folder(doc.path)}/{slug(h.title)}.md", h.title, h.index + 1, end, level - 1))
    for part in parts:
        part.blocks = [b for b in doc.blocks if part.start <= b.start < part.end]
    parts = [p for p in parts if p.blocks]
    return parts if len(parts) >= 2 else []


def _runs(doc: TopicDoc, limit: int) -> list[Part]:
    """Consecutive runs of blocks of about half the limit each: the first stays, each
    later one is named after the word that sets it apart."""
    blocks = doc.blocks
    target = max(limit // 2, 1)
    runs: list[list[Paragraph]] = [[]]
    size = 0
    for k, block in enumerate(blocks):
        span = (blocks[k + 1].offset if k + 1 < len(blocks) else len(doc.text)) - block.offset
        if runs[-1] and size + span > target:
            runs.append([])
            size = 0
        runs[-1].append(block)
        size += span
    if len(runs) < 2:
        return []
    names = _run_names(doc, runs)
    parts = []
    for k, run in enumerate(runs):
        start = 0 if k == 0 else run[0].start
        end = runs[k + 1][0].start if k + 1 < len(runs) else len(doc.lines)
        if k == 0:
            parts.append(Part(doc.path, None, start, end, 0, run))
        else:
            parts.append(Part(f"{_folder(doc.path)}/{slug(names[k])}.md", _titled(names[k]), start, end, 0, run))
    return parts


def _titled(word: str) -> str:
    return word[:1].upper() + word[1:]


def _run_names(doc: TopicDoc, runs: list[list[Paragraph]]) -> list[str]:
    """A word per run that it says more than the others do (not the topic's own name)."""
    own = {stem(w) for w in content_words(PurePosixPath(doc.path).stem.replace("-", " "))}
    counts: list[Counter[str]] = []
    surface: dict[str, Counter[str]] = {}
    for run in runs:
        c: Counter[str] = Counter()
        for block in run:
            for word in content_words(block.content):
                if any(ch.isdigit() for ch in word) or not re.fullmatch(r"[\w-]+", word):
                    continue
                s = stem(word)
                if s in own:
                    continue
                c[s] += 1
                surface.setdefault(s, Counter())[word] += 1
        counts.append(c)
    total: Counter[str] = sum(counts, Counter())
    used: set[str] = set()
    names = []
    for k, c in enumerate(counts):
        ranked = sorted(c, key=lambda s: (-c[s] / (1 + total[s] - c[s]), -c[s], s))
        best = next((s for s in ranked if s not in used), None)
        if best is None:
            names.append(f"part-{k + 1}")
            continue
        used.add(best)
        names.append(surface[best].most_common(1)[0][0])
    return names


# -- writing a part -------------------------------------------------------------------------


def render_part(doc: TopicDoc, part: Part, moved: dict[str, str]) -> str:
    """The part's lines as a topic of its own: title, blocks relinked, the definitions
    its blocks cite (in place when they are in its lines, else after them), headings raised."""
    cited = dict.fromkeys(c.id for b in part.blocks for c in b.citations)
    starts = {p.start: p for p in doc.paragraphs if part.start <= p.start < part.end}
    definitions = {d.index: d for d in doc.definition_list}
    out: list[str] = [f"# {part.title}", ""] if part.title is not None else []
    placed: set[str] = set()
    index = part.start
    fenced = False
    while index < part.end:
        if fenced or doc.lines[index].lstrip().startswith("```"):
            fenced = fenced != doc.lines[index].lstrip().startswith("```")
            out.append(doc.lines[index])
            index += 1
            continue
        if (p := starts.get(index)) is not None:
            out += _relinked_paragraph(p, doc.path, part.path, moved).split("\n")
            index = p.end
            continue
        line = doc.lines[index]
        if (d := definitions.get(index)) is not None:
            if d.id in cited and d.id not in placed and doc.definitions.get(d.id) is d:
                out.append(_rebased_definition(doc.lines[index], d, doc.path, part.path))
                placed.add(d.id)
        elif (h := HEADING.match(line)) and part.shift:
            out.append("#" * max(len(h.group(1)) - part.shift, 1) + " " + h.group(2))
        else:
            out.append(line)
        index += 1
    missing = [doc.definitions[c] for c in cited if c not in placed and c in doc.definitions]
    if missing:
        out += ["", *(_rebased_definition(doc.lines[d.index], d, doc.path, part.path) for d in missing)]
    return tidy(out)


def tidy(lines: Iterable[str]) -> str:
    """No run of blank lines, none at either end."""
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


def relinked(doc: TopicDoc, moved: dict[str, str]) -> str:
    """A topic that stays where it is, its links to moved blocks repointed."""
    text = doc.text
    for p in reversed(doc.paragraphs):
        new = _relinked_paragraph(p, doc.path, doc.path, moved)
        if new != p.text:
            text = text[: p.offset] + new + text[p.offset + len(p.text):]
    return text


def _relinked_paragraph(p: Paragraph, old: str, new: str, moved: dict[str, str]) -> str:
    text = p.text
    for link in sorted(p.links, key=lambda lk: lk.target_start, reverse=True):
        target = _retarget(link.target, old, new, moved)
        if target != link.target:
            text = text[: link.target_start] + target + text[link.target_end:]
    return text


def _retarget(target: str, old: str, new: str, moved: dict[str, str]) -> str:
    """A link target written in topic `old`, as written in topic `new`, pointing at a
    moved block's new home."""
    path, sep, fragment = target.partition("#")
    if sep and fragment.startswith("^") and not _SCHEME.match(target) and not path.startswith("/"):
        bid = fragment[1:]
        if bid not in moved and old == new:
            return target
        dest = moved.get(bid) or resolve_topic_link(old, urllib.parse.unquote(path))
        if dest == new:
            return f"#^{bid}" if not path else f"{relative_link(new, dest)}#^{bid}"
        return f"{relative_link(new, dest)}#^{bid}"
    return _rebased(target, old, new)


def _rebased(target: str, old: str, new: str) -> str:
    """A relative link to a file (a source frame, a topic) written one folder elsewhere."""
    if old == new or posixpath.dirname(old) == posixpath.dirname(new) or not is_relative_target(target):
        return target
    path, sep, _ = target.partition("#")
    if not sep and not path.endswith(".md"):
        return target  # a plain source handle: the same from anywhere
    return root_to_topic_rel(new, topic_rel_to_root(old, target))


def _rebased_definition(line: str, d: Definition, old: str, new: str) -> str:
    for s in sorted(d.sources, key=lambda s: s.target_start, reverse=True):
        target = _rebased(s.target.strip(), old, new)
        if target != s.target.strip():
            line = line[: s.target_start] + target + line[s.target_end:]
    return line


# -- applying it ----------------------------------------------------------------------------


def apply_split(txn: Transaction, limit: int) -> SplitPlan:
    """Split the overgrown topics of a transaction's stage (the edit only: judged on commit)."""
    root = txn.topics_dir
    texts = {rel: (root / rel).read_text(encoding="utf-8", errors="replace")
             for rel in list_topic_files(root).paths}  # names.py: a name memory skips is never touched
    plan = plan_split(texts, limit)
    for rel, text in sorted(plan.writes.items()):
        if text is None:
            txn.delete_topic(rel)
        else:
            txn.write_topic(rel, text)
    return plan


def split_overgrown(ws: Workspace, limit: int, *, lock_timeout: float) -> tuple[SplitPlan, TransactionResult] | None:
    """Split every overgrown topic in one `sleep` transaction; None when none is."""
    if not any(rel != CORE_TOPIC and (ws.topics / rel).stat().st_size > limit for rel in ws.topic_paths()):
        return None  # bytes >= characters: nothing is past the limit
    with Transaction(ws, "sleep", "split overgrown topics", evidence=[], lock_timeout=lock_timeout) as txn:
        plan = apply_split(txn, limit)
        if not plan.writes:
            return None
        txn.summary = plan.summary()
        return plan, txn.commit()
