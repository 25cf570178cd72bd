"""The core against its budget, for `core --json`, the Core screen and MCP's `memory_core`.

The transaction that renders `core.md` also records what the render measured, in
`memory/.scriptorium/core-render.json`: the token counts and the blocks left out, with
the hashes of the canonical core and of the render they describe, and the budget.
Reading the status trusts that record while both files and the budget still match it,
so the tokenizer (a 200k-entry table, ten times a cold command's start-up) loads only
when the record is stale: a hand edit of `topics/core.md`, a changed budget.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core_render import CORE_TOPIC, injection

if TYPE_CHECKING:
    from .core_render import CoreRender

RECORD = "core-render.json"  # in the runtime directory
COUNTS = "token-counts.json"  # in the runtime directory: the last render's counts (tokens.CountCache)
_VERSION = 1


@dataclass(frozen=True)
class CoreStatus:
    budget: int
    canonical_tokens: int  # the whole of topics/core.md
    rendered_tokens: int  # core.md, the part within the budget
    effective_tokens: int  # what is injected: the fenced render, 0 when injection is off
    inject: bool
    omitted_blocks: list[str]  # withheld (untrusted evidence) and past the budget, by id

    def to_json(self) -> dict[str, Any]:
        """The `core --json` document."""
        return asdict(self)


def render_record(canonical: str, render: CoreRender, count: Callable[[str], int] | None = None) -> bytes:
    """The record of `render` (of the canonical text `canonical`), as the transaction installs it
    (`count`: as `render_core`'s)."""
    if count is None:
        from ..tokens import count_tokens

        count = count_tokens
    doc = {
        "version": _VERSION,
        "budget": render.budget,
        "canonical_sha256": _sha(canonical.encode("utf-8")),
        "render_sha256": _sha(render.text.encode("utf-8")),
        "canonical_tokens": count(canonical),
        "rendered_tokens": render.tokens,
        "injected_tokens": count(injection(render.text, True)),
        "left_out": render.left_out,
    }
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def recorded_status(record_file: Path, canonical_file: Path, rendered_file: Path, budget: int,
                    inject: bool) -> CoreStatus | None:
    """The status from a render record, or None when there is none or it no longer
    describes the canonical and rendered files."""
    try:
        record = json.loads(record_file.read_bytes())
        canonical = canonical_file.read_bytes()
        rendered = rendered_file.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("version") != _VERSION or record.get("budget") != budget:
        return None
    if record.get("canonical_sha256") != _sha(canonical) or record.get("render_sha256") != _sha(rendered):
        return None
    counts = [record.get(k) for k in ("canonical_tokens", "rendered_tokens", "injected_tokens")]
    left_out = record.get("left_out")
    if not all(isinstance(n, int) for n in counts) or not isinstance(left_out, list):
        return None
    return CoreStatus(budget, record["canonical_tokens"], record["rendered_tokens"],
                      record["injected_tokens"] if inject else 0, inject, [str(b) for b in left_out])


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
