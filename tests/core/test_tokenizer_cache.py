"""The tokenizer's parsed ranks are kept in the user's cache: a later process loads them
instead of parsing tiktoken's file again, and counts exactly what tiktoken counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TEXTS = ["hello world, tokens!", "<|endoftext|> looks special but is text", "日本語のテキストと English mixed",
         "def f(x):\n    return x ** 2  # code\n" * 50, "emoji 🧪🧪 and accents: café naïve"]
COUNT = f"""
import json
from scriptorium.core.tokens import count_tokens
print(json.dumps([count_tokens(t) for t in {TEXTS!r}]))
"""


def counts(cache_home: Path, **env: str) -> list[int]:
    run_env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    run_env.pop("SCRIPTORIUM_NO_TOKENIZER_CACHE", None)
    run_env.update(env)
    done = subprocess.run([sys.executable, "-c", COUNT], capture_output=True, text=True, env=run_env, check=True)
    return json.loads(done.stdout)


def test_the_cached_ranks_count_exactly_what_tiktoken_counts(tmp_path: Path) -> None:
    exact = counts(tmp_path / "none", SCRIPTORIUM_NO_TOKENIZER_CACHE="1")
    assert not (tmp_path / "none").exists()  # the switch keeps no cache
    assert counts(tmp_path) == exact  # first process: parses and keeps the ranks
    kept = list((tmp_path / "scriptorium").glob("o200k_base-tiktoken-*.marshal"))
    assert len(kept) == 1 and kept[0].stat().st_size > 1_000_000
    assert counts(tmp_path) == exact  # later process: loads the kept ranks


def test_a_damaged_cache_is_replaced_and_counts_stay_exact(tmp_path: Path) -> None:
    exact = counts(tmp_path / "none", SCRIPTORIUM_NO_TOKENIZER_CACHE="1")
    counts(tmp_path)
    kept = next((tmp_path / "scriptorium").glob("*.marshal"))
    kept.write_bytes(b"not marshal at all")
    assert counts(tmp_path) == exact
    assert kept.stat().st_size > 1_000_000  # written again


def test_an_unwritable_cache_is_no_error(tmp_path: Path) -> None:
    exact = counts(tmp_path / "none", SCRIPTORIUM_NO_TOKENIZER_CACHE="1")
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would go")
    assert counts(blocker) == exact


def test_counting_needs_neither_litellm_nor_the_network(tmp_path: Path) -> None:
    """The default install has no litellm (an extra, for real models): the encoding we ship
    loads with litellm unimportable and no TIKTOKEN_CACHE_DIR, and counts what tiktoken counts."""
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoLitellm:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'litellm':\n"
        "            raise ModuleNotFoundError(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _NoLitellm())\n"
        "import socket\n"
        "def _no_network(*a, **k):\n"
        "    raise OSError('no network in this test')\n"
        "socket.socket.connect = _no_network\n"
        "socket.create_connection = _no_network\n")
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    env["PYTHONPATH"] = str(blocked) + os.pathsep + env.get("PYTHONPATH", "")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["SCRIPTORIUM_NO_TOKENIZER_CACHE"] = "1"
    probe = ("try:\n    import litellm\n    raise SystemExit('litellm was importable')\n"
             "except ModuleNotFoundError:\n    pass\n" + COUNT)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == counts(tmp_path / "none", SCRIPTORIUM_NO_TOKENIZER_CACHE="1")
