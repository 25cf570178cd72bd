"""The one transaction every change to memory goes through (DESIGN §6).

    with Transaction(ws, "edit", "fix Ada's drink") as txn:
        txn.write_topic("people/ada.md", new_text)     # a human's new text
        # or: txn.apply(lambda topics_dir: ...)         # a writer/organizer working in the stage
        result = txn.commit()                           # installed, or rejected with diagnostics

Order, as the design fixes it: the write lock is taken (a wait longer than the
timeout raises the retryable `LockBusy`); an interrupted earlier install is repaired;
the baseline (topic bytes, block ids, links, sources) is read from the live workspace
BEFORE anything is copied; a fresh stage is made in a temp directory with `topics/`
writable and `sources/` read-only at the file-system level; the edit is applied; the
changed files are normalized (normalize.py) and everything is validated
(validate.py); only then are the derived views rebuilt and the whole change
installed (install.py), committed to git and audited. A rejection changes no byte.

`check()` (or `Transaction(..., preview=True)` then `commit()`) validates and computes
the result and its diff without installing: the sleep preview. `reset()` puts the
stage back for a repair attempt. `archive(records)` appends evidence into the stage
as the transaction itself (the editor never writes `sources/`); its ids become the
batch whose records a writer's new blocks must cite.
"""

from __future__ import annotations

import difflib
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import git

from ..paths import StatePaths
from ..runtime_state import load_runtime, save_runtime
from . import derived, install
from .core_render import CORE_TOPIC, CoreRender, promoted_legacy_core, render_core
from .errors import ArchiveError, TransactionClosed
from .normalize import Context, Normalized, Normalizer, prune
from .retired import RETIRED_NAME, dump_retired, load_retired
from .sources import (
    SourceIndex,
    SourceRecord,
    anchor_for,
    archive_path,
    colliding_paths,
    group_by_archive,
    plan_append,
)
from .topics import TopicDoc, parse_cached, relative_link, resolve_topic_link, topic_rel, without_block
from .validate import Diagnostic, Plan, validate
from .workspace import Workspace

KINDS = ("write", "sleep", "edit", "revert", "migrate")
LOCK_TIMEOUT = 1.0  # seconds; a longer wait is a retryable failure: a user must never wait on memory
_DIFFED = ("topics/", "sources/", "core.md")


@dataclass
class TransactionResult:
    outcome: str  # "installed" | "rejected" | "previewed"
    kind: str
    summary: str
    commit: str | None = None
    changed_files: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    created_blocks: list[str] = field(default_factory=list)
    retired: list[dict[str, str]] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)  # source ids newly appended
    core: CoreRender | None = None
    before: dict[str, bytes | None] = field(default_factory=dict, repr=False)
    after: dict[str, bytes | None] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return self.outcome != "rejected"

    @property
    def changed_topics(self) -> list[str]:
        return [f for f in self.changed_files if f.startswith("topics/")]

    @property
    def diff(self) -> str:
        """Unified diff of what the edit did (topics, sources, the rendered core)."""
        out = []
        for path in self.changed_files:
            if not path.startswith(_DIFFED):
                continue
            old = (self.before.get(path) or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
            new = (self.after.get(path) or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
            out.extend(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"))
        return "".join(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "commit": self.commit,
            "changed_files": self.changed_files,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def _walk_files(root: Path) -> dict[str, str]:
    """Every regular file under `root`: posix path relative to it -> os path; symlinks skipped."""
    out: dict[str, str] = {}

    def walk(directory: str, prefix: str) -> None:
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, f"{prefix}{entry.name}/")
            elif entry.is_file(follow_symlinks=False):
                out[prefix + entry.name] = entry.path

    walk(str(root), "")
    return dict(sorted(out.items()))


def _read(path: str | Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _stage_parent() -> str | None:
    """Where stages are made: in memory when the system offers it (Linux /dev/shm) — a
    stage is thrown away after every transaction — else the default temp directory."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


class Transaction:
    """A staged change to the workspace; use as a context manager (holds the write lock)."""

    def __init__(
        self, workspace: Workspace, kind: str, summary: str = "", *,
        evidence: Iterable[str] | None = None, lock_timeout: float = LOCK_TIMEOUT,
        preview: bool = False, manual_sources: bool | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"transaction kind must be one of {', '.join(KINDS)}: {kind!r}")
        self.ws = workspace
        self.kind = kind
        self.summary = summary
        self.preview = preview
        self.lock_timeout = lock_timeout
        self.manual_sources = kind == "edit" if manual_sources is None else manual_sources
        self.evidence: set[str] | None = (
            None if evidence is None else {f"{archive_path(s)}#{anchor_for(s)}" for s in evidence}
        )
        self._stack: ExitStack | None = None
        self._closed = False
        self._retire: dict[str, str] = {}
        self._conflicts: list[Diagnostic] = []
        self._archived: list[str] = []
        self._at = time.time()

    # -- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Transaction:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        if self._stack is not None or self._closed:
            raise TransactionClosed("a transaction opens once")
        stack = ExitStack()
        try:
            stack.enter_context(self.ws.lock(self.lock_timeout))
            self.ws.recover_locked()
            self._read_baseline()  # before anything is copied
            self._tmp = Path(tempfile.mkdtemp(prefix="scriptorium-stage-", dir=_stage_parent()))
            stack.callback(shutil.rmtree, self._tmp, ignore_errors=True)
            stack.callback(self._unlock_stage_sources)  # runs first: read-only dirs block the removal
            self._make_stage()
        except BaseException:
            stack.close()
            raise
        self._stack = stack

    def close(self) -> None:
        self._closed = True
        if self._stack is not None:
            stack, self._stack = self._stack, None
            stack.close()

    def _ensure_open(self) -> None:
        if self._stack is None:
            raise TransactionClosed("the transaction is not open (use it as a context manager)")

    # -- baseline and stage -----------------------------------------------------------------

    def _read_baseline(self) -> None:
        ws = self.ws
        self._live: dict[str, bytes] = {}
        for rel, path in _walk_files(ws.topics).items():
            if rel.endswith(".md"):
                with open(path, "rb") as fh:
                    self._live[rel] = fh.read()
        self._live_docs: dict[str, TopicDoc] = {
            rel: parse_cached(rel, data.decode("utf-8", errors="replace")) for rel, data in self._live.items()
        }
        self._live_sources = _walk_files(ws.sources)
        self._core_in_head: bool | None = None  # see _core_committed
        self._runtime = load_runtime(ws.paths)
        self._retired = load_retired(ws.runtime)

    def _make_stage(self) -> None:
        self.stage = self._tmp / "memory"  # a state-directory layout: runtime_state can save into it
        topics = self.stage / "topics"
        topics.mkdir(parents=True)
        self._write_tree(topics, self._live)
        sources = self.stage / "sources"
        sources.mkdir()
        made: set[str] = set()
        for rel, path in self._live_sources.items():
            target = os.path.join(sources, rel)
            parent = os.path.dirname(target)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            shutil.copyfile(path, target)
        self._own_sources: dict[str, bytes] = {}  # sources/… -> bytes the transaction appended
        self._lock_stage_sources()
        self._fingerprint = self._source_stats()

    @staticmethod
    def _write_tree(root: Path, files: dict[str, bytes]) -> None:
        made: set[str] = set()
        for rel, data in files.items():
            target = os.path.join(root, rel)
            parent = os.path.dirname(target)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            with open(target, "wb") as fh:
                fh.write(data)

    def _lock_stage_sources(self) -> None:
        for dirpath, _dirs, files in os.walk(self.stage / "sources", topdown=False):
            for name in files:
                os.chmod(Path(dirpath) / name, 0o444)
            os.chmod(dirpath, 0o555)

    def _unlock_stage_sources(self) -> None:
        for dirpath, dirs, _files in os.walk(self._tmp / "memory" / "sources"):
            os.chmod(dirpath, 0o755)
            for name in dirs:
                os.chmod(Path(dirpath) / name, 0o755)

    def _source_stats(self) -> dict[str, tuple[int, ...]]:
        out = {}
        for dirpath, dirs, files in os.walk(self.stage / "sources"):
            for name in dirs + files:
                path = Path(dirpath) / name
                st = path.lstat()
                key = path.relative_to(self.stage).as_posix()
                out[key] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        return out

    @property
    def topics_dir(self) -> Path:
        """The stage's `topics/`: where an editor works."""
        self._ensure_open()
        return self.stage / "topics"

    @property
    def sources_dir(self) -> Path:
        """The stage's read-only `sources/` (the batch's records included once archived)."""
        self._ensure_open()
        return self.stage / "sources"

    # -- edits ---------------------------------------------------------------------------------

    def live_text(self, topic: str) -> str | None:
        """The topic as it is in the live workspace (the baseline), or None."""
        data = self._live.get(topic_rel(topic))
        return None if data is None else data.decode("utf-8", errors="replace")

    def read_topic(self, topic: str) -> str | None:
        self._ensure_open()
        data = _read(self.topics_dir / topic_rel(topic))
        return None if data is None else data.decode("utf-8", errors="replace")

    def write_topic(self, topic: str, text: str | bytes, *, base: str | None = None) -> None:
        """Replace a topic's text (creating it if new); bytes are checked as UTF-8 by
        validation. With `base`, the text the editor started from: if the live topic
        differs, the transaction is rejected (`conflict`)."""
        self._ensure_open()
        rel = topic_rel(topic)
        if base is not None and self.live_text(rel) != base:
            self._conflicts.append(Diagnostic(
                "conflict", f"topics/{rel}", None, None, f"topics/{rel} changed on disk since the edit began",
                "reload the topic (or keep your draft) and save again"))
        target = self.topics_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))

    def delete_topic(self, topic: str) -> None:
        self._ensure_open()
        (self.topics_dir / topic_rel(topic)).unlink(missing_ok=True)

    def apply(self, edit: Callable[[Path], object]) -> None:
        """Let `edit(topics_dir)` change the staged topics (a writer's or organizer's tools)."""
        self._ensure_open()
        edit(self.topics_dir)

    def retire(self, block_id: str, reason: str) -> None:
        """Allow `block_id` to leave memory, for `reason` (recorded in the audit log)."""
        reason = _one_line(reason, 500)
        if not reason:
            raise ValueError("retiring a block needs a reason")
        self._retire[block_id] = reason

    def archive(self, records: Iterable[SourceRecord]) -> list[str]:
        """Append `records` to the staged archive (idempotent); their ids join this
        transaction's evidence. Returns the ids of all `records`."""
        self._ensure_open()
        records = list(records)
        groups = group_by_archive(records)
        existing = [f"sources/{rel}" for rel in self._live_sources] + list(self._own_sources)
        if bad := colliding_paths(groups, existing):
            raise ArchiveError(f"archive path collides with an existing one: {bad[0]}")
        self._unlock_stage_sources()
        try:
            for rel, batch in groups.items():
                target = self.stage / rel
                new, added = plan_append(_read(target), rel, batch)
                if new is None:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.exists():
                    os.chmod(target, 0o644)
                target.write_bytes(new)
                self._own_sources[rel] = new
                self._archived += added
        finally:
            self._lock_stage_sources()
        self._fingerprint = self._source_stats()
        ids = [r.source_id for r in records]
        self.evidence = (self.evidence or set()) | {f"{archive_path(s)}#{anchor_for(s)}" for s in ids}
        return ids

    def reset(self) -> None:
        """Put the staged topics back as they are live (a repair attempt starts over);
        archived evidence stays, retirements are forgotten."""
        self._ensure_open()
        shutil.rmtree(self.topics_dir)
        self.topics_dir.mkdir()
        self._write_tree(self.topics_dir, self._live)
        self._retire.clear()
        self._conflicts.clear()

    # -- judging ---------------------------------------------------------------------------

    def _stage_topics(self, diags: list[Diagnostic]) -> dict[str, bytes]:
        files: dict[str, bytes] = {}

        def walk(directory: str, prefix: str) -> None:
            for entry in os.scandir(directory):
                rel = prefix + entry.name
                if entry.is_symlink():
                    diags.append(Diagnostic("parse", f"topics/{rel}", None, None, "symlinks are not allowed in topics/",
                                            "replace the link with a real file or remove it"))
                elif entry.is_dir():
                    walk(entry.path, rel + "/")
                elif not entry.name.endswith(".md"):
                    diags.append(Diagnostic("parse", f"topics/{rel}", None, None, "only .md topic files belong in topics/",
                                            "remove the file or rename it to .md"))
                else:
                    with open(entry.path, "rb") as fh:
                        files[rel] = fh.read()

        walk(str(self.topics_dir), "")
        return files

    def _check_sources(self) -> list[Diagnostic]:
        if self._source_stats() == self._fingerprint:
            return []
        diags = []
        expected = {f"sources/{rel}": path for rel, path in self._live_sources.items()}
        seen = set()
        for rel, path in _walk_files(self.stage / "sources").items():
            key = f"sources/{rel}"
            seen.add(key)
            want = self._own_sources.get(key)
            if want is None and key in expected:
                want = _read(expected[key])
            got = _read(path)
            if got != want:
                line = 1
                if want is not None:
                    common = os.path.commonprefix([got, want])
                    line = common.count(b"\n") + 1
                diags.append(Diagnostic("sources-append-only", key, line, None,
                                        f"{key} was changed by the edit" if want is not None else f"{key} was added by the edit",
                                        "never write under sources/: evidence is archived by the runtime"))
        for key in sorted((set(expected) | set(self._own_sources)) - seen):
            diags.append(Diagnostic("sources-append-only", key, None, None, f"{key} was removed by the edit",
                                    "never write under sources/: evidence is archived by the runtime"))
        return diags

    def check(self) -> TransactionResult:
        """Validate the staged edit and compute what installing it would change.

        A legacy root `core.md` (formats §4.6) is promoted into `topics/core.md` along
        with the edit when the result passes; when it would not, the edit is judged
        without it and the legacy file is left as it is."""
        legacy = self._legacy_core()
        if legacy is None:
            return self._check(None)
        result = self._check(legacy)
        if result.outcome == "rejected" and any(d.file == f"topics/{CORE_TOPIC}" for d in result.diagnostics):
            return self._check(None)
        return result

    def _legacy_core(self) -> bytes | None:
        """The promotable root `core.md`: there is no `topics/core.md` on disk, in the stage
        or in the last commit (a core deleted since must not come back from its render)."""
        if CORE_TOPIC in self._live or (self.topics_dir / CORE_TOPIC).exists():
            return None
        root = _read(self.ws.root / "core.md")
        if root is None or self._core_committed():
            return None
        text = promoted_legacy_core(root.decode("utf-8", errors="replace"))
        return text.encode("utf-8") if text is not None else None

    def _core_committed(self) -> bool:
        """Whether the last commit has `topics/core.md` (asked only when the disk has none)."""
        if self._core_in_head is None:
            try:
                self.ws.repo.git.cat_file("-e", f"HEAD:topics/{CORE_TOPIC}")
                self._core_in_head = True
            except git.GitCommandError:  # never committed, or no commit yet
                self._core_in_head = False
        return self._core_in_head

    def _check(self, legacy_core: bytes | None) -> TransactionResult:
        self._ensure_open()
        result = TransactionResult("previewed", self.kind, self.summary)
        diags: list[Diagnostic] = list(self._conflicts)
        staged = self._stage_topics(diags)
        if legacy_core is not None:
            staged[CORE_TOPIC] = legacy_core
        diags += self._check_sources()

        changed_raw = {rel: data for rel, data in staged.items() if self._live.get(rel) != data}
        texts: dict[str, str] = {}
        for rel in sorted(changed_raw):
            try:
                texts[rel] = changed_raw[rel].decode("utf-8")
            except UnicodeDecodeError as exc:
                line = changed_raw[rel][: exc.start].count(b"\n") + 1
                diags.append(Diagnostic("parse", f"topics/{rel}", line, None, "the file is not valid UTF-8",
                                        "save the file as UTF-8"))
        if diags:
            return self._rejected(result, diags)

        committed: set[str] = set().union(*(doc.id_set for doc in self._live_docs.values()))
        stage_index = SourceIndex(self.stage)
        ctx = Context(
            committed=committed, home=self._home, taken=committed | set(self._retired),
            frame_exists=lambda rel, anchor: (scan := stage_index.scan(rel)) is not None and anchor in scan.by_anchor,
            manual_at=self._at if self.manual_sources else None,
        )
        normalizer = Normalizer(ctx)
        normalized: dict[str, Normalized] = {rel: normalizer.normalize(rel, text) for rel, text in texts.items()}
        manual = [r for n in normalized.values() for r in n.manual]
        overlay, manual_ids = self._plan_manual(manual)
        sources = SourceIndex(self.stage, overlay)
        stage_docs = {rel: self._live_docs[rel] for rel in staged if rel not in normalized}
        stage_docs.update({rel: parse_cached(rel, n.text) for rel, n in normalized.items()})
        assigned = {bid for n in normalized.values() for bid in n.assigned}
        plan = Plan(self._live_docs, stage_docs, normalized, dict(self._retire), assigned, self.evidence, sources)
        diags = validate(plan)
        if diags:
            return self._rejected(result, diags)

        final: dict[str, str] = {rel: self._live_docs[rel].text for rel in staged if rel not in normalized}
        for rel, n in normalized.items():
            pruned = prune(rel, n.text)
            if pruned is not None:
                final[rel] = pruned
        final = self._repoint_links(final, set(normalized))
        docs = {rel: parse_cached(rel, text) for rel, text in final.items()}
        self._compute_changes(result, docs, final, overlay, sources, assigned)
        result.archived = self._archived + manual_ids
        return result

    def _home(self, block_id: str) -> TopicDoc | None:
        """The live document holding `block_id` (a moved block's evidence is found there)."""
        return next((doc for _rel, doc in sorted(self._live_docs.items()) if block_id in doc.id_set), None)

    def _rejected(self, result: TransactionResult, diags: list[Diagnostic]) -> TransactionResult:
        result.outcome = "rejected"
        result.diagnostics = sorted(diags, key=lambda d: (d.file or "", d.line or 0, d.rule))
        return result

    def _plan_manual(self, records: list[SourceRecord]) -> tuple[dict[str, bytes], list[str]]:
        """The archives' bytes once the manual records are appended, and the new ids."""
        overlay: dict[str, bytes] = {}
        added_ids: list[str] = []
        for rel, batch in group_by_archive(records).items():
            new, added = plan_append(_read(self.stage / rel), rel, batch)
            if new is not None:
                overlay[rel] = new
                added_ids += added
        return overlay, added_ids

    def _repoint_links(self, final: dict[str, str], changed: set[str]) -> dict[str, str]:
        """Block links whose target now lives in another file get the new relative path.
        Only the changed files can have gained ids, so only their ids can have moved."""
        docs = {rel: parse_cached(rel, final[rel]) for rel in final}
        moved: dict[str, str] = {}  # block id -> its new file
        for rel in changed & set(docs):
            before = self._live_docs.get(rel)
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

    def _compute_changes(
        self, result: TransactionResult, docs: dict[str, TopicDoc], final: dict[str, str],
        overlay: dict[str, bytes], sources: SourceIndex, assigned: set[str],
    ) -> None:
        ws = self.ws
        after: dict[str, bytes | None] = {}
        for rel in set(self._live) | set(final):
            new = final[rel].encode("utf-8") if rel in final else None
            if new != self._live.get(rel):
                after[f"topics/{rel}"] = new
        for rel, data in {**self._own_sources, **overlay}.items():
            after[rel] = data  # compared with the live bytes below

        units = derived.all_units(docs)
        previous = self._runtime.get("creation_order") or {
            u.memory_id: n for n, u in enumerate(derived.all_units(self._live_docs))}
        order = derived.creation_order(previous, units)
        budget = ws.core_budget()
        dates = derived.dates_to_rebuild(str(ws.root), docs)
        after.update(derived.timeline(docs, dates))
        if dates is None:  # a full rebuild: whatever else is in timeline/ goes
            for rel in _walk_files(ws.root / "timeline"):
                after.setdefault(f"timeline/{rel}", None)
        self._docs = docs
        after["relations.json"] = derived.relations(docs)
        after["recent_events.jsonl"] = derived.recent_events(units, order, sources, ws.recent_limit())
        core_doc = docs.get(CORE_TOPIC)
        if core_doc is not None:
            result.core = render_core(core_doc, budget, sources)
            after["core.md"] = result.core.text.encode("utf-8")
        elif CORE_TOPIC in self._live or ((ws.root / "core.md").exists() and self._core_committed()):
            after["core.md"] = None  # the canonical core was deleted (here or by hand): so is its render

        if order != self._runtime.get("creation_order"):  # serializing 5,000 ids is not free
            save_runtime(StatePaths(self._tmp), dict(self._runtime, creation_order=order))
            after[f"{ws.runtime.name}/runtime.json"] = (self._tmp / "memory" / ws.runtime.name / "runtime.json").read_bytes()
        if self._retire:
            registry = dict(self._retired)
            for bid, reason in sorted(self._retire.items()):
                home = self._home(bid)
                entry = {"reason": reason, "file": f"topics/{home.path}" if home else None,
                         "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
                registry[bid] = entry
                result.retired.append({"id": bid, **entry})
            after[f"{ws.runtime.name}/{RETIRED_NAME}"] = dump_retired(registry)

        before = {path: (self._live.get(path[len("topics/"):]) if path.startswith("topics/") else _read(ws.root / path))
                  for path in after}
        changed = sorted(p for p in after if after[p] != before[p])
        result.before = {p: before[p] for p in changed}
        result.after = {p: after[p] for p in changed}
        internal = ws.runtime.name + "/"
        result.changed_files = [p for p in changed if not p.startswith(internal)]
        result.created_blocks = sorted(assigned & {u.memory_id for u in units})

    def commit(self) -> TransactionResult:
        """Validate and, unless rejected or previewing, install, commit and audit."""
        result = self.check()
        if result.outcome == "rejected" or self.preview:
            return result
        ws = self.ws
        txn = secrets.token_hex(8)
        message = _one_line(f"{self.kind}: {self.summary or 'update memory'}")
        record = {
            "txn": txn, "at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "kind": self.kind,
            "summary": _one_line(self.summary, 500), "changed_files": result.changed_files,
            "created_blocks": result.created_blocks, "retired": result.retired, "archived": result.archived,
            "workspace": ws.id,
        }
        changes = [install.Change(path, result.after[path]) for path in sorted(result.after)]
        if changes:
            result.commit = install.install(ws.root, ws.runtime, ws.repo, changes, txn=txn, message=message,
                                            audit_record=record)
        derived.remember_build(str(ws.root), self._docs)
        result.outcome = "installed"
        self.close()
        return result


def save_topic(workspace: Workspace, topic: str, text: str | bytes, *, summary: str | None = None,
               base: str | None = None, lock_timeout: float = LOCK_TIMEOUT) -> TransactionResult:
    """A human's edit of one topic (`people/ada.md`; `core.md` is the canonical core)."""
    rel = topic_rel(topic)
    with Transaction(workspace, "edit", summary or f"edit topics/{rel}", lock_timeout=lock_timeout) as txn:
        txn.write_topic(rel, text, base=base)
        return txn.commit()


def retire_block(workspace: Workspace, topic: str, block_id: str, reason: str, *,
                 lock_timeout: float = LOCK_TIMEOUT) -> TransactionResult:
    """Take block `block_id` out of `topic` and record it as retired with `reason`.
    Links elsewhere that still point at it reject the transaction."""
    rel = topic_rel(topic)
    with Transaction(workspace, "edit", f"retire ^{block_id} from topics/{rel}: {reason}",
                     lock_timeout=lock_timeout) as txn:
        txn.retire(block_id, reason)
        text = txn.read_topic(rel)
        if text is not None:
            txn.write_topic(rel, without_block(parse_cached(rel, text), block_id))
        return txn.commit()

