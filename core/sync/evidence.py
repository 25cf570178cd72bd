"""The union of evidence archives (DESIGN §17): append-only and content-addressed.

Each archive (`sources/<origin>/_v2/<thread>.md`) is a sequence of record frames keyed by
source id. Merging two sides appends to ours, in their order, the frames only they have,
each redacted with this machine's rules on the way in (`redact`); a frame both sides hold
must be the same record, and no side may have changed a frame the merge base held: either
is a forged or rewritten record, and the merge refuses it. The same record means the same
bytes, or the same text where one side hid a span behind a placeholder (its own redaction
rules, a purge): each machine keeps its own copy then (`redacted.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..memory.sources import ArchiveScan, scan_archive
from .redacted import redacted_of

_COUNT = re.compile(r"^<!-- record-lines:(\d{1,9}) -->$")


@dataclass
class EvidenceMerge:
    archives: dict[str, bytes] = field(default_factory=dict)  # path under sources/ -> merged bytes (changed only)
    added: int = 0  # records that came in
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path under sources/, why)


def _frames_text(data: bytes, scan: ArchiveScan) -> dict[str, str]:
    """Each frame's exact lines (anchor to the line before the next frame), by source id."""
    lines = data.decode("utf-8").split("\n")
    frames = list(scan.frames)
    out: dict[str, str] = {}
    for i, frame in enumerate(frames):
        end = frames[i + 1].line - 1 if i + 1 < len(frames) else scan.last_line + 1
        chunk = lines[frame.line - 1:end]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        out[frame.source_id] = "\n".join(chunk)
    return out


def _same_record(a: str, b: str) -> bool:
    return a == b or redacted_of(a, b) is not None


def _redact_frame(text: str, redact: Callable[[str], str]) -> str:
    """The frame with its record lines (after `record-lines:N`) redacted, N kept true."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = _COUNT.match(line)
        if m is None:
            continue
        count = int(m.group(1))
        body = "\n".join(lines[i + 1:i + 1 + count])
        clean = redact(body)
        if clean == body:
            return text
        new = clean.split("\n")
        return "\n".join([*lines[:i], f"<!-- record-lines:{len(new)} -->", *new, *lines[i + 1 + count:]])
    return text


def _scan(data: bytes, rel: str) -> tuple[ArchiveScan | None, str | None]:
    scan = scan_archive(data, rel)
    if not scan.complete:
        return None, f"invalid or truncated archive (line {scan.error_line}: {scan.error})"
    return scan, None


def merge_archives(base: Mapping[str, bytes], ours: Mapping[str, bytes], theirs: Mapping[str, bytes],
                   redact: Callable[[str], str] | None = None) -> EvidenceMerge:
    """Merge three versions of `sources/` ({path under sources/: bytes}); `redact` cleans
    the records that come in. An archive of theirs holding every record of ours as it is
    is taken as it is, their order included, so that the machines converge on the same
    bytes (the remote's)."""
    out = EvidenceMerge()
    for rel in sorted(theirs):
        t_data = theirs[rel]
        o_data = ours.get(rel)
        if o_data == t_data:
            continue
        t_scan, why = _scan(t_data, rel)
        if t_scan is None:
            out.errors.append((rel, why or "unreadable"))
            continue
        t_frames = _frames_text(t_data, t_scan)
        if rel in base:
            b_scan, _ = _scan(base[rel], rel)
            if b_scan is not None:
                for sid, text in _frames_text(base[rel], b_scan).items():
                    if not _same_record(t_frames.get(sid, text), text):
                        out.errors.append((rel, f"record {sid} was rewritten on the remote"))
                    elif sid not in t_frames:
                        out.errors.append((rel, f"record {sid} was removed on the remote"))
        raw = t_frames
        clean = {sid: _redact_frame(text, redact) for sid, text in t_frames.items()} if redact else t_frames
        if clean == raw:
            clean = raw
        if o_data is None and clean is raw:
            out.archives[rel] = t_data  # nothing to redact: their bytes, so both sides stay identical
            out.added += len(t_frames)
            continue
        t_frames = clean
        if o_data is None:
            o_data = b"<!-- openprogram-source-archive:v2 -->\n"
        o_scan, why = _scan(o_data, rel)
        if o_scan is None:
            out.errors.append((rel, f"local archive: {why}"))
            continue
        o_frames = _frames_text(o_data, o_scan)
        new = [text for sid, text in t_frames.items() if sid not in o_frames]
        if clean is raw and all(t_frames.get(sid) == text for sid, text in o_frames.items()):
            out.archives[rel] = t_data
            out.added += len(new)
            continue
        out.errors.extend((rel, f"record {sid} differs between this machine and the remote")
                          for sid, text in t_frames.items() if sid in o_frames and not _same_record(o_frames[sid], text))
        if not new:
            continue
        tail = o_scan.tail_newlines
        head = o_data[: len(o_data) - (tail - 2)] if tail > 2 else o_data
        merged = head + b"\n" * max(0, 2 - tail) + "\n\n".join(new).encode("utf-8") + b"\n"
        check = scan_archive(merged, rel)
        if not check.complete or set(check.by_id) != set(o_frames) | set(t_frames):
            out.errors.append((rel, "the merged archive does not read back"))
            continue
        out.archives[rel] = merged
        out.added += len(new)
    return out

