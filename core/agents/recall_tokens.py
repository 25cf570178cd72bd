"""Token counts of recall's lines, kept by content: a hook before a prompt counts its budget
without loading the tokenizer (~0.15 s of CPU, as much as the rest of recall).

The injected text is `<memory-context>\\nNOTE\\n\\n`, then `line\\n` per item and for the
reference line, then `</memory-context>`. o200k's pre-tokenizer never lets a token run
past a line break into the next line (no pattern starts with a newline and continues),
nor across a space that follows a non-space and precedes one (a space only ever starts
a pre-token there), so the text's count is the sum of its pieces' counts, exactly: each
line is cut before the space after a sentence's end (or a record's `Caroline:`), which
is where an item cut to its matching sentences (`recall_text.focused`) is cut too.
Counts are kept in `memory/.scriptorium/recall-tokens.json` ({key: count}); a piece not
in it is counted with the tokenizer and added. The write job counts every candidate's
pieces ahead (`count_ahead`), and the gap marks a cut item adds, so a cut item is
counted without the tokenizer too.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import orjson

from ..fence import AGENT_NOTE, CLOSE, OPEN
from ..fsutil import atomic_write_bytes
from ..paths import RUNTIME_DIR, StatePaths

FILE = "recall-tokens.json"
HEAD = f"{OPEN}\n{AGENT_NOTE}\n\n"


_CUT = re.compile(r"(?<=[.!?…。！？:])(?= \S)")


def pieces(line: str) -> list[str]:
    """`line` and its newline, cut before each space that ends a sentence (or a label)."""
    return _CUT.split(line + "\n")


class LineTokens:
    def __init__(self, memory: Path) -> None:
        self.path = Path(memory) / RUNTIME_DIR / FILE
        try:
            raw = orjson.loads(self.path.read_bytes())
            self._known: dict[str, int] = raw if isinstance(raw, dict) else {}
        except (OSError, ValueError):
            self._known = {}
        self._dirty = False

    def count(self, piece: str) -> int:
        key = hashlib.blake2b(piece.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
        n = self._known.get(key)
        if not isinstance(n, int):
            from ..tokens import count_tokens

            n = self._known[key] = count_tokens(piece)
            self._dirty = True
        return n

    def text(self, lines: list[str]) -> int:
        """Tokens of the fenced text made of `lines` (recall.render's form)."""
        return self.count(HEAD) + sum(self.count(piece) for line in lines for piece in pieces(line)) \
            + self.count(CLOSE)

    def save(self) -> None:
        if not self._dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, orjson.dumps(self._known), durable=False)
            self._dirty = False
        except OSError:
            pass  # counts only save time


def count_ahead(state_dir: Path) -> None:
    """After a write: refresh the search models and vectors, and count every candidate's line,
    so that the next prompt's recall only loads what is saved."""
    from ..search import SearchIndex
    from .recall_text import GAP_LINES, Speakers, item_lines

    memory = StatePaths(Path(state_dir)).memory
    index = SearchIndex(memory)
    index.prepare()
    counts = LineTokens(memory)
    speakers = Speakers(Path(state_dir))
    counts.text([line for hit in index.candidates() for line in item_lines(hit, speakers)] + list(GAP_LINES))
    counts.save()
