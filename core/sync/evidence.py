"""The union of evidence archives (DESIGN §17): append-only and content-addressed.

Each archive (`sources/<origin>/_v2/<thread>.md`) is a sequence of record frames keyed by
source id. Merging two sides appends to ours, in their order, the frames only they have;
a frame both sides hold must be byte-identical, and no side may have changed a frame the
merge base held: either is a forged or rewritten record, and the merge refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..memory.sources import ArchiveScan, scan_archive


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


def _scan(data: bytes, rel: str) -> tuple[ArchiveScan | None, str | None]:
    scan = scan_archive(data, rel)
    if not scan.complete:
        return None, f"invalid or truncated archive (line {scan.error_line}: {scan.error})"
    return scan, None


def merge_archives(base: Mapping[str, bytes], ours: Mapping[str, bytes],
                   theirs: Mapping[str, bytes]) -> EvidenceMerge:
    """Merge three versions of `sources/` ({path under sources/: bytes})."""
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
                    if t_frames.get(sid, text) != text:
                        out.errors.append((rel, f"record {sid} was rewritten on the remote"))
                    elif sid not in t_frames:
                        out.errors.append((rel, f"record {sid} was removed on the remote"))
        if o_data is None:
            out.archives[rel] = t_data
            out.added += len(t_frames)
            continue
        o_scan, why = _scan(o_data, rel)
        if o_scan is None:
            out.errors.append((rel, f"local archive: {why}"))
            continue
        o_frames = _frames_text(o_data, o_scan)
        new = [text for sid, text in t_frames.items() if sid not in o_frames]
        out.errors.extend((rel, f"record {sid} differs between this machine and the remote")
                          for sid, text in t_frames.items() if sid in o_frames and o_frames[sid] != text)
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

