"""The form recall gives an agent: plain lines, a record with its date and speaker.

A block is its claim without footnote markers, anchors or source paths, followed by one
reference line `(memory_get <id>)`; a record (a turn of the archive) is
`- 2023-05-08, Caroline: what was said`, so temporal questions can be answered.

The writer archives a session's turns under the names its `speakers` metadata gives
({"user": ..., "assistant": ...}); an archive written before that, or a session with no
names, labels them by role ("Owner", "agent/main"). `Speakers` then finds the name in
the session's meta.json or in the turn itself ("Caroline: ..." in an imported
transcript), so the agent reads who said it, not "Owner".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..fence import plain_memory

if TYPE_CHECKING:
    from ..search import Hit

REFERENCE = "memory_get "
_ROLE_LABELS = {"Owner": "user", "agent/main": "assistant"}  # memory/sources.py's session_record
_NAMED_TURN = re.compile(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}): (\S.*)$", re.DOTALL)


class Speakers:
    """The names of a state's sessions' speakers, read once per session."""

    def __init__(self, state_dir: Path | None) -> None:
        self.sessions = Path(state_dir) / "sessions" if state_dir else None
        self._known: dict[str, dict[str, str]] = {}

    def named(self, source_id: str, label: str, content: str) -> tuple[str, str]:
        """(speaker, content) of a record: its label, or the name its session or turn gives."""
        role = _ROLE_LABELS.get(label)
        if role is None:
            return label, content
        parts = source_id.split("/")
        name = self._of(parts[1]).get(role, "") if len(parts) == 3 else ""
        if name:
            return name, content
        turn = _NAMED_TURN.match(content)
        return (turn.group(1), turn.group(2)) if turn else (label, content)

    def _of(self, session_id: str) -> dict[str, str]:
        if session_id not in self._known:
            names: dict[str, str] = {}
            if self.sessions is not None and session_id and "/" not in session_id and not session_id.startswith("."):
                try:
                    raw = orjson.loads((self.sessions / session_id / "meta.json").read_bytes()).get("speakers")
                    names = {k: v.strip() for k, v in raw.items() if isinstance(v, str) and v.strip()} if isinstance(raw, dict) else {}
                except (OSError, ValueError, AttributeError):
                    names = {}
            self._known[session_id] = names
        return self._known[session_id]


_SENTENCE_END = re.compile(r"(?<=[.!?…。！？]) (?=\S)")
GAP = "…"  # stands for the sentences left out of a cut item
GAP_LINES = (f"- {GAP} x. {GAP} y", f"x. {GAP}")  # their pieces hold those a cut adds: "- …", " …", " …\n"


@dataclass(frozen=True)
class Focus:
    """What a long item is cut to: the sentences sharing the most of the prompt's words
    (`words`: its search tokens), in their order, within `limit` characters. A block
    of a conversation holds a dozen turns' worth of sentences; the one the prompt is
    about is what the budget should be spent on (`memory_get` gives the rest)."""

    words: frozenset[str]
    limit: int


def focused(text: str, focus: Focus | None) -> str:
    """`text`, or when longer than `focus.limit`, the sentences sharing the prompt's words,
    best first while they fit (the best one always), then in the room left the sentence after
    each, joined in their order, a gap marked " … "."""
    if focus is None or len(text) <= focus.limit:
        return text
    from ..search import tokenize

    sentences = _SENTENCE_END.split(text)
    shared = [len(focus.words.intersection(tokenize(s))) for s in sentences]
    if not any(shared):
        shared[0] = 1  # found by meaning alone: its opening
    keep: set[int] = set()
    used = 0
    for i in sorted(range(len(sentences)), key=lambda i: (-shared[i], i)):
        if not shared[i]:
            break
        if keep and used + len(sentences[i]) + 2 > focus.limit:
            continue
        keep.add(i)
        used += len(sentences[i]) + 2
    for i in sorted(keep):  # room left: the sentence after a kept one (what was said next, often the answer)
        j = i + 1
        if j < len(sentences) and j not in keep and used + len(sentences[j]) + 2 <= focus.limit:
            keep.add(j)
            used += len(sentences[j]) + 2
    parts = [GAP] if min(keep) else []
    for i in sorted(keep):
        if parts and parts[-1] != GAP and i - 1 not in keep:
            parts.append(GAP)
        parts.append(sentences[i])
    return " ".join(parts + ([GAP] if max(keep) < len(sentences) - 1 else []))


def render_item(hit: "Hit", speakers: Speakers | None = None, focus: Focus | None = None) -> str:
    """A candidate as the agent reads it: a record with its date and speaker, a block as plain text."""
    if hit.kind == "source":
        from ..search.corpus import record_parts

        date, speaker, content = record_parts(hit.text)
        speaker, content = (speakers or Speakers(None)).named(hit.block_id, speaker, content)
        head = ", ".join(part for part in (date, speaker) if part)
        content = focused(" ".join(content.split()), focus)
        return f"- {head}: {content}" if head else f"- {content}"
    return "- " + focused(" ".join(plain_memory(hit.text).split()), focus)


def item_lines(hit: "Hit", speakers: Speakers | None = None, focus: Focus | None = None) -> list[str]:
    """An item's line, and for a block its reference line (for `memory_get`)."""
    line = render_item(hit, speakers, focus)
    return [line, f"({REFERENCE}{hit.block_id})"] if hit.kind == "block" else [line]

