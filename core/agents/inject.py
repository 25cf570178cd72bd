"""The core as an agent's session start injects it: read from the rendered `core.md`.

Session start is where an agent waits, so nothing is rendered or counted here: the
transaction already rendered `core.md` within its budget after the last install. This
reads that file (through `read_consistent`: never half an interrupted install) and the
`core.inject` setting, fences the text once with the agents' wording
(`fence.AGENT_NOTE`), and lists the block ids it carries (so that recall later
in the session does not repeat them). No tokenizer, no git, no model library.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

from ..fence import AGENT_NOTE, core_injection
from ..paths import StatePaths
from ..values import Value

CORE_RENDER = "core.md"
TOKENS_FILE = "core-tokens.json"  # under <runtime>/hooks/: the last injection's token count
_BLOCK_ID = re.compile(r"\s\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)


class Injection(Value):
    """text: the fenced core, or "" (nothing to inject); reason: "injected" | "off" (core.inject
    = false) | "empty" (no core, or nothing but headings); blocks: the block ids in the text."""

    __slots__ = ("text", "reason", "blocks")

    def __init__(self, text: str, reason: str, blocks: list[str] | None = None) -> None:
        self.text, self.reason = text, reason
        self.blocks: list[str] = [] if blocks is None else blocks


def inject_enabled(state_dir: Path) -> bool:
    """`core.inject` (default on); anything but a boolean reads as the default.

    A config file that does not mention `inject` cannot turn it off, and is not parsed
    (the TOML parser is a fifth of this hook's start-up)."""
    try:
        if b"inject" not in StatePaths(Path(state_dir)).config.read_bytes():
            return True
    except OSError:
        return True
    from ..config import load_config

    value = load_config(state_dir).get("core.inject", True)
    return value if isinstance(value, bool) else True


def session_start_injection(state_dir: Path) -> Injection:
    """The effective core injection for a new agent session."""
    if not inject_enabled(state_dir):
        return Injection("", "off")
    from ..memory.reading import read_consistent

    rendered = read_consistent(state_dir, _rendered_core)
    if rendered is None:
        return Injection("", "empty")
    text = core_injection(rendered, True, AGENT_NOTE)
    if not text:
        return Injection("", "empty")
    return Injection(text, "injected", _BLOCK_ID.findall(rendered))


def _rendered_core(state_dir: Path) -> str | None:
    try:
        return (StatePaths(state_dir).memory / CORE_RENDER).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None


def known_tokens(state_dir: Path, text: str) -> int | None:
    """The token count of `text` if it was noted (`note_tokens`) for this exact text."""
    if not text:
        return 0
    try:
        raw = json.loads(_tokens_path(state_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(raw, dict) and raw.get("digest") == _digest(text) and isinstance(raw.get("tokens"), int):
        return raw["tokens"]
    return None


def note_tokens(state_dir: Path, text: str, tokens: int) -> None:
    """Remember the injection's token count (counted where the tokenizer is loaded anyway)."""
    from ..fsutil import atomic_write_text

    path = _tokens_path(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({"digest": _digest(text), "tokens": tokens}), durable=False)


def _tokens_path(state_dir: Path) -> Path:
    return StatePaths(Path(state_dir)).runtime / "hooks" / TOKENS_FILE


def _digest(text: str) -> str:
    """Length and CRC-32 of the text: enough to tell one core from the next (and zlib,
    unlike hashlib, costs nothing to import)."""
    data = text.encode("utf-8")
    return f"{len(data)}:{zlib.crc32(data):08x}"
