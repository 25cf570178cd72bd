"""The embedding model behind semantic search: one small seam, offline by default.

`load_model(name)` is the model `[search] model` in the state's config.toml names
("wordllama", the default and the only one shipped), or None when it does not load:
search then ranks with BM25 alone. `[search] semantic = false` never imports this module
(nor numpy, the tokenizer or the weights). Another model plugs in as one more entry of
`MODELS`: a name to a loader returning an `Embedder`.

WordLlama (`wordllama` on the package index, MIT) ships its weights inside the wheel: a
32,000 x 256 float16 matrix of static token embeddings and the tokenizer of that
vocabulary. A text's vector is the mean of its tokens' rows, normalized. The package's
own loader imports pydantic, requests and its training code (0.2 s of CPU) and then
looks for its tokenizer under a name it does not ship before trying to download it; so
the two files are read here directly: the matrix memory-mapped straight out of the
installed safetensors file (nothing copied or parsed; pages are read as tokens need
them), the tokenizer with the `tokenizers` library it was made for. No hub is ever asked.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MODEL = "wordllama"


class Embedder(Protocol):
    name: str  # names the vectors it makes: a vector cache made by another model is not reused
    dim: int

    def embed(self, texts: list[str]) -> "np.ndarray":
        """One unit-length float32 row per text (a text with no known token: all zeros)."""
        ...


class WordLlama:
    """WordLlama's l2_supercat model at 256 dimensions, loaded from the installed package."""

    CONFIG = "l2_supercat"
    dim = 256
    name = f"wordllama-{CONFIG}-{dim}"

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        weights = folder / "weights" / f"{self.CONFIG}_{self.dim}.safetensors"
        with open(weights, "rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(length))
        tensor = header["embedding.weight"]
        if tensor["dtype"] != "F16" or tensor["shape"][1] != self.dim:
            raise ValueError(f"unexpected WordLlama weights: {tensor}")
        start, end = tensor["data_offsets"]
        self._matrix = np.memmap(weights, dtype=np.float16, mode="r", offset=8 + length + start,
                                 shape=tuple(tensor["shape"]))
        if self._matrix.nbytes != end - start:
            raise ValueError("WordLlama weights are cut short")
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizers" / f"{self.CONFIG}_tokenizer_config.json"))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

    def embed(self, texts: list[str]) -> "np.ndarray":
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        rows = self._matrix.shape[0]
        encoded = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encoded]
        counts = np.array([len(i) for i in ids])
        flat = np.clip(np.concatenate(ids), 0, rows - 1) if counts.sum() else np.zeros(0, dtype=np.int64)
        if flat.size:
            vectors = self._matrix[flat].astype(np.float32)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            filled = counts > 0
            out[filled] = np.add.reduceat(vectors, starts[filled], axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def _wordllama() -> Embedder:
    spec = importlib.util.find_spec("wordllama")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("wordllama is not installed")
    return WordLlama(Path(next(iter(spec.submodule_search_locations))))


MODELS: dict[str, Callable[[], Embedder]] = {"wordllama": _wordllama}


@functools.lru_cache(maxsize=None)
def load_model(name: str) -> Embedder | None:
    """The named model, loaded once per process; None when it cannot be (not installed,
    damaged files): search goes on with BM25 alone."""
    loader = MODELS.get(name)
    if loader is None:
        return None
    try:
        return loader()
    except Exception:  # noqa: BLE001 - any failure to load means: no semantic search, never a failed search
        return None
