"""One message node of a session DAG, in OpenProgram's on-disk shape (formats §1.3).

Raw roles are `user`, `llm` and `code`; `kind` is what the rest of Scriptorium reasons
about (user / assistant / system / tool / summary / root / runtime), derived from the
role plus the metadata flags the formats define.
"""

from __future__ import annotations

import json
import re

from ..values import TYPE_CHECKING, Value

if TYPE_CHECKING:
    from typing import Any

ROOT_ID = "ROOT"
NODE_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")  # whole string only: fullmatch (`$` takes a trailing newline)
_SURROGATES = "[\ud800-\udfff]"  # compiled only when needed (`clean_text`'s last resort): ~0.3 ms of every import
RUNTIME_SOURCES = frozenset({"job_followup", "merge_turn"})

# Roles accepted from callers -> raw on-disk role (+ metadata.role for system turns).
ROLE_ALIASES = {"user": "user", "assistant": "llm", "llm": "llm", "system": "llm", "tool": "code", "code": "code"}


def valid_node_id(node_id: str) -> bool:
    """Ids become file names: no separators, no `.`/`..`, bounded length."""
    return NODE_ID_RE.fullmatch(node_id) is not None and node_id not in (".", "..")


def classify(node_id: str, role: str, name: str, metadata: dict[str, Any]) -> str:
    """The node's kind: the one place that decides what a turn *is*."""
    if not metadata:  # most turns: the same answers without five lookups in an empty dict
        if node_id == ROOT_ID:
            return "root"
        if name == "context/summary":
            return "summary"
        if role == "code":
            return "tool"
        if name.startswith("context/"):
            return "runtime"
        return "assistant" if role == "llm" else "user"
    if node_id == ROOT_ID or metadata.get("display") == "root":
        return "root"
    if metadata.get("covers_ids") or name == "context/summary":
        return "summary"
    if role == "code":
        return "tool"
    if metadata.get("display") == "runtime" or metadata.get("source") in RUNTIME_SOURCES or name.startswith("context/"):
        return "runtime"
    if role == "llm":
        return "system" if metadata.get("role") == "system" else "assistant"
    return "user"


def text_of(output: Any) -> str:
    """Readable text of a node's output: strings as-is, text blocks joined, else JSON."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(b, dict) for b in output):
        parts = [b.get("text", "") for b in output if b.get("type", "text") == "text" and isinstance(b.get("text"), str)]
        if parts:
            return "\n".join(parts)
    return json.dumps(output, ensure_ascii=False, default=str)


class Node(Value):
    """One node of a session (formats §1.3); `to_payload` is its file's shape."""

    __slots__ = ("id", "seq", "role", "output", "name", "input", "caller", "predecessor", "reads", "metadata",
                 "created_at")

    def __init__(self, id: str, seq: int, role: str, output: Any = "", name: str = "", input: Any = None,
                 caller: str = "", predecessor: str | None = None, reads: list[str] | None = None,
                 metadata: dict[str, Any] | None = None, created_at: float = 0.0) -> None:
        self.id = id
        self.seq = seq
        self.role = role
        self.output = output
        self.name = name
        self.input = input
        self.caller = caller
        self.predecessor = predecessor
        self.reads: list[str] = [] if reads is None else reads
        self.metadata: dict[str, Any] = {} if metadata is None else metadata
        self.created_at = created_at

    @property
    def kind(self) -> str:
        return classify(self.id, self.role, self.name, self.metadata)

    @property
    def text(self) -> str:
        return text_of(self.output)

    @property
    def is_record(self) -> bool:
        """Memory records only user and assistant turns with non-empty text (DESIGN §3)."""
        return self.kind in ("user", "assistant") and bool(self.text.strip())

    @property
    def rewound(self) -> bool:
        return bool(self.metadata.get("rewound"))

    @property
    def filename(self) -> str:
        return node_filename(self.seq, self.role, self.id)

    def to_payload(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "seq": self.seq,
            "role": self.role,
            "name": self.name,
            "input": self.input,
            "output": self.output,
            "caller": self.caller,
            "predecessor": self.predecessor,
            "reads": list(self.reads),
            "metadata": self.metadata,
        }

    def to_json_bytes(self, *, stdlib: bool = False) -> bytes:
        """Compact UTF-8 JSON. `stdlib`: for a few small nodes (marks) the standard encoder,
        loaded already, beats importing orjson (which imports uuid and platform: ~13 ms)."""
        payload = self.to_payload()
        if not stdlib:
            import orjson  # here, not at import: a command that writes no node never loads it

            try:
                return orjson.dumps(payload, default=str)  # compact UTF-8, the same JSON as below
            except (orjson.JSONEncodeError, TypeError):
                pass  # lone surrogates, integers beyond 64 bits, deep nesting: the standard library copes
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates somewhere in metadata: escape, stay valid UTF-8
            return json.dumps(payload, ensure_ascii=True, separators=(",", ":"), default=str).encode("ascii")

    @classmethod
    def from_payload(cls, payload: Any) -> "Node":
        """Parse a node file's JSON; raises ValueError on a shape that is not a node."""
        node_id, role, seq, metadata, predecessor, created = checked_fields(payload)
        return cls(
            id=node_id,
            seq=seq,
            role=role,
            output=payload.get("output", ""),
            name=payload.get("name") or "",
            input=payload.get("input"),
            caller=payload.get("caller") or "",
            predecessor=predecessor,
            reads=list(payload.get("reads") or []),
            metadata=metadata,
            created_at=created,
        )


def checked_fields(payload: Any) -> tuple[str, str, int, dict[str, Any], str | None, float]:
    """(id, role, seq, metadata, predecessor, created_at) of a node file's JSON, checked:
    the one validation `Node.from_payload` and the index's direct parse share; raises
    ValueError on a shape that is not a node."""
    if not isinstance(payload, dict):
        raise ValueError("node payload is not an object")
    get = payload.get
    node_id = get("id")
    role = get("role")
    if not isinstance(node_id, str) or not node_id:
        raise ValueError("node has no id")
    if role != "user" and role != "llm" and role != "code":
        raise ValueError(f"node {node_id} has unknown role {role!r}")
    seq = get("seq", 0)
    metadata = get("metadata") or {}
    predecessor = get("predecessor")
    if not isinstance(seq, int) or not isinstance(metadata, dict):
        raise ValueError(f"node {node_id} has a malformed seq or metadata")
    if predecessor is not None and not isinstance(predecessor, str):
        raise ValueError(f"node {node_id} has a malformed predecessor")
    created = get("created_at") or 0.0
    return (node_id, role, seq, metadata, predecessor or None,
            created if type(created) is float else float(created) if isinstance(created, (int, float)) else 0.0)


def clean_text(text: str) -> str:
    """Text safe to store as UTF-8: bytes smuggled in by surrogateescape (invalid UTF-8
    on the command line or in a transcript) and lone surrogates become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:
            return re.sub(_SURROGATES, "\ufffd", text)


def node_filename(seq: int, role: str, node_id: str) -> str:
    return f"{seq:04d}-{role[0]}-{node_id}.json"


FILENAME_RE = re.compile(r"(\d{4,})-([ulc])-(.+)\.json\Z")  # match() anchors the start; \Z, not `$`: no trailing newline
