"""Token counting with tiktoken's o200k_base, loaded offline from litellm's bundled copy.

litellm ships tiktoken's encoding files in `litellm_core_utils/tokenizers`; pointing
`TIKTOKEN_CACHE_DIR` there before the first `get_encoding` keeps us off the network.
We locate the folder with importlib metadata so litellm itself is never imported.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

ENCODING = "o200k_base"


def _bundled_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        candidate = Path(base) / "litellm_core_utils" / "tokenizers"
        if candidate.is_dir():
            return candidate
    return None


@functools.lru_cache(maxsize=1)
def encoding():
    """The o200k_base encoding (cached); raises if it cannot be loaded offline."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        bundled = _bundled_tokenizer_dir()
        if bundled is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """Tokens of `text`; special-token look-alikes (`<|endoftext|>`) count as plain text."""
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))
