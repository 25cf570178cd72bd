"""The evidence archive: `sources/<origin>/_v2/<thread>.md`, v2 record-lines frames.

Exact grammar: spec/openprogram-formats.md §2.4. The archive is append-only and
content-addressed (a source id `P/T/M` fixes its file and its anchor), so archiving
the same records twice changes no byte.

Reading is strict: `scan_archive` returns the valid prefix of frames and stops at the
first malformed or truncated frame, never resynchronising. A frame declares how many
record lines it holds, and the scanner consumes exactly that many, so text inside a
record body — even a perfect-looking frame header a user typed into a conversation —
is body text and is never trusted as a frame.

Better than the reference: an archive stays appendable whatever its trailing newlines
(one, two, none after a complete frame, or a surplus that the next append trims).
Legacy archives (`sources/<p>/<t>.md`, `sources/D<n>.md`) are read, never written.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import posixpath
import re
import threading
import unicodedata
import urllib.parse
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from .errors import ArchiveError, InvalidRecord

MARKER = "<!-- openprogram-source-archive:v2 -->"
V2_DIR = "_v2"
SOURCES = "sources"

_ANCHOR_LINE = re.compile(r'<a id="([^"\r\n]*)"></a>')
_ID_LINE = re.compile(r"<!-- source-id:([^\r\n]*) -->")
_SPEAKER_LINE = re.compile(r"<!-- speaker-id:([^\r\n]*) -->")
_META_LINE = re.compile(r"<!-- source-meta:([A-Za-z0-9_-]*) -->")
_COUNT_LINE = re.compile(r"<!-- record-lines:(\d{1,9}) -->")
_FIRST_RECORD = re.compile(r"\[[^]]*\]\s+.+?: .*")
_LEGACY_PAIR = re.compile(r'^<a id="([^"]+)"></a>\n<!-- source-id:([^>\r\n]+) -->', re.M)
_D_ANCHOR = re.compile(r'^<a id="(d(\d+)-(\d+))"></a>', re.M)
_D_FILE = re.compile(r"sources/D(\d+)\.md")
_FORBIDDEN_IN_ID = set("[]<>\r\n")


# -- identities and locations -------------------------------------------------------


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="-_.")


def split_source_id(source_id: str) -> tuple[str, str, str] | None:
    parts = source_id.split("/", 2)
    if len(parts) != 3 or not all(parts) or parts[0] in (".", ".."):
        return None
    return parts[0], parts[1], parts[2]


def is_v2_emittable(source_id: str) -> bool:
    return (
        split_source_id(source_id) is not None
        and source_id.isprintable()
        and not (set(source_id) & _FORBIDDEN_IN_ID)
    )


def anchor_for(source_id: str) -> str:
    return "source-" + hashlib.sha256(source_id.encode("utf-8")).hexdigest()[:16]


def archive_path(source_id: str) -> str:
    """`sources/<P>/_v2/<T>.md`, relative to the workspace root."""
    parts = split_source_id(source_id)
    if parts is None:
        raise InvalidRecord(f"invalid source id: {source_id!r}")
    return f"{SOURCES}/{_quote(parts[0])}/{V2_DIR}/{_quote(parts[1])}.md"


def legacy_path(source_id: str) -> str | None:
    parts = split_source_id(source_id)
    return None if parts is None else f"{SOURCES}/{_quote(parts[0])}/{_quote(parts[1])}.md"


def is_v2_path(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    return len(parts) == 4 and parts[0] == SOURCES and parts[2] == V2_DIR and parts[3].endswith(".md")


# -- speaker label, speaker marker, metadata ------------------------------------------


def _normalize_name(value: str) -> str:
    text = " ".join(value.split())
    text = "".join(ch for ch in text if ch.isprintable())
    text = text.replace("[", "(").replace("]", ")").replace(":", "\uff1a")
    return text if len(text) <= 64 else text[:64] + "\u2026"


def speaker_label(display: str, speaker_id: str, role: str) -> str:
    d, i = _normalize_name(display), _normalize_name(speaker_id)
    if d and i and d != i:
        return f"{d} ({i})"
    return d or i or role


_LABELLED_ID = re.compile(r"^(\[[^\]\n]*\] [^(\n]*\()([^()\n]*%[0-9A-Fa-f]{2}[^()\n]*)(\): )")


def _encode_speaker(speaker_id: str) -> str:
    return urllib.parse.quote(speaker_id, safe="").replace("-", "%2D")


def _decode_speaker(payload: str) -> str | None:
    try:
        raw = urllib.parse.unquote(payload, errors="strict")
    except UnicodeDecodeError:
        return None
    return raw if _encode_speaker(raw) == payload else None


def _canonical_json(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def encode_meta(meta: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(_canonical_json(meta)).decode("ascii").rstrip("=")


_TIERS = ("owner", "paired", None)


@functools.lru_cache(maxsize=4096)
def decode_meta(token: str) -> Mapping[str, Any] | None:
    """The metadata of a frame (read-only), or None when it is not canonical (a malformed
    frame). Cached: every frame from one speaker carries the same token."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or encode_meta(doc) != token:
        return None
    if set(doc) == {"authority_tier", "principal_id", "speaker_kind", "trust_state", "version"}:
        ok = doc["authority_tier"] in _TIERS and isinstance(doc["principal_id"], str) and isinstance(doc["speaker_kind"], str)
    elif set(doc) == {"origin_scope", "principal_id", "speaker_kind", "trust_state", "version"}:  # pre-tier, read-only
        scope = doc["origin_scope"]
        caps = scope.get("capabilities") if isinstance(scope, dict) else None
        ok = (
            isinstance(scope, dict) and set(scope) == {"origin", "capabilities"}
            and scope["origin"] in ("legacy-unknown", "local-owner")
            and isinstance(caps, list) and all(isinstance(c, str) and c for c in caps) and caps == sorted(set(caps))
        )
    else:
        ok = False
    if not ok or doc.get("version") != 1 or doc.get("trust_state") not in ("pending", "trusted"):
        return None
    return MappingProxyType(doc)


# -- records and frames -----------------------------------------------------------------


@dataclass(frozen=True)
class SourceRecord:
    """One record to archive. `source_id` is `provider/thread/message`."""

    source_id: str
    timestamp: str
    content: str
    role: str = "user"
    speaker_id: str = ""
    speaker_display: str = ""
    speaker_kind: str = "unknown"
    principal_id: str = "unknown"
    authority_tier: str | None = None
    trust_state: str = "trusted"

    def render(self) -> str:
        """The frame text: header lines, record lines, and the newline ending the last one."""
        if not is_v2_emittable(self.source_id):
            raise InvalidRecord(f"source id cannot be archived: {self.source_id!r}")
        ts = self.timestamp
        if not ts or not ts.isprintable() or set(ts) & set("[]\r\n"):
            raise InvalidRecord(f"invalid record timestamp: {ts!r}")
        if self.authority_tier not in _TIERS or self.trust_state not in ("pending", "trusted"):
            raise InvalidRecord(f"invalid record authority for {self.source_id}")
        label = speaker_label(self.speaker_display, self.speaker_id, self.role)
        if not label.strip():
            raise InvalidRecord(f"record {self.source_id} has neither a speaker nor a role")
        body = f"[{ts}] {label}: {self.content}".split("\n")
        lines = [f'<a id="{anchor_for(self.source_id)}"></a>', f"<!-- source-id:{self.source_id} -->"]
        if _normalize_name(self.speaker_id) or _normalize_name(self.speaker_display):
            lines.append(f"<!-- speaker-id:{_encode_speaker(self.speaker_id)} -->")
        meta = {
            "authority_tier": self.authority_tier,
            "principal_id": self.principal_id,
            "speaker_kind": self.speaker_kind,
            "trust_state": self.trust_state,
            "version": 1,
        }
        lines.append(f"<!-- source-meta:{encode_meta(meta)} -->")
        lines.append(f"<!-- record-lines:{len(body)} -->")
        return "\n".join(lines + body) + "\n"


OWNER_ID, OWNER_DISPLAY = "owner/local", "Owner"


def iso_utc(epoch: float) -> str:
    """Record timestamps in UTC, so the same session archives to the same bytes anywhere."""
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds")


def session_record(
    session_id: str, node_id: str, role: str, text: str, created_at: float, *, provider: str = "openprogram",
    speaker: str = "",
) -> SourceRecord:
    """A conversation turn as evidence: the owner's words, or the agent's reply. `speaker`:
    the name the session gives whoever spoke (its `speakers` metadata), shown as the
    record's label instead of "Owner" / "agent/main"; the speaker's id and kind stay."""
    speaker = " ".join(speaker.split())
    common = dict(
        source_id=f"{provider}/{session_id}/{node_id}",
        timestamp=iso_utc(created_at),
        content=text,
        principal_id=OWNER_ID,
        authority_tier="owner",
        trust_state="trusted",
    )
    if role == "user":
        return SourceRecord(role="user", speaker_id=OWNER_ID, speaker_display=speaker or OWNER_DISPLAY,
                            speaker_kind="human", **common)
    return SourceRecord(
        role="assistant", speaker_id="runtime/" + _quote("agent/main"), speaker_display=speaker or "agent/main",
        speaker_kind="runtime", **common,
    )


def records_to_sources(records: Iterable[Any], *, provider: str = "openprogram",
                       speakers: Mapping[str, str] | None = None) -> list[SourceRecord]:
    """`scriptorium.core.sessions.records.Record`s as archive records (source id = provider/session/node).
    `speakers`: the session's names by role ({"user": "Caroline", "assistant": "Melanie"})."""
    names = speakers or {}
    return [session_record(r.session_id, r.id, r.role, r.text, r.created_at, provider=provider,
                           speaker=names.get(r.role, "")) for r in records]


def manual_record(text: str, at: float) -> SourceRecord:
    """A paragraph a person typed without citing anything: its own evidence, origin `manual`."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    day = iso_utc(at)[:10]
    return SourceRecord(
        source_id=f"manual/{day}/{digest}", timestamp=iso_utc(at), content=text, role="user",
        speaker_id=OWNER_ID, speaker_display=OWNER_DISPLAY, speaker_kind="human",
        principal_id=OWNER_ID, authority_tier="owner", trust_state="trusted",
    )


def agent_record(text: str, at: float, agent: str = "mcp") -> SourceRecord:
    """A fact an agent asked memory to keep (`memory_remember`): its own evidence, origin
    `agent`. Trusted (the owner's agent said it in the owner's session) but with no
    authority tier: it is the agent's word, not the owner's."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    day = iso_utc(at)[:10]
    name = "agent/" + (agent or "mcp")
    return SourceRecord(
        source_id=f"agent/{day}/{digest}", timestamp=iso_utc(at), content=text, role="assistant",
        speaker_id="runtime/" + _quote(name), speaker_display=name, speaker_kind="runtime",
        principal_id=OWNER_ID, authority_tier=None, trust_state="trusted",
    )


@dataclass(frozen=True)
class Frame:
    source_id: str
    anchor: str
    line: int  # 1-based line of the anchor
    lines: tuple[str, ...] = ()
    meta: Mapping[str, Any] | None = None

    @property
    def trusted(self) -> bool:
        return self.meta is None or self.meta.get("trust_state") == "trusted"

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def readable_text(self) -> str:
        """`text` for a reader: a speaker id is percent-encoded on disk (`runtime/agent%2Fmain`,
        the archive format), decoded here (`runtime/agent/main`)."""
        return "\n".join(_LABELLED_ID.sub(lambda m: m.group(1) + urllib.parse.unquote(m.group(2)) + m.group(3), line, 1)
                         for line in self.lines)


@dataclass(frozen=True)
class ArchiveScan:
    """What a strict read of one archive found: the valid prefix, and why it stopped."""

    rel: str
    frames: tuple[Frame, ...]
    complete: bool
    error: str | None = None
    error_line: int | None = None
    tail_newlines: int = 0  # newlines after the last consumed line (complete archives)
    last_line: int = 0  # index of the last consumed line: a grown archive resumes after it
    by_anchor: dict[str, Frame] = field(default_factory=dict)
    by_id: dict[str, Frame] = field(default_factory=dict)


def _finish(rel: str, frames: list[Frame], **kw: Any) -> ArchiveScan:
    return ArchiveScan(
        rel, tuple(frames), by_anchor={f.anchor: f for f in frames}, by_id={f.source_id: f for f in frames}, **kw
    )


def scan_v2(text: str, rel: str, resume: ArchiveScan | None = None) -> ArchiveScan:
    """Strict scan of a v2 archive at `rel` (relative to the workspace root).

    `resume`: a complete scan of a prefix of `text` (the archive before an append);
    its frames are kept and scanning starts after its last consumed line, so growing
    an archive costs what was appended, not what was there."""
    lines = text.split("\n")
    if lines[0] != MARKER:
        return _finish(rel, [], complete=False, error="missing v2 archive marker", error_line=1)
    frames: list[Frame] = list(resume.frames) if resume else []
    seen: set[str] = set(resume.by_id) if resume else set()
    last = resume.last_line if resume else 0  # index of the last consumed line
    n = len(lines)

    def fail(message: str, index: int) -> ArchiveScan:
        return _finish(rel, frames, complete=False, error=message, error_line=index + 1)

    while True:
        if last + 2 >= n or not lines[last + 2]:
            # Nothing but trailing newlines may follow the last frame.
            if any(lines[k] for k in range(last + 1, n)):
                return fail("unexpected text after a frame", last + 1)
            return _finish(rel, frames, complete=True, tail_newlines=n - 1 - last, last_line=last)
        if lines[last + 1]:
            return fail("expected an empty line before the next frame", last + 1)
        i = last + 2
        anchor_m = _ANCHOR_LINE.fullmatch(lines[i]) if i < n else None
        if not anchor_m:
            return fail("malformed frame anchor", i)
        id_m = _ID_LINE.fullmatch(lines[i + 1]) if i + 1 < n else None
        if not id_m:
            return fail("malformed source-id line", i + 1)
        source_id = id_m.group(1)
        if not is_v2_emittable(source_id) or archive_path(source_id) != rel:
            return fail(f"source id does not belong to this archive: {source_id}", i + 1)
        if anchor_m.group(1) != anchor_for(source_id):
            return fail(f"anchor does not match source id {source_id}", i)
        if source_id in seen:
            return fail(f"duplicate source id {source_id}", i + 1)
        j = i + 2
        if j < n and (sp := _SPEAKER_LINE.fullmatch(lines[j])):
            if _decode_speaker(sp.group(1)) is None:
                return fail("speaker marker is not canonical", j)
            j += 1
        meta = None
        if j < n and (mm := _META_LINE.fullmatch(lines[j])):
            meta = decode_meta(mm.group(1))
            if meta is None:
                return fail("source metadata is not canonical", j)
            j += 1
        count_m = _COUNT_LINE.fullmatch(lines[j]) if j < n else None
        if not count_m or int(count_m.group(1)) < 1:
            return fail("missing or invalid record-lines count", j)
        count = int(count_m.group(1))
        first, end = j + 1, j + 1 + count  # record lines are [first, end)
        if end > n:
            return fail(f"record-lines:{count} overruns the archive", j)
        if not _FIRST_RECORD.fullmatch(lines[first]):
            return fail("malformed first record line", first)
        if end < n and lines[end]:
            return fail("the line after a frame's records must be empty", end)
        frames.append(Frame(source_id, anchor_m.group(1), i + 1, tuple(lines[first:end]), meta))
        seen.add(source_id)
        last = end - 1


def scan_legacy(text: str, rel: str) -> ArchiveScan:
    """Anchors of a frozen legacy archive (read-only): adjacent anchor/source-id pairs at
    their computed location, or `d<n>-<m>` anchors of a `sources/D<n>.md` file."""
    frames = []
    if d := _D_FILE.fullmatch(rel):
        for m in _D_ANCHOR.finditer(text):
            if m.group(2) == d.group(1):
                line = text.count("\n", 0, m.start()) + 1
                frames.append(Frame(f"D{m.group(2)}:{m.group(3)}", m.group(1), line))
    else:
        for m in _LEGACY_PAIR.finditer(text):
            anchor, source_id = m.group(1), m.group(2)
            if legacy_path(source_id) == rel and anchor_for(source_id) == anchor:
                frames.append(Frame(source_id, anchor, text.count("\n", 0, m.start()) + 1))
    return _finish(rel, frames, complete=True)


_SCANS: OrderedDict[tuple[str, str], ArchiveScan] = OrderedDict()
_SCAN_CACHE_SIZE = 64
_SCANS_LOCK = threading.Lock()
# rel -> (byte length, sha256, scan) of the newest complete v2 scan: appends resume from it
_LATEST: dict[str, tuple[int, str, ArchiveScan]] = {}


def scan_archive(data: bytes, rel: str) -> ArchiveScan:
    """Scan once per content: results are cached by (path, sha256 of the bytes), and an
    archive that grew by an append is scanned only from where the last scan ended."""
    digest = hashlib.sha256(data).hexdigest()
    key = (rel, digest)
    with _SCANS_LOCK:
        scan = _SCANS.get(key)
        if scan is not None:
            _SCANS.move_to_end(key)
            return scan
        latest = _LATEST.get(rel)
    text = data.decode("utf-8", errors="replace")
    if is_v2_path(rel):
        resume = None
        if latest is not None and latest[0] < len(data) and hashlib.sha256(data[: latest[0]]).hexdigest() == latest[1]:
            resume = latest[2]
        scan = scan_v2(text, rel, resume)
    else:
        scan = scan_legacy(text, rel)
    with _SCANS_LOCK:
        scan = _SCANS.setdefault(key, scan)
        if len(_SCANS) > _SCAN_CACHE_SIZE:
            _SCANS.popitem(last=False)
        if scan.complete and is_v2_path(rel):
            _LATEST[rel] = (len(data), digest, scan)
            if len(_LATEST) > _SCAN_CACHE_SIZE:
                _LATEST.pop(next(iter(_LATEST)))
    return scan


# -- appending -------------------------------------------------------------------------


def plan_append(existing: bytes | None, rel: str, records: Iterable[SourceRecord]) -> tuple[bytes | None, list[str]]:
    """The archive's new bytes after appending `records` (None: nothing to add), and the
    ids actually added. Ids already archived are skipped; a truncated or malformed
    archive is refused rather than extended past a frame nobody could read."""
    pending = []
    seen: set[str] = set()
    if existing is not None:
        scan = scan_archive(existing, rel)
        if not scan.complete:
            raise ArchiveError(f"invalid or truncated v2 archive: {rel} (line {scan.error_line}: {scan.error})")
        seen.update(scan.by_id)
    for record in records:
        if archive_path(record.source_id) != rel:
            raise ArchiveError(f"{record.source_id} does not belong in {rel}")
        if record.source_id not in seen:
            seen.add(record.source_id)
            pending.append(record)
    if not pending:
        return None, []
    added = "\n".join(r.render() for r in pending).encode("utf-8")
    if existing is None:
        return (MARKER + "\n\n").encode("utf-8") + added, [r.source_id for r in pending]
    tail = scan.tail_newlines
    base = existing[: len(existing) - (tail - 2)] if tail > 2 else existing
    return base + b"\n" * max(0, 2 - tail) + added, [r.source_id for r in pending]


def group_by_archive(records: Iterable[SourceRecord]) -> dict[str, list[SourceRecord]]:
    groups: dict[str, list[SourceRecord]] = {}
    for record in records:
        groups.setdefault(archive_path(record.source_id), []).append(record)
    return groups


def colliding_paths(planned: Iterable[str], existing: Iterable[str]) -> list[str]:
    """Planned archive paths that collide, after NFC case-folding, with a different
    existing or planned path (they would be one file on a case-insensitive disk)."""
    def fold(path: str) -> str:
        return unicodedata.normalize("NFC", path).casefold()

    owners: dict[str, str] = {}
    for path in existing:
        parts = PurePosixPath(path).parts
        for k in range(1, len(parts) + 1):
            owners.setdefault(fold("/".join(parts[:k])), "/".join(parts[:k]))
    bad = []
    for path in planned:
        parts = PurePosixPath(path).parts
        for k in range(1, len(parts) + 1):
            prefix = "/".join(parts[:k])
            other = owners.setdefault(fold(prefix), prefix)
            if other != prefix:
                bad.append(path)
                break
    return bad


def handle_target(handle: str) -> str | None:
    """Where a plain handle (`P/T/M` or `D<n>:<m>`) lives in the v2 layout, as a
    root-relative `path#anchor`; None if it is not a handle."""
    if d := re.fullmatch(r"D(\d+):(\d+)", handle):
        return f"{SOURCES}/D{d.group(1)}.md#d{d.group(1)}-{d.group(2)}"
    if "#" in handle or not is_v2_emittable(handle):
        return None
    return f"{archive_path(handle)}#{anchor_for(handle)}"


class SourceIndex:
    """The frames of the archives under one workspace (or stage) root.

    Each archive is read at most once per index and scanned at most once per content
    (see `scan_archive`); `overlay` holds archive bytes planned but not yet on disk."""

    def __init__(self, root: Path, overlay: dict[str, bytes] | None = None) -> None:
        self.root = root
        self.overlay = overlay if overlay is not None else {}
        self._scans: dict[str, ArchiveScan | None] = {}

    def data(self, rel: str) -> bytes | None:
        if rel in self.overlay:
            return self.overlay[rel]
        path = self.root / rel
        if path.is_symlink():
            return None
        try:
            return path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def scan(self, rel: str) -> ArchiveScan | None:
        if rel not in self._scans or rel in self.overlay:
            data = self.data(rel)
            self._scans[rel] = None if data is None else scan_archive(data, rel)
        return self._scans[rel]

    def resolve(self, target: str) -> Frame | None:
        """The frame a citation target (relative to the workspace root, or a plain
        handle `P/T/M` / `D<n>:<m>`) points at; None when there is no such frame."""
        target = target.strip()
        if "#" not in target:
            located = handle_target(target)
            if located is None:
                return None
            path, _, anchor = located.partition("#")
            candidates = [(path, anchor), (legacy_path(target) or "", anchor)]
        else:
            path, _, anchor = target.partition("#")
            path = posixpath.normpath(path)
            if not path.startswith(SOURCES + "/") or not path.endswith(".md"):
                return None
            candidates = [(path, anchor)]
        for rel, anchor in candidates:
            scan = self.scan(rel) if rel else None
            if scan is not None and anchor in scan.by_anchor:
                return scan.by_anchor[anchor]
        return None
