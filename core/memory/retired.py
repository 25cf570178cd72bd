"""Retired block ids: `.scriptorium/retired.json`, `{id: {reason, file, at, txn}}`.

A block leaves memory only by explicit retirement, with a reason. The registry keeps
the id from ever being handed out again (a re-typed paragraph would otherwise derive
the same id) and tells a later reader why the block is gone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RETIRED_NAME = "retired.json"


def load_retired(runtime_dir: Path) -> dict[str, dict[str, Any]]:
    try:
        doc = json.loads((runtime_dir / RETIRED_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in doc.items() if isinstance(v, dict)} if isinstance(doc, dict) else {}


def dump_retired(registry: dict[str, dict[str, Any]]) -> bytes:
    return (json.dumps(registry, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
