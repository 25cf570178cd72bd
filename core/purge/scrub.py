"""Replacing one secret (a literal or a regex) inside stored bytes, whatever the format.

The same function rewrites a file in the state directory and every historical version of
it in git (a blob carries no name), so it recognizes the format from the bytes: JSON
(node files, meta.json, the registry) and JSON Lines (audit, agent history) are rewritten
value by value and serialized in their own style, so they stay valid; anything else is
text. A replacement keeps the match's line count (an evidence frame's `record-lines:N`
header stays true) and names no part of the secret.

A topic file whose name holds the secret is renamed (purge.py), and wherever text names
it — a link's destination (percent-quoted or not), a JSON value such as a derived view's
`topic_path`, a word of a commit message — the secret becomes the name's placeholder,
`REDACTED-purged-<tag>` (no brackets or colon: a link destination starting `REDACTED:`
would read as a URL scheme), so every link still resolves to the renamed file.

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
import posixpath
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

PURGED_KIND = "purged"
_TAG_SALT = b"scriptorium purge v1"
_PATH_TOKEN = re.compile(r"[^\s()\[\]<>\"'`]+")  # a word that can be a path: a link destination, a JSON value
_QUOTE_SAFE = "/._-"  # how topics quote a link's path (topics.relative_link)


def name_placeholder(secret: str) -> str:
    """The placeholder a purged secret leaves in a file name and in the paths naming it."""
    return f"REDACTED-{PURGED_KIND}-{purge_tag(secret)}"


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
    renamed: dict[str, str] = field(default_factory=dict)  # renamed files' paths, and each tail, old -> new

    @classmethod
    def for_text(cls, text: str) -> Scrubber:
        forms = {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1],
                 urllib.parse.quote(text, safe=_QUOTE_SAFE), urllib.parse.quote(text)}
        return cls(re.compile(re.escape(text)), tuple(f.encode("utf-8") for f in forms))

    def rename(self, renames: dict[str, str]) -> None:
        """Files are renamed (old path -> new, relative to their repository): text naming
        one by any tail of its path (`vault-S.md`, `../topics/keys/S.md`) names the new file."""
        tails: dict[str, str] = {}
        for old, new in renames.items():
            o, n = old.split("/"), new.split("/")
            if len(o) == len(n):
                tails.update(("/".join(o[i:]), "/".join(n[i:])) for i in range(len(o)))
        self.renamed = tails

    def name(self, path: str) -> str:
        """`path` with every match as the name placeholder (what a renamed file is called)."""
        def named(match: re.Match[str]) -> str:
            self.tags.add(purge_tag(match.group(0)))
            self.matches += 1
            return name_placeholder(match.group(0))

        return self.pattern.sub(named, path)

    def shown(self, path: str) -> str:
        """`path` as a report may show it: the secret as the name placeholder (no counting)."""
        return self.pattern.sub(lambda m: name_placeholder(m.group(0)), path)

    def _path(self, token: str) -> str | None:
        """`token` naming a renamed file, renamed like it; None when it names none."""
        path, sep, fragment = token.partition("#")
        quoted = "%" in path
        plain = urllib.parse.unquote(path) if quoted else path
        if not self.pattern.search(plain):
            return None
        tail = posixpath.normpath(plain)
        up = ""
        while tail.startswith("../"):
            up, tail = up + "../", tail[3:]
        new = self.renamed.get(tail)
        if new is None:
            return None
        for match in self.pattern.finditer(plain):
            self.tags.add(purge_tag(match.group(0)))
            self.matches += 1
        new = up + new
        return (urllib.parse.quote(new, safe=_QUOTE_SAFE) if quoted else new) + sep + fragment

    def _paths(self, text: str) -> str:
        if not self.renamed or ("%" not in text and not self.pattern.search(text)):
            return text
        return _PATH_TOKEN.sub(lambda m: self._path(m.group(0)) or m.group(0), text)

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
        out, n = self.pattern.subn(self.placeholder, self._paths(text))
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
        """How many matches `data` holds (binary files: their UTF-8 runs searched, for the report)."""
        if not self.may_hold(data):
            return 0
        text = data.decode("utf-8", "surrogateescape")
        count = len(self.pattern.findall(text))
        if count == 0 and ("\\" in text or ("%" in text and self.renamed)):  # escaped in JSON, or a quoted path
            probe = Scrubber(self.pattern, self.literal, renamed=self.renamed)
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
