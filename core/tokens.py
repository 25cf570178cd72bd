"""Token counting with tiktoken's o200k_base, loaded offline from the copy we ship.

tiktoken downloads its encoding files on first use; `core/tokenizer_data/` holds
o200k_base's file under the name tiktoken's cache gives it (the sha1 of its URL), so
pointing `TIKTOKEN_CACHE_DIR` there before the first `get_encoding` keeps us off the
network without litellm (an optional extra, for real models) installed.
"""

from __future__ import annotations

import functools
import marshal
import os
from pathlib import Path

ENCODING = "o200k_base"


def _bundled_tokenizer_dir() -> Path:
    """The shipped encoding (tiktoken checks its sha256 when it loads it)."""
    return Path(__file__).resolve().parent / "tokenizer_data"


@functools.lru_cache(maxsize=1)
def encoding():
    """The o200k_base encoding (cached); raises if it cannot be loaded offline.

    tiktoken parses its 200,000 base64 ranks on every load (~0.25-0.4 s CPU, most of a
    first count); a marshal copy of the parsed ranks in the user's cache loads in a
    fraction of that. Any trouble with the copy falls back to tiktoken's own load."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(_bundled_tokenizer_dir())
    import tiktoken

    parsed = _parsed_ranks()
    if parsed is not None:
        pat_str, ranks, special = parsed
        try:
            return tiktoken.Encoding(ENCODING, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=special)
        except (ValueError, TypeError):
            pass
    cached = _ranks_cache(tiktoken.__version__)
    if cached is None:
        return tiktoken.get_encoding(ENCODING)
    from tiktoken_ext.openai_public import o200k_base  # what get_encoding would call

    spec = o200k_base()
    enc = tiktoken.Encoding(**spec)
    _save_ranks(cached, (spec["pat_str"], spec["mergeable_ranks"], spec["special_tokens"]))
    return enc


@functools.lru_cache(maxsize=1)
def _parsed_ranks() -> tuple[str, dict[bytes, int], dict[str, int]] | None:
    """The parsed ranks from the user's cache, read once a process (by `small_counter` and
    `encoding` alike); None when there are none yet or they cannot be read."""
    import tiktoken

    cached = _ranks_cache(tiktoken.__version__)
    if cached is None:
        return None
    try:
        pat_str, ranks, special = marshal.loads(cached.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):  # no cache yet, a truncated or foreign one
        return None
    return pat_str, ranks, special


def _ranks_cache(version: str) -> Path | None:
    """Where the parsed ranks of this tiktoken version are kept (None: keep none)."""
    if os.environ.get("SCRIPTORIUM_NO_TOKENIZER_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "scriptorium" / f"{ENCODING}-tiktoken-{version}.marshal"


def _save_ranks(target: Path, parsed: tuple) -> None:
    """Write the parsed ranks once, atomically; a cache that cannot be written is no error."""
    try:
        data = marshal.dumps(parsed)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except Exception:  # a read-only home, a full disk, another tiktoken layout: just no cache
        return


CHUNK = 1 << 18  # characters per encode call: a huge turn never becomes one list of millions of ints
EXACT_LIMIT = 4 << 20  # past this many characters the rest is estimated at the rate counted so far


SMALL_TEXT = 4096  # characters: a text this short may be counted without building tiktoken's encoder
SMALL_BUDGET = 65536  # characters a process counts that way before building the encoder pays
LONG_PIECE = 64  # bytes of one pre-tokenized piece (a hash, a blob) past which the encoder merges it


def count_tokens(text: str) -> int:
    """Tokens of `text`; special-token look-alikes (`<|endoftext|>`) count as plain text.

    Short texts, while the encoder is not built, are counted by `SmallCounter` (the same
    counts, without the encoder's 0.2-0.3 s build: most of a one-turn `finish`). Long texts
    are counted in chunks cut before a space (a token seldom spans one), so memory stays
    bounded; past `EXACT_LIMIT` characters (a 50 MB pasted log) the rest is extrapolated:
    a batch threshold needs the size, not the last token."""
    if not text:
        return 0
    if len(text) <= SMALL_TEXT and not encoding.cache_info().currsize:
        small = small_counter()
        if small is not None and (n := small.count(text)) is not None:
            return n
    enc = encoding()
    n = len(text)
    if n <= CHUNK:
        return len(enc.encode_ordinary(text))
    total = pos = 0
    limit = min(n, EXACT_LIMIT)
    while pos < limit:
        end = min(pos + CHUNK, n)
        if end < n:
            cut = text.rfind(" ", pos + CHUNK // 2, end)
            end = cut if cut > pos else end
        total += len(enc.encode_ordinary(text[pos:end]))
        pos = end
    if pos < n:
        total += round(total * (n - pos) / pos)
    return total


class SmallCounter:
    """o200k_base's counts of short texts from its parsed ranks, by tiktoken's own algorithm:
    the encoding's pattern splits the text into pieces; a piece that is a token is one, any
    other is merged pair by pair, the lowest-ranked adjacent pair first (the leftmost of
    equals), and counts what is left. Pure Python, so only for short texts, pieces of at
    most `LONG_PIECE` bytes and `SMALL_BUDGET` characters a process; `count` says None
    where the encoder must count."""

    def __init__(self, pat_str: str, ranks: dict[bytes, int]) -> None:
        import regex  # tiktoken's own dependency: the pattern needs \p{..} classes

        self._split = regex.compile(pat_str).findall
        self._ranks = ranks
        self.left = SMALL_BUDGET

    def count(self, text: str) -> int | None:
        if len(text) > min(SMALL_TEXT, self.left):
            return None
        ranks, n = self._ranks, 0
        for piece in self._split(text):
            try:
                data = piece.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: tiktoken replaces it first
                return None
            if data in ranks:
                n += 1
            elif len(data) > LONG_PIECE:
                return None
            else:
                n += _merged(ranks, data)
        self.left -= len(text)
        return n


def _merged(ranks: dict[bytes, int], piece: bytes) -> int:
    """How many tokens byte-pair merging leaves of `piece`."""
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best, at = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best):
                best, at = rank, i
        if best is None:
            break
        parts[at:at + 2] = [parts[at] + parts[at + 1]]
    return len(parts)


@functools.lru_cache(maxsize=1)
def small_counter() -> SmallCounter | None:
    """A counter over the user's cached parsed ranks (see `encoding`); None when there is
    none yet (the encoder's first load writes it) or it cannot be read."""
    parsed = _parsed_ranks()
    if parsed is None:
        return None
    try:
        return SmallCounter(parsed[0], parsed[1])
    except Exception:  # a pattern this regex cannot compile: the encoder counts
        return None


class CountCache:
    """Exact counts of texts counted before, by content hash: a render whose blocks did not
    change needs no tokenizer (loading it costs ~0.4 s, more than a whole transaction).

    Loaded from a JSON document (`{"version", "encoding", "counts": {hash: n}}`); a missing,
    corrupt or foreign one is an empty cache. `dump()` keeps only the texts counted through
    this cache since it was loaded (what the last render used), so the file never grows past
    what one render needs."""

    VERSION = 1

    def __init__(self, data: bytes | None = None) -> None:
        self._known: dict[str, int] = {}
        self._used: dict[str, int] = {}
        self.misses = 0  # texts counted with the tokenizer
        if data:
            self._known = _parse_counts(data)

    @staticmethod
    def key(text: str) -> str:
        import hashlib

        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def count(self, text: str) -> int:
        """`count_tokens(text)`, from the cache when the same text was counted before."""
        key = self.key(text)
        n = self._used.get(key)
        if n is None:
            n = self._known.get(key)
            if n is None:
                n = count_tokens(text)
                self.misses += 1
            self._used[key] = n
        return n

    def dump(self) -> bytes:
        import json

        doc = {"version": self.VERSION, "encoding": ENCODING, "counts": dict(sorted(self._used.items()))}
        return (json.dumps(doc, separators=(",", ":")) + "\n").encode("ascii")


def _parse_counts(data: bytes) -> dict[str, int]:
    import json

    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(doc, dict) or doc.get("version") != CountCache.VERSION or doc.get("encoding") != ENCODING:
        return {}
    counts = doc.get("counts")
    if not isinstance(counts, dict):
        return {}
    return {k: v for k, v in counts.items()
            if isinstance(k, str) and type(v) is int and v >= 0}
