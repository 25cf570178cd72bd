"""Replacing one secret (a literal or a regex) inside stored bytes, whatever the format.

The same function rewrites a file in the state directory and every historical version of
it in git (a blob carries no name), so it recognizes the format from the bytes: JSON
(node files, meta.json, the registry) and JSON Lines (audit, agent history) are rewritten
value by value and serialized in their own style, so they stay valid; anything else is
text. A replacement keeps the match's line count (an evidence frame's `record-lines:N`
header stays true) and names no part of the secret.

The placeholder, `[REDACTED:purged:<tag>]`, is the same on every machine for the same
secret (`purge_tag`: scrypt under a fixed salt, slow to guess from), unlike redaction's
keyed one: two machines that purge the same secret rewrite their shared history into the
same commits, and a machine that still holds the secret can recognise a purge made
elsewhere by checking what a placeholder hides against its tag (core/sync/purges.py).
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

PURGED_KIND = "purged"
_TAG_SALT = b"scriptorium purge v1"


@lru_cache(maxsize=256)
def purge_tag(secret: str) -> str:
    """8 hex digits naming `secret` in its placeholder, alike on every machine (~50 ms each:
    checking guesses against a tag is slow)."""
    return hashlib.scrypt(secret.encode("utf-8", "surrogateescape"), salt=_TAG_SALT, n=2 ** 14, r=8, p=1,
                          dklen=4).hex()


@dataclass
class Scrubber:
    pattern: re.Pattern[str]
    literal: tuple[bytes, ...] = ()  # the raw and JSON-escaped forms of a --text secret (the quick test)
    matches: int = field(default=0)
    tags: set[str] = field(default_factory=set)  # the placeholders' tags given out (the purge record)

    @classmethod
    def for_text(cls, text: str) -> Scrubber:
        forms = {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}
        return cls(re.compile(re.escape(text)), tuple(f.encode("utf-8") for f in forms))

    @classmethod
    def for_pattern(cls, pattern: str) -> Scrubber:
        return cls(re.compile(pattern))

    def placeholder(self, match: re.Match[str]) -> str:
        secret = match.group(0)
        digest = purge_tag(secret)
        self.tags.add(digest)
        text = match.string
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text.rfind("[", line_start, match.start()) > text.rfind("]", line_start, match.start()):
            # inside brackets (a Markdown link label): brackets of ours would end the label early
            return f"REDACTED:{PURGED_KIND}:{digest}" + "\n" * secret.count("\n")
        return f"[REDACTED:{PURGED_KIND}:{digest}]" + "\n" * secret.count("\n")

    def may_hold(self, data: bytes) -> bool:
        """A cheap test that `data` can hold a match (no false negatives)."""
        if self.literal:
            return any(form in data for form in self.literal)
        return True

    def text(self, text: str) -> str:
        out, n = self.pattern.subn(self.placeholder, text)
        self.matches += n
        return out

    def bytes(self, data: bytes) -> bytes | None:
        """`data` with every match replaced, or None when it holds none (or is binary)."""
        if not self.may_hold(data):
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        before = self.matches
        new = _as_json(text, self.text)
        if new is None:
            new = _as_json_lines(text, self.text)
        if new is None:
            new = self.text(text)
        return new.encode("utf-8") if self.matches > before and new != text else None

    def found(self, data: builtins.bytes) -> int:  # `bytes` in here is the method above
        """How many matches `data` holds (binary files: searched as Latin-1, for the report)."""
        if not self.may_hold(data):
            return 0
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
        count = len(self.pattern.findall(text))
        if count == 0 and "\\" in text:  # escaped inside JSON strings
            probe = Scrubber(self.pattern, self.literal)
            scrubbed = probe.bytes(data)
            count = probe.matches if scrubbed is not None else 0
        return count


def _deep(value: Any, fix: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fix(value)
    if isinstance(value, list):
        return [_deep(v, fix) for v in value]
    if isinstance(value, dict):
        return {fix(k) if isinstance(k, str) else k: _deep(v, fix) for k, v in value.items()}
    return value


def _dumps(value: Any, like: str) -> str:
    """JSON in the style of `like`: indented or not, compact separators or not, ASCII-escaped or not."""
    indent = 2 if like.lstrip().startswith(("{\n", "[\n")) else None
    compact = '": ' not in like and '", "' not in like
    separators = (",", ":") if compact and indent is None else ((",", ": ") if indent else (", ", ": "))
    ascii_only = like.isascii() and "\\u" in like
    return json.dumps(value, ensure_ascii=ascii_only, indent=indent, separators=separators)


def _as_json(text: str, fix: Callable[[str], str]) -> str | None:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    trail = text[len(text.rstrip()):]
    return _dumps(_deep(value, fix), stripped) + trail


def _as_json_lines(text: str, fix: Callable[[str], str]) -> str | None:
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        return None
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        try:
            value = json.loads(line)
        except ValueError:
            return None
        new = _deep(value, fix)
        out.append(line if new == value else _dumps(new, line))
    return "\n".join(out)
