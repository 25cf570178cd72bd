"""Token counts of recall's lines, kept by content: a hook before a prompt counts its budget
without loading the tokenizer (~0.15 s of CPU, as much as the rest of recall).

The injected text is `<memory-context>\\nNOTE\\n\\n`, then `line\\n` per item and for the
reference line, then `</memory-context>`. o200k's pre-tokenizer never lets a token run
past a line break into the next line (no pattern starts with a newline and continues),
so the text's count is the sum of those pieces' counts, exactly. Counts are kept in
`memory/.scriptorium/recall-tokens.json` ({key: count}); a line not in it is counted with
the tokenizer and added. The write job counts every candidate's line ahead (`count_ahead`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from ..fence import AGENT_NOTE, CLOSE, OPEN
from ..fsutil import atomic_write_bytes
from ..paths import RUNTIME_DIR, StatePaths

FILE = "recall-tokens.json"
HEAD = f"{OPEN}\n{AGENT_NOTE}\n\n"


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
        return self.count(HEAD) + sum(self.count(line + "\n") for line in lines) + self.count(CLOSE)

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
    from .recall_text import Speakers, item_lines

    memory = StatePaths(Path(state_dir)).memory
    index = SearchIndex(memory)
    index.prepare()
    counts = LineTokens(memory)
    speakers = Speakers(Path(state_dir))
    counts.text([line for hit in index.candidates() for line in item_lines(hit, speakers)])
    counts.save()
