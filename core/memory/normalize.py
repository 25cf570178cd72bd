"""The runtime's deterministic rewrite of edited topics (formats §4.5).

Block ids and evidence ids belong to the runtime. For every topic file an edit
touched, before validation:

* ids the editor invented are stripped (only committed ids survive);
* a block moved from another file gets back the evidence definitions it left behind;
* citations of writer-local labels (`e1`, `new-evidence-…`) without a definition are
  rebound, in order, to the unused local definitions after their paragraph;
* a paragraph a person wrote without any citation is archived as a `manual` source
  record and cited (when the transaction allows it: human edits);
* each new block gets ` ^` + sha256("block|<file>|<collapsed text>|k")[:8];
* local labels become `e-` + sha256("evidence|WHEN|<targets>|k")[:10] (per file, so
  the same `[^e1]` in two files is never conflated);
* definitions are re-rendered canonically with plain handles expanded to relative
  links; spaces before citations go; the suffix is one space, the file ends in one
  newline;
* control characters (C0 but tab and newline, DEL, C1) become visible marks (`␛`):
  a topic copied from a terminal session must not drive the next terminal that shows
  it, and a NUL would make git treat the file as binary.

All of that keeps every line where it was (new definition lines are inserted, and
`Normalized.origin` maps each output line back to the editor's line), so diagnostics
point at the text the editor wrote. `prune` — empty headings, unused definitions, a
file with no block left — runs only once validation has passed.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..sanitize import visible_controls
from .sources import SourceRecord, anchor_for, archive_path, handle_target, legacy_path, manual_record
from .topics import Citation, Definition, Paragraph, TopicDoc, parse_topic, root_to_topic_rel, topic_rel_to_root

_LOCAL_LABEL = re.compile(r"e\d+|new-evidence-[A-Za-z0-9-]+")
MANUAL_LABEL = "manual note"


def is_local_label(label: str) -> bool:
    return bool(_LOCAL_LABEL.fullmatch(label))


def block_id_for(basename: str, text: str, k: int) -> str:
    seed = f"block|{basename}|{' '.join(text.split())}|{k}"
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:8]


def evidence_id_for(when: str, seed: str, k: int) -> str:
    return "e-" + hashlib.sha256(f"evidence|{when}|{seed}|{k}".encode("utf-8")).hexdigest()[:10]


def render_definition(fid: str, when: str | None, links: Iterable[tuple[str, str]]) -> str:
    return f"[^{fid}]: Time: `{when or 'undated'}`; Sources: " + ", ".join(f"[{label}]({target})" for label, target in links)


@dataclass
class Normalized:
    path: str
    text: str
    origin: list[int | None]  # per output line: the editor's 1-based line, None if inserted
    manual: list[SourceRecord] = field(default_factory=list)
    assigned: list[str] = field(default_factory=list)  # block ids given out here

    def editor_line(self, line: int) -> int:
        """Map a 1-based line of `text` back to the editor's text (nearest line above)."""
        for k in range(min(line, len(self.origin)) - 1, -1, -1):
            if (origin := self.origin[k]) is not None:
                return origin
        return 1


@dataclass
class Context:
    committed: set[str]  # block ids in the live workspace before the edit
    home: Callable[[str], TopicDoc | None]  # block id -> the live document holding it
    taken: set[str]  # ids no new block may get (committed, retired, already assigned)
    frame_exists: Callable[[str, str], bool]  # (archive path, anchor) -> exists in the stage
    manual_at: float | None = None  # human edits: cite uncited paragraphs to a manual source


class Normalizer:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # -- pieces -------------------------------------------------------------------------

    def _expand(self, topic: str, target: str) -> str:
        """A plain source handle as a relative link to its frame (v2 first, then legacy)."""
        handle = target.strip()
        located = handle_target(handle)
        if located is None:
            return target
        path, _, anchor = located.partition("#")
        for location in (path, legacy_path(handle)):
            if location and self.ctx.frame_exists(location, anchor):
                return root_to_topic_rel(topic, f"{location}#{anchor}")
        return target

    def _canonical(self, topic: str, d: Definition, fid: str, rebase_from: str | None = None) -> str:
        links = []
        for s in d.sources:
            target = s.target.strip()
            if rebase_from is not None and "#" in target:
                target = root_to_topic_rel(topic, topic_rel_to_root(rebase_from, target))
            links.append((s.label, self._expand(topic, target)))
        return render_definition(fid, d.when, links)

    @staticmethod
    def _body(p: Paragraph, label: Callable[[Citation], str], tidy: bool, extra: str = "") -> str:
        body, out, pos = p.body, [], 0
        for c in p.citations:
            chunk = body[pos:c.start]
            out.append(chunk.rstrip(" \t") if tidy else chunk)
            out.append(f"[^{label(c)}]")
            pos = c.end
        tail = body[pos:]
        if extra:
            out.append(tail.rstrip(" \t") + f"[^{extra}]")
        else:
            out.append(tail.rstrip(" \t") if tidy and p.suffix_start is None else tail)
        return "".join(out)

    def _new_id(self, basename: str, text: str) -> str:
        k = 0
        while (bid := block_id_for(basename, text, k)) in self.ctx.taken:
            k += 1
        self.ctx.taken.add(bid)
        return bid

    # -- one file -------------------------------------------------------------------------

    def normalize(self, path: str, raw: str) -> Normalized:
        text = visible_controls(raw.replace("\r\n", "\n"))
        text = text.rstrip("\n") + "\n" if text.strip() else ""
        doc = parse_topic(path, text)
        lines = list(doc.lines)
        out = Normalized(path, text, list(range(1, len(lines) + 1)))
        basename = posixpath.basename(path)
        paragraphs = [p for p in doc.paragraphs if not p.legacy and p.suffix_start != 0]
        binding = self._bind_local(doc, paragraphs)
        after: dict[int, list[str]] = {}  # line index -> definition lines to insert after it
        recovered: set[str] = set()
        plans: list[tuple[Paragraph, str, tuple[str, ...]]] = []

        for p in paragraphs:
            kept = tuple(i for i in p.ids if i in self.ctx.committed)
            orphans = [c for c in p.citations
                       if c.id not in doc.definitions and c.id not in recovered and (p.start, c.start) not in binding]
            moved_from = next(filter(None, map(self.ctx.home, kept)), None) if orphans else None
            for c in orphans:
                if moved_from is None or c.id not in moved_from.definitions:
                    continue
                recovered.add(c.id)  # a moved block brings back the evidence it left behind
                line = self._canonical(path, moved_from.definitions[c.id], c.id, rebase_from=moved_from.path)
                after.setdefault(self._definition_slot(lines, p), []).append(line)
            manual = ""
            if not p.citations and self.ctx.manual_at is not None:
                record = manual_record(p.body.strip(), self.ctx.manual_at)
                out.manual.append(record)
                target = root_to_topic_rel(path, f"{archive_path(record.source_id)}#{anchor_for(record.source_id)}")
                manual = _unused_evidence_id("undated", record.source_id, set(doc.definitions) | _defined(after))
                after.setdefault(self._definition_slot(lines, p), []).append(
                    render_definition(manual, None, [(MANUAL_LABEL, target)]))
            ids = kept
            if not ids and (p.citations or manual):
                def written(c: Citation, p: Paragraph = p) -> str:
                    bound = binding.get((p.start, c.start))
                    return bound.id if bound else c.id

                ids = (self._new_id(basename, self._body(p, written, tidy=False, extra=manual)),)
                out.assigned.append(ids[0])
            plans.append((p, manual, ids))

        renames = _evidence_ids(doc, _defined(after))
        for p, manual, ids in plans:
            def label(c: Citation, p: Paragraph = p) -> str:
                bound = binding.get((p.start, c.start))
                return renames[bound.index] if bound else c.id

            body = self._body(p, label, tidy=True, extra=manual)
            if ids:
                gap = " "
                if p.suffix_start is not None:
                    lead = p.text[p.suffix_start:]
                    ws = lead[: len(lead) - len(lead.lstrip())]
                    gap = ws if "\n" in ws else " "
                body = body.rstrip(" \t") + gap + " ".join(f"^{i}" for i in ids)
            lines[p.start:p.end] = body.split("\n")  # spaces and labels changed, never line breaks
        for d in doc.definition_list:
            lines[d.index] = self._canonical(path, d, renames.get(d.index, d.id))

        final: list[str] = []
        origin: list[int | None] = []
        for index, line in enumerate(lines):
            final.append(line)
            origin.append(out.origin[index])
            extra = after.get(index)
            if not extra:
                continue
            framed = not _is_definition(line)  # straight after the paragraph: blank lines around
            block = ([""] if framed else []) + extra
            if framed and index + 1 < len(lines) and lines[index + 1].strip():
                block.append("")
            final.extend(block)
            origin.extend([None] * len(block))
        out.text = "\n".join(final)
        out.origin = origin
        return out

    @staticmethod
    def _bind_local(doc: TopicDoc, paragraphs: list[Paragraph]) -> dict[tuple[int, int], Definition]:
        """Which definition each writer-local citation means: the first definition of its
        label after its paragraph (writers number `[^e1]` afresh per edit), else the last
        one before it; a label defined nowhere takes, in order, the next unused local
        definition after its paragraph."""
        local = [d for d in doc.definition_list if is_local_label(d.id)]
        binding: dict[tuple[int, int], Definition] = {}
        orphans = []
        for p in paragraphs:
            for c in p.citations:
                if not is_local_label(c.id):
                    continue
                same = [d for d in local if d.id == c.id]
                if same:
                    binding[(p.start, c.start)] = next((d for d in same if d.index >= p.end), same[-1])
                else:
                    orphans.append((p, c))
        used = {d.index for d in binding.values()}
        for p, c in orphans:
            free = next((d for d in local if d.index >= p.end and d.index not in used), None)
            if free is not None:
                used.add(free.index)
                binding[(p.start, c.start)] = free
        return binding

    @staticmethod
    def _definition_slot(lines: list[str], p: Paragraph) -> int:
        """The line index after which a new definition for `p` goes: after the run of
        definitions that follows it, or right after the paragraph (with a blank line
        inserted by the caller's text)."""
        first = p.end + 1 if p.end < len(lines) and not lines[p.end].strip() else p.end
        j = first
        while j < len(lines) and _is_definition(lines[j]):
            j += 1
        return j - 1 if j > first else p.end - 1


def _is_definition(line: str) -> bool:
    return line.startswith("[^") and "]:" in line


def _defined(after: dict[int, list[str]]) -> set[str]:
    return {line[2:line.index("]")] for extra in after.values() for line in extra}


def prune(path: str, text: str) -> str | None:
    """Drop unused definitions and headings with no block beneath them (with their own
    text); None when no block is left and the file should go. A canonical file comes
    back unchanged."""
    doc = parse_topic(path, text)
    if not doc.blocks:
        return None
    cited = doc.cited_ids()
    keep_defs = {d.index for d in doc.definition_list if d.id in cited}
    remove = {d.index for d in doc.definition_list if d.id not in cited}
    starts = [p.start for p in doc.blocks]
    for k, h in enumerate(doc.headings):
        section_end = next((g.index for g in doc.headings[k + 1:] if g.level <= h.level), len(doc.lines))
        if not any(h.index < s < section_end for s in starts):
            own_end = doc.headings[k + 1].index if k + 1 < len(doc.headings) else len(doc.lines)
            remove.update(i for i in range(h.index, own_end) if i not in keep_defs)
    if not remove:
        return text
    kept: list[str] = []
    cut = False
    for index, line in enumerate(doc.lines):
        if index in remove:
            cut = True
            continue
        if cut and not line.strip() and (not kept or not kept[-1].strip()):
            continue  # no double blank line where something was cut
        kept.append(line)
        cut = False if line.strip() else cut
    return "\n".join(kept).strip("\n") + "\n"


def _unused_evidence_id(when: str, seed: str, used: set[str]) -> str:
    k = 0
    while (eid := evidence_id_for(when, seed, k)) in used:
        k += 1
    return eid


def _evidence_ids(doc: TopicDoc, inserted: set[str]) -> dict[int, str]:
    """An `e-` id for every local definition (keyed by its line index), unique in the file."""
    used = {d for d in doc.definitions if not is_local_label(d)} | inserted
    out = {}
    for d in doc.definition_list:
        if is_local_label(d.id):
            out[d.index] = _unused_evidence_id(d.raw_when, "|".join(s.target.strip() for s in d.sources), used)
            used.add(out[d.index])
    return out
