"""The rules every transaction must pass (DESIGN §6), as structured diagnostics.

A `Diagnostic` names the rule, the file and line (in the text the editor wrote), the
block id when there is one, what is wrong and how to fix it; the writer's repair
prompt and the TUI's inline display are both built from it.

Cost follows the edit: files the edit changed are checked completely (parse,
citations against the archive, links); every other file only as far as ids and
links are concerned — its ids still count for uniqueness, and its links are checked
against the blocks this edit removes. Unchanged files were valid when installed
and sources only grow, so nothing else about them can have broken.
"""

from __future__ import annotations

import posixpath
from dataclasses import asdict, dataclass

from .normalize import Normalized
from .sources import SourceIndex
from .topics import UNUSED_DEFINITION, Paragraph, TopicDoc, is_relative_target, topic_rel_to_root

RULES: dict[str, str] = {
    "sources-append-only": "existing bytes under sources/ are never changed by an edit",
    "block-id-kept": "every block id that existed before still exists, unless explicitly retired",
    "block-id-unique": "no block id appears twice",
    "retire": "a retirement names a block that existed, and that block is gone",
    "link-resolves": "every link to topic#^block points at an existing block",
    "citation-exists": "every cited source exists in the archive",
    "citation-in-batch": "a writer's new blocks cite this batch; no new evidence comes from outside it",
    "citation-trusted": "a record a block newly cites is trusted (pending evidence is promoted first)",
    "citation-required": "every paragraph is a block citing its evidence",
    "parse": "every file is UTF-8 topic Markdown with well-formed block ids and footnotes",
    "conflict": "the workspace has not changed since the edit began",
}


@dataclass(frozen=True)
class Diagnostic:
    rule: str
    file: str | None  # relative to the workspace root, e.g. "topics/people/ada.md"
    line: int | None
    block_id: str | None
    message: str
    hint: str

    def to_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class Plan:
    """What one validation looks at. Topic paths are relative to `topics/`."""

    live: dict[str, TopicDoc]  # the workspace before the edit
    stage: dict[str, TopicDoc]  # every topic after the edit (normalized)
    changed: dict[str, Normalized]  # the files the edit changed and that still exist
    retire: dict[str, str]  # block id -> reason
    assigned: set[str]  # block ids given out by this transaction
    evidence: set[str] | None  # this batch's sources as root targets; None = unrestricted
    sources: SourceIndex  # the staged archive


def _topic_link_path(rel: str, target: str) -> str | None:
    """The topic a relative `.md` link points at (relative to topics/), if it stays inside."""
    if not is_relative_target(target):
        return None
    path = target.partition("#")[0]
    if not path.endswith(".md"):
        return None
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
    return None if resolved.startswith("..") else resolved


def validate(plan: Plan) -> list[Diagnostic]:
    out: list[Diagnostic] = []

    def at(rel: str, line: int) -> int:
        norm = plan.changed.get(rel)
        return norm.editor_line(line) if norm else line

    def add(rule: str, rel: str | None, line: int | None, block_id: str | None, message: str, hint: str) -> None:
        out.append(Diagnostic(rule, f"topics/{rel}" if rel else None, at(rel, line) if rel and line else line,
                              block_id, message, hint))

    # 5. every changed file parses
    for rel in sorted(plan.changed):
        for issue in plan.stage[rel].issues:
            if issue.rule != UNUSED_DEFINITION:
                add(issue.rule, rel, issue.line, issue.block_id, issue.message, issue.hint)

    # 2. ids kept, unique, retirements honoured. Only the changed (or deleted) files can
    # lose or duplicate an id; the others contribute their id sets.
    touched = sorted(set(plan.changed) | (set(plan.live) - set(plan.stage)))
    unchanged = [rel for rel in plan.stage if rel not in plan.changed]
    elsewhere: set[str] = set().union(*(plan.stage[rel].id_set for rel in unchanged))
    seen: dict[str, tuple[str, int]] = {}  # ids of the changed files, first occurrence
    for rel in sorted(plan.changed):
        for bid, line in plan.stage[rel].block_ids:
            first = seen.get(bid)
            if first is None and bid not in elsewhere:
                seen[bid] = (rel, line)
                continue
            if first is None:
                home = next(r for r in sorted(unchanged) if bid in plan.stage[r].id_set)
                first = (home, dict(plan.stage[home].block_ids)[bid])
            add("block-id-unique", rel, line, bid,
                f"block id ^{bid} appears twice (also topics/{first[0]} line {at(first[0], first[1])})",
                "keep the id on one paragraph only; a copied paragraph gets its own id when you drop the ^id")
    before = {bid: (rel, line) for rel in touched if rel in plan.live for bid, line in plan.live[rel].block_ids}
    removed = set(before) - set(seen) - elsewhere
    for bid in sorted(removed - set(plan.retire), key=before.__getitem__):
        rel, line = before[bid]  # where the block stood before the edit: the draft no longer has it
        out.append(Diagnostic(
            "block-id-kept", f"topics/{rel}", line, bid, f"block ^{bid} (topics/{rel} line {line}) is missing",
            f"keep ^{bid} at the end of its paragraph (text may change, the id may not), "
            "or retire the block explicitly with a reason"))
    for bid in sorted(plan.retire):
        if bid not in before and bid not in elsewhere:
            add("retire", None, None, bid, f"there is no block ^{bid} to retire", "retire an id that exists")
        elif bid not in removed:
            rel = seen[bid][0] if bid in seen else next(r for r in sorted(unchanged) if bid in plan.stage[r].id_set)
            add("retire", rel, dict(plan.stage[rel].block_ids)[bid], bid, f"block ^{bid} is retired but still present",
                "remove the retired paragraph (or its ^id) from the topic")

    # 3. links resolve
    for rel in unchanged if removed else ():
        for bid, line in plan.stage[rel].block_links:
            if bid in removed:
                add("link-resolves", rel, line, bid, f"links to block ^{bid}, which this change removes",
                    "repoint the link to another block (path.md#^id) or remove it in the same change")
    for rel in sorted(plan.changed):
        doc = plan.stage[rel]
        for p in doc.paragraphs:
            for link in p.links:
                ref = link.block_ref
                if ref is not None:
                    if ref[1] not in seen and ref[1] not in elsewhere:
                        add("link-resolves", rel, p.line, p.block_id, f"dangling block link: {link.target}",
                            "link to an existing block as [text](path.md#^id)")
                elif _topic_link_path(rel, link.target) is not None:
                    add("link-resolves", rel, p.line, p.block_id, f"topic link without a block: {link.target}",
                        "links between topics must name a block: [text](path.md#^id)")

    # 4. citations exist (and, for a writer's batch, come from it)
    baseline_targets: set[str] = set()
    if plan.evidence is not None:
        for doc in plan.live.values():
            baseline_targets |= doc.cited_targets
    for rel in sorted(plan.changed):
        doc = plan.stage[rel]
        cited = doc.cited_ids()
        missing = set()
        for d in doc.definition_list:
            if d.id not in cited:
                continue
            for s in d.sources:
                if plan.sources.resolve(topic_rel_to_root(rel, s.target.strip())) is None:
                    missing.add(d.id)
                    add("citation-exists", rel, d.line, None, f"missing source reference: {s.target}",
                        "cite a record that exists in sources/ (path relative to this file, #source-… anchor)")
        if plan.evidence is None:
            continue
        for p in doc.blocks:
            if any(c.id in missing for c in p.citations):
                continue  # already rejected for the missing source
            targets = _cited_targets(rel, doc, p)
            if plan.evidence and set(p.ids) & plan.assigned and not targets & plan.evidence:
                add("citation-in-batch", rel, p.line, p.block_id, "new block cites none of this batch's records",
                    "cite at least one record of the batch you are writing")
            for target in sorted(targets - baseline_targets - plan.evidence):
                add("citation-in-batch", rel, p.line, p.block_id, f"cites a source outside this batch: {target}",
                    "cite only this batch's records, or evidence the workspace already cites")

    # 6. what a block newly cites is trusted (formats §4.6): a pending v2 record — a
    # speaker whose authority is not established — cannot become memory by being cited
    staged_ids = {bid for rel in plan.changed for bid in plan.stage[rel].id_set}
    cited_before: dict[str, set[str]] = {}  # block id -> source ids it cited (targets may be spelled anew)
    for rel, doc in plan.live.items():
        for p in doc.blocks:
            if staged_ids.intersection(p.ids):
                frames = [plan.sources.resolve(t) for t in _cited_targets(rel, doc, p)]
                cited = {f.source_id for f in frames if f is not None}
                for bid in p.ids:
                    cited_before.setdefault(bid, set()).update(cited)
    for rel in sorted(plan.changed):
        doc = plan.stage[rel]
        for p in doc.blocks:
            known = set().union(*(cited_before.get(bid, ()) for bid in p.ids))
            for target in sorted(_cited_targets(rel, doc, p)):
                frame = plan.sources.resolve(target)
                if frame is not None and not frame.trusted and frame.source_id not in known:
                    add("citation-trusted", rel, p.line, p.block_id, f"source reference is not trusted; promote it "
                        f"first: {target}", "cite trusted evidence; a pending record must be promoted by its owner first")
    return out


def _cited_targets(rel: str, doc: TopicDoc, p: Paragraph) -> set[str]:
    """The root-relative source targets a block's footnotes cite."""
    return {topic_rel_to_root(rel, s.target.strip())
            for c in p.citations if c.id in doc.definitions for s in doc.definitions[c.id].sources}
