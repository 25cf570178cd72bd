"""Token counts: exact for ordinary turns, bounded for huge ones."""

import json
import random
from pathlib import Path

from scriptorium.core import tokens
from scriptorium.core.tokens import count_tokens, encoding


def words(n: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    vocab = ["cache", "runner", "evict", "the", "build", "target", "42", "naïve", "日本語", "{\"k\":", "GB,"]
    return " ".join(rng.choice(vocab) for _ in range(n))


def test_an_ordinary_turn_is_counted_exactly_and_special_tokens_are_plain_text():
    text = "Start with 50 GB per runner <|endoftext|> and evict the oldest."
    assert count_tokens(text) == len(encoding().encode(text, disallowed_special=()))
    assert count_tokens("") == 0


def test_a_long_turn_counted_in_chunks_stays_within_a_tenth_of_a_percent():
    text = words(400_000)
    assert len(text) > tokens.CHUNK * 4
    exact = len(encoding().encode(text, disallowed_special=()))
    assert abs(count_tokens(text) - exact) <= exact * 0.001


def test_past_the_exact_limit_the_rest_is_extrapolated(monkeypatch):
    monkeypatch.setattr(tokens, "EXACT_LIMIT", tokens.CHUNK * 2)
    text = words(400_000)
    exact = len(encoding().encode(text, disallowed_special=()))
    estimate = count_tokens(text)
    assert estimate != exact or len(text) <= tokens.EXACT_LIMIT
    assert abs(estimate - exact) <= exact * 0.05


FIXTURES = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
EDGES = ["naïve café 日本語のテキスト 🙂🙂 and emoji", "   runs   of    spaces\n\n\n\ttabs\r\n\r\n", "I'll we're THEY'VE don't",
         "1234567890123 0.25 1e-9", "ＡＢＣ full width", "ab" * 32 + "c", "résumé — dash…", "<|endoftext|> plain",
         "def f(x):\n    return x ** 2  # squared\n", "https://example.com/a/b?c=d&e=f#g", "e3b0c44298fc1c149afbf4c8996fb924"]


def fixture_turns(limit: int = 600) -> list[str]:
    """Message texts of the coding set's real transcripts (Claude Code, Codex, pi)."""
    out: list[str] = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("message") or record.get("payload") or {}
            content = message.get("content") if isinstance(message, dict) else None
            parts = [content] if isinstance(content, str) else [
                b.get("text") for b in content or [] if isinstance(b, dict)]
            out += [p[: tokens.SMALL_TEXT] for p in parts if isinstance(p, str) and p.strip()]
    random.Random(3).shuffle(out)
    return out[:limit]


def spec() -> dict:
    encoding()  # points tiktoken at the shipped file
    from tiktoken_ext.openai_public import o200k_base

    return o200k_base()


def test_short_texts_are_counted_as_the_encoder_counts_them_without_building_it():
    parsed, enc = spec(), encoding()
    counter = tokens.SmallCounter(parsed["pat_str"], parsed["mergeable_ranks"])
    texts = fixture_turns() + EDGES
    counter.left = sum(map(len, texts))
    counted = [(t, counter.count(t)) for t in texts]
    assert sum(n is not None for _, n in counted) >= len(texts) * 0.9
    assert [n for _, n in counted if n is not None] == [len(enc.encode_ordinary(t)) for t, n in counted if n is not None]


def test_a_long_piece_a_long_text_or_a_spent_budget_go_to_the_encoder():
    parsed = spec()
    counter = tokens.SmallCounter(parsed["pat_str"], parsed["mergeable_ranks"])
    assert counter.count("key " + "abcdefghijklmnopqrstuvwxyz" * 4) is None  # one 104-byte piece
    assert counter.count("word " * (tokens.SMALL_TEXT // 5 + 1)) is None
    assert counter.count("lone \ud800 surrogate") is None
    counter.left = 5
    assert counter.count("hello there") is None and counter.count("hi") == 1


def test_a_process_with_the_parsed_ranks_cached_counts_a_turn_without_the_encoder(tmp_path, monkeypatch):
    text = "We deploy the billing service on Tuesdays after the 14:00 freeze, never on Fridays."
    expected = len(encoding().encode_ordinary(text))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("SCRIPTORIUM_NO_TOKENIZER_CACHE", raising=False)
    try:
        for first in (True, False):  # the first load writes the parsed ranks; the next process reads them
            tokens.encoding.cache_clear()
            tokens.small_counter.cache_clear()
            tokens._parsed_ranks.cache_clear()
            assert count_tokens(text) == expected
            assert bool(tokens.encoding.cache_info().currsize) is first
        assert list(tmp_path.glob("scriptorium/*.marshal"))
    finally:
        tokens.encoding.cache_clear()
        tokens.small_counter.cache_clear()
        tokens._parsed_ranks.cache_clear()
