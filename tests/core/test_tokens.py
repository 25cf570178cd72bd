"""Token counts: exact for ordinary turns, bounded for huge ones."""

import random

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
