"""The embedding vectors of a search model's documents, kept on disk by content.

One file per model (`memory/.scriptorium/search-vectors*.bin`): a header (the model's
name, the dimension, the stamp of the document set it was made for, a CRC of the rest),
then one 16-byte key per document (a hash of the text embedded) and the float32 rows in
document order. A fresh process whose documents match the stamp memory-maps the rows:
nothing is parsed or copied, and the model is not loaded until a query needs embedding.
When the documents changed, rows whose key is known are reused (from this file or a
sibling's) and only new texts are embedded: a vector is computed once per content. A file
that is missing, cut short, fails its CRC or was made by another model is rebuilt.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from ..fsutil import atomic_write_bytes

if TYPE_CHECKING:
    import numpy as np

    from .embed import Embedder

_MAGIC = b"SCRVEC\x01\n"
_KEY = 16
_ALIGN = 64  # rows start on a cache line


def text_key(text: str) -> bytes:
    import hashlib  # only building needs it: a process that loads saved rows never does

    return hashlib.blake2b(text.encode("utf-8"), digest_size=_KEY).digest()


def load(path: Path, stamp: str, model: str, count: int) -> "np.ndarray | None":
    """The rows saved for exactly this document set, memory-mapped; None if there are none."""
    found = _read(path)
    if found is None:
        return None
    header, _, rows = found
    if header["stamp"] != stamp or header["model"] != model or header["count"] != count:
        return None
    return rows


def build(path: Path, stamp: str, model: "Embedder", texts: list[str], reuse: tuple[Path, ...] = ()) -> "np.ndarray":
    """Rows for `texts` (in order), reusing every known key, saved for the next process."""
    import numpy as np

    keys = [text_key(t) for t in texts]
    known: dict[bytes, np.ndarray] = {}
    for other in (path, *reuse):
        found = _read(other)
        if found is not None and found[0]["model"] == model.name and found[0]["dim"] == model.dim:
            _, old_keys, old_rows = found
            for i, key in enumerate(old_keys):
                known.setdefault(key, old_rows[i])
    rows = np.zeros((len(texts), model.dim), dtype=np.float32)
    missing = [i for i, key in enumerate(keys) if key not in known]
    for i, key in enumerate(keys):
        if key in known:
            rows[i] = known[key]
    if missing:
        rows[missing] = model.embed([texts[i] for i in missing])
    _write(path, stamp, model, keys, rows)
    return rows


def _read(path: Path) -> "tuple[dict, list[bytes], np.ndarray] | None":
    """(header, keys, rows) of a sound file, rows memory-mapped; None for anything else."""
    import numpy as np

    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_MAGIC) + 8)
            if len(head) < len(_MAGIC) + 8 or not head.startswith(_MAGIC):
                return None
            (length,) = struct.unpack_from("<Q", head, len(_MAGIC))
            header = json.loads(fh.read(length))
        count, dim = int(header["count"]), int(header["dim"])
        keys_at = len(_MAGIC) + 8 + length
        rows_at = _aligned(keys_at + count * _KEY)
        if path.stat().st_size != rows_at + count * dim * 4 or count == 0:
            return None
        data = np.memmap(path, dtype=np.uint8, mode="r")
        if zlib.crc32(data[keys_at:].data) != header["crc"]:
            return None
        raw_keys = bytes(data[keys_at:keys_at + count * _KEY])
        rows = np.ndarray((count, dim), dtype=np.float32, buffer=data, offset=rows_at)
        return header, [raw_keys[i:i + _KEY] for i in range(0, len(raw_keys), _KEY)], rows
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def _write(path: Path, stamp: str, model: "Embedder", keys: list[bytes], rows: "np.ndarray") -> None:
    body_keys = b"".join(keys)
    header_for = {"model": model.name, "dim": model.dim, "count": len(keys), "stamp": stamp}
    # the CRC covers keys, padding and rows; the padding depends on the header's length, so fix that first
    crc_placeholder = json.dumps({**header_for, "crc": 0}).encode()
    probe = len(_MAGIC) + 8 + len(crc_placeholder) + 10  # room for the CRC's digits
    pad = _aligned(probe + len(body_keys)) - (probe + len(body_keys))
    tail = body_keys + b"\0" * pad + rows.astype("float32", copy=False).tobytes()
    header = json.dumps({**header_for, "crc": zlib.crc32(tail)}).encode()
    header += b" " * (len(crc_placeholder) + 10 - len(header))  # JSON allows trailing spaces
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, _MAGIC + struct.pack("<Q", len(header)) + header + tail, durable=False)
    except OSError:
        pass  # vectors only save time: a read-only workspace embeds again next time


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN
