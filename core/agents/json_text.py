"""Edits to a JSON file's text that leave every byte around them as it was.

Parsing into a dict and dumping it again reformats the whole file (a compact array
becomes ten lines, CRLF becomes LF). Here the stdlib's decoder finds each value's span,
and an edit splices text in or out: a member or element is added after the container's
last one in that container's own style (on one line, or one per line with the siblings'
indentation and the file's line ending), and taking it out again removes exactly the
bytes the addition put in, so a round trip gives the file back byte for byte (an empty
container written with whitespace inside, `{ }`, comes back as `{}`).

Paths address values: a key for an object member, an index for an array element.
"""

from __future__ import annotations

import json
from json.decoder import scanstring  # type: ignore[attr-defined]  # public, but typeshed leaves it out
import re
from dataclasses import dataclass, field
from typing import Any, Union

Key = Union[str, int]
_WS = " \t\n\r"
_DECODER = json.JSONDecoder()


@dataclass
class Span:
    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    keys: list[str] = field(default_factory=list)  # objects: the members' keys, in order
    key_starts: list[int] = field(default_factory=list)  # objects: where each member's key starts
    children: list[Span] = field(default_factory=list)

    def child(self, key: Key) -> Span | None:
        if self.kind == "object" and isinstance(key, str) and key in self.keys:
            return self.children[len(self.keys) - 1 - self.keys[::-1].index(key)]  # the last wins, as in json.loads
        if self.kind == "array" and isinstance(key, int) and 0 <= key < len(self.children):
            return self.children[key]
        return None

    def starts(self) -> list[int]:
        """Where each member (its key) or element begins."""
        return self.key_starts if self.kind == "object" else [c.start for c in self.children]


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value(text: str, i: int) -> Span:
    i = _skip(text, i)
    opener = text[i: i + 1]
    if opener not in ("{", "["):
        _, end = _DECODER.raw_decode(text, i)
        return Span(i, end, "scalar")
    span = Span(i, i, "object" if opener == "{" else "array")
    closer = "}" if opener == "{" else "]"
    j = _skip(text, i + 1)
    if text[j: j + 1] == closer:
        span.end = j + 1
        return span
    while True:
        if span.kind == "object":
            if text[j: j + 1] != '"':
                raise ValueError(f"expected a key at {j}")
            key, after = scanstring(text, j + 1)
            span.keys.append(key)
            span.key_starts.append(j)
            j = _skip(text, after)
            if text[j: j + 1] != ":":
                raise ValueError(f"expected ':' at {j}")
            j += 1
        child = _value(text, j)
        span.children.append(child)
        j = _skip(text, child.end)
        if text[j: j + 1] == closer:
            span.end = j + 1
            return span
        if text[j: j + 1] != ",":
            raise ValueError(f"expected ',' or {closer!r} at {j}")
        j = _skip(text, j + 1)


def parse(text: str) -> Span:
    """The span tree of a JSON document (json.loads must accept it: call that first)."""
    return _value(text, 0)


def find(text: str, path: list[Key]) -> Span | None:
    span: Span | None = parse(text)
    for key in path:
        span = span.child(key) if span is not None else None
    return span


def newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _line_indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    match = re.match(r"[ \t]*", text[line_start:at])
    return match.group(0) if match else ""


def _render(value: Any, text: str, *, multiline: bool, indent: str, key_sep: str, item_sep: str) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False, separators=(item_sep, key_sep))
    unit = indent_unit(text)
    dumped = json.dumps(value, ensure_ascii=False, indent=unit)
    return dumped.replace("\n", newline(text) + indent)


def _separators(text: str, span: Span) -> tuple[str, str]:
    """The container's own `key: value` and `, ` spacing (compact files keep `"a":1,"b":2`)."""
    key_sep = ": "
    if span.kind == "object" and span.children:
        _, after = scanstring(text, span.key_starts[-1] + 1)
        key_sep = text[after: span.children[-1].start] or ":"
    item_sep = "," + _compact_space(text)
    if len(span.children) > 1:
        item_sep = "," + text[span.children[-2].end: span.starts()[-1]].split(",", 1)[-1]
    return key_sep, item_sep


def _compact_space(text: str) -> str:
    """What follows a comma on one line in this file: a space, or nothing (`[1,2]`)."""
    return "" if re.search(r",[^\s]", text) and not re.search(r",[ \t]", text) else " "


def _insert(text: str, span: Span, piece: Any, key: str | None) -> str:
    def entry(multiline: bool, indent: str, key_sep: str, item_sep: str) -> str:
        rendered = _render(piece, text, multiline=multiline, indent=indent, key_sep=key_sep, item_sep=item_sep)
        return rendered if key is None else json.dumps(key, ensure_ascii=False) + key_sep + rendered

    if not span.children:
        root = parse(text)
        multiline = "\n" in text[root.start: root.end] or not root.children  # a bare `{}` gets a laid-out file
        if not multiline:
            body = entry(False, "", ":" if '":' in text and '": ' not in text else ": ", "," + _compact_space(text))
            return text[: span.start + 1] + body + text[span.end - 1:]
        outer = _line_indent(text, span.start)
        inner = outer + indent_unit(text)
        nl = newline(text)
        return text[: span.start + 1] + nl + inner + entry(True, inner, ": ", ", ") + nl + outer + text[span.end - 1:]
    last = span.starts()[-1]
    if len(span.children) > 1:
        lead = text[span.children[-2].end: last].split(",", 1)[-1]  # the whitespace before the last entry
    else:
        lead = text[span.start + 1: last]
        lead = lead if "\n" in lead else _compact_space(text)
    key_sep, item_sep = _separators(text, span)
    multiline = "\n" in lead
    indent = lead.rsplit("\n", 1)[-1] if multiline else ""
    at = span.children[-1].end
    return text[:at] + "," + lead + entry(multiline, indent, key_sep, item_sep) + text[at:]


def add_member(text: str, path: list[Key], key: str, value: Any) -> str:
    """`value` as the object at `path`'s last member `key` (the key must be new)."""
    span = find(text, path)
    if span is None or span.kind != "object":
        raise ValueError(f"no object at {path}")
    return _insert(text, span, value, key)


def append(text: str, path: list[Key], value: Any) -> str:
    span = find(text, path)
    if span is None or span.kind != "array":
        raise ValueError(f"no array at {path}")
    return _insert(text, span, value, None)


def replace(text: str, path: list[Key], value: Any) -> str:
    """A new value in place of the one at `path`, on one line or indented as the old one was."""
    span = find(text, path)
    if span is None:
        raise ValueError(f"nothing at {path}")
    rendered = _render(value, text, multiline="\n" in text[span.start: span.end],
                       indent=_line_indent(text, span.start), key_sep=": ", item_sep=", ")
    return text[: span.start] + rendered + text[span.end:]


def remove(text: str, path: list[Key]) -> str:
    """Take out the member or element at `path`, with the separator and whitespace that
    an `add_member`/`append` at the end would have put in before it."""
    parent = find(text, path[:-1])
    if parent is None:
        raise ValueError(f"nothing at {path[:-1]}")
    key = path[-1]
    if parent.kind == "object":
        if not isinstance(key, str) or key not in parent.keys:
            raise ValueError(f"no member {key!r} at {path[:-1]}")
        index = len(parent.keys) - 1 - parent.keys[::-1].index(key)
    else:
        if not isinstance(key, int) or not 0 <= key < len(parent.children):
            raise ValueError(f"no element {key!r} at {path[:-1]}")
        index = key
    starts = parent.starts()
    if len(parent.children) == 1:
        return text[: parent.start + 1] + text[parent.end - 1:]
    if index > 0:
        return text[: parent.children[index - 1].end] + text[parent.children[index].end:]
    return text[: starts[0]] + text[starts[1]:]
