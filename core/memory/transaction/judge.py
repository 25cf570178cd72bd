"""Judging a staged edit: the transaction's own rules, normalization, manual sources,
validation, and the final texts (pruned, links repointed). One function per rule.

`judge()` returns a `Verdict`: either the diagnostics that reject the edit, or the
final topic texts and what the change set needs to build the derived views. A legacy
root `core.md` (formats §4.6) is judged as `topics/core.md` when `legacy_core` is given.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core_render import CORE_TOPIC
from ..names import name_problem, printable
from ..normalize import Context, Normalized, Normalizer, prune
from ..sources import SourceIndex, SourceRecord, group_by_archive, plan_append
from ..topics import TopicDoc, parse_cached, relative_link, resolve_topic_link
from ..validate import Diagnostic, Plan, validate
from .stage import Stage, read_bytes, walk_files


@dataclass
class Verdict:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    final: dict[str, str] = field(default_factory=dict)  # every topic after the edit
    docs: dict[str, TopicDoc] = field(default_factory=dict)  # `final`, parsed
    overlay: dict[str, bytes] = field(default_factory=dict)  # archives with the manual records appended
    sources: SourceIndex | None = None  # the staged archive plus `overlay`
    assigned: set[str] = field(default_factory=set)  # block ids this edit gave out
    manual_ids: list[str] = field(default_factory=list)  # manual source ids newly archived

    @property
    def ok(self) -> bool:
        return not self.diagnostics


# -- the transaction's own rules --------------------------------------------------------------

def staged_topics(stage: Stage, diags: list[Diagnostic]) -> dict[str, bytes]:
    """Rule `parse`: only real `.md` files in topics/ (no symlinks, nothing else), each with
    a name memory accepts (names.py: the live files with other names are never staged)."""
    files: dict[str, bytes] = {}

    def walk(directory: str, prefix: str) -> None:
        for entry in os.scandir(directory):
            rel = prefix + entry.name
            if entry.is_symlink():
                diags.append(Diagnostic("parse", f"topics/{printable(rel)}", None, None, "symlinks are not allowed in topics/",
                                        "replace the link with a real file or remove it"))
            elif entry.is_dir():
                walk(entry.path, rel + "/")
            elif not entry.name.endswith(".md"):
                diags.append(Diagnostic("parse", f"topics/{printable(rel)}", None, None,
                                        "only .md topic files belong in topics/", "remove the file or rename it to .md"))
            elif problem := name_problem(rel):
                diags.append(Diagnostic("parse", f"topics/{printable(rel)}", None, None, f"not a topic name: {problem}",
                                        "name topics in UTF-8, without control characters, backslashes or "
                                        "hidden (dot) folders"))
            else:
                with open(entry.path, "rb") as fh:
                    files[rel] = fh.read()

    walk(str(stage.topics), "")
    return files


def sources_append_only(stage: Stage) -> list[Diagnostic]:
    """Rule `sources-append-only`: the staged archive is the live one plus what the
    transaction itself archived, byte for byte."""
    if stage.source_stats() == stage.fingerprint:
        return []
    diags = []
    expected = {f"sources/{rel}": path for rel, path in stage.baseline.sources.items()}
    seen = set()
    for rel, path in walk_files(stage.sources).items():
        key = f"sources/{rel}"
        seen.add(key)
        want = stage.own_sources.get(key)
        if want is None and key in expected:
            want = read_bytes(expected[key])
        got = read_bytes(path)
        if got != want:
            line = 1
            if want is not None and got is not None:
                line = os.path.commonprefix([got, want]).count(b"\n") + 1  # type: ignore[arg-type]  # bytes work
            what = "changed" if want is not None else "added"
            diags.append(Diagnostic("sources-append-only", key, line, None, f"{key} was {what} by the edit",
                                    "never write under sources/: evidence is archived by the runtime"))
    for key in sorted((set(expected) | set(stage.own_sources)) - seen):
        diags.append(Diagnostic("sources-append-only", key, None, None, f"{key} was removed by the edit",
                                "never write under sources/: evidence is archived by the runtime"))
    return diags


def utf8_texts(changed: dict[str, bytes], diags: list[Diagnostic]) -> dict[str, str]:
    """Rule `parse`: every changed topic is valid UTF-8."""
    texts: dict[str, str] = {}
    for rel in sorted(changed):
        try:
            texts[rel] = changed[rel].decode("utf-8")
        except UnicodeDecodeError as exc:
            line = changed[rel][: exc.start].count(b"\n") + 1
            diags.append(Diagnostic("parse", f"topics/{rel}", line, None, "the file is not valid UTF-8",
                                    "save the file as UTF-8"))
    return texts


# -- normalization, manual sources, validation -------------------------------------------------

def normalize(stage: Stage, texts: dict[str, str], manual_at: float | None,
              admit: frozenset[str] = frozenset()) -> dict[str, Normalized]:
    """Each changed topic normalized (ids assigned, citations resolved, manual sources drafted).
    `admit`: ids committed elsewhere that keep their id here too (a sync's incoming blocks)."""
    baseline = stage.baseline
    committed: set[str] = set().union(*(doc.id_set for doc in baseline.docs.values()), admit)
    stage_index = SourceIndex(stage.root)
    ctx = Context(
        committed=committed, home=baseline.home, taken=committed | set(baseline.retired),
        frame_exists=lambda rel, anchor: (scan := stage_index.scan(rel)) is not None and anchor in scan.by_anchor,
        manual_at=manual_at,
    )
    normalizer = Normalizer(ctx)
    return {rel: normalizer.normalize(rel, text) for rel, text in texts.items()}


def manual_sources(stage: Stage, records: list[SourceRecord]) -> tuple[dict[str, bytes], list[str]]:
    """The archives' bytes once a human edit's manual records are appended, and the new ids."""
    overlay: dict[str, bytes] = {}
    added_ids: list[str] = []
    for rel, batch in group_by_archive(records).items():
        new, added = plan_append(read_bytes(stage.root / rel), rel, batch)
        if new is not None:
            overlay[rel] = new
            added_ids += added
    return overlay, added_ids


def repoint_links(live: dict[str, TopicDoc], final: dict[str, str], changed: set[str]) -> dict[str, str]:
    """Block links whose target now lives in another file get the new relative path.
    Only the changed files can have gained ids, so only their ids can have moved."""
    docs = {rel: parse_cached(rel, final[rel]) for rel in final}
    moved: dict[str, str] = {}  # block id -> its new file
    for rel in changed & set(docs):
        before = live.get(rel)
        for bid in docs[rel].id_set:
            if before is None or bid not in before.id_set:
                moved[bid] = rel

    def home(bid: str) -> str | None:
        if bid in moved:
            return moved[bid]
        return next((rel for rel, doc in docs.items() if bid in doc.id_set), None)

    out = dict(final)
    for rel, doc in docs.items():
        if rel not in changed and not any(bid in moved for bid, _line in doc.block_links):
            continue
        edits = []
        for p in doc.paragraphs:
            for link, path, bid in p.block_refs():
                target_home = home(bid)
                if target_home is not None and resolve_topic_link(rel, path) != target_home:
                    target = ("" if target_home == rel else relative_link(rel, target_home)) + "#^" + bid
                    edits.append((p.offset + link.target_start, p.offset + link.target_end, target))
        text = final[rel]
        for start, end, target in sorted(edits, reverse=True):
            text = text[:start] + target + text[end:]
        out[rel] = text
    return out


SECRET_NAME = "the topic name holds a secret"


def secret_names(redact: Callable[[str], str], rels: list[str]) -> list[Diagnostic]:
    """A new topic whose name holds a secret (`topics/AKIA….md`) is refused: a name is in
    git trees, links, derived views and the audit log, where no text redaction reaches.
    The diagnostic names the topic by its redacted name only."""
    diags = []
    for rel in rels:
        redacted, stem = redact(rel), rel.removesuffix(".md")  # `x=secret.md` would read as a dotted name
        if redacted != rel or redact(stem) != stem:
            redacted = redacted if redacted != rel else redact(stem) + ".md"
            diags.append(Diagnostic("parse", f"topics/{printable(redacted)}", None, None,
                                    SECRET_NAME, "name the topic after what it is about"))
    return diags


def judge(stage: Stage, *, conflicts: list[Diagnostic], retire: dict[str, str], evidence: set[str] | None,
          manual_at: float | None, legacy_core: bytes | None = None,
          redact: Callable[[str], str] | None = None, admit: frozenset[str] = frozenset()) -> Verdict:
    """Every rule, in order; the first failing group rejects (later ones would only repeat it).
    `redact` takes the secrets out of every changed topic first (DESIGN §16)."""
    baseline = stage.baseline
    diags = list(conflicts)
    staged = staged_topics(stage, diags)
    if legacy_core is not None:
        staged[CORE_TOPIC] = legacy_core
    diags += sources_append_only(stage)
    texts = utf8_texts({rel: data for rel, data in staged.items() if baseline.topics.get(rel) != data}, diags)
    if diags:
        return Verdict(diags)
    if redact is not None:
        diags += secret_names(redact, [rel for rel in staged if rel not in baseline.topics])
        if diags:
            return Verdict(diags)
        texts = {rel: redact(text) for rel, text in texts.items()}

    normalized = normalize(stage, texts, manual_at, admit)
    overlay, manual_ids = manual_sources(stage, [r for n in normalized.values() for r in n.manual])
    sources = SourceIndex(stage.root, overlay)
    stage_docs = {rel: baseline.docs[rel] for rel in staged if rel not in normalized}
    stage_docs.update({rel: parse_cached(rel, n.text) for rel, n in normalized.items()})
    assigned = {bid for n in normalized.values() for bid in n.assigned}
    diags = validate(Plan(baseline.docs, stage_docs, normalized, dict(retire), assigned, evidence, sources))
    if diags:
        return Verdict(diags)

    final: dict[str, str] = {rel: baseline.docs[rel].text for rel in staged if rel not in normalized}
    for rel, n in normalized.items():
        pruned = prune(rel, n.text)
        if pruned is not None:
            final[rel] = pruned
    final = repoint_links(baseline.docs, final, set(normalized))
    docs = {rel: parse_cached(rel, text) for rel, text in final.items()}
    return Verdict([], final, docs, overlay, sources, assigned, manual_ids)
