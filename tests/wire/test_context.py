"""Batches cut to the model's context window: `[model] context_tokens` where litellm does not
know the model, litellm's model info where it does; a turn too big for the window alone is
refused before anything is sent."""

from __future__ import annotations

from scriptorium.core.sessions.marker import pending
from scriptorium.core.tokens import count_tokens
from scriptorium.core.writer import write
from scriptorium.core.writer.pipeline import batch_limit
from scriptorium.core.writer.prompts import NOTHING_TO_KEEP
from scriptorium.core.writer.tools import WRITER_TOOLS

from .conftest import PROVIDERS, configure, refs
from .servers import ScriptedServer, Turn

TEXT = "the release train for the mobile app leaves every second Thursday from the main branch " * 6


def session(store, n: int) -> tuple[str, list[str]]:
    sid = store.create_session("long")
    ids, before = [], "ROOT"
    for i in range(n):
        node = f"t{i}"
        store.append(sid, "user" if i % 2 == 0 else "assistant", f"{i}: {TEXT}", predecessor=before, node_id=node)
        ids.append(node)
        before = node
    return sid, ids


def overhead() -> int:
    """What the contract and the tools' schemas take of any window."""
    return 10_000 - 2 * batch_limit(10_000)


def handed(server) -> list[list[str]]:
    """The node ids of the records each writer run was given (first request of each run)."""
    tasks = [PROVIDERS["openai"].seen(r.body) for r in server.requests]
    return [[ref.rsplit("/", 1)[1] for ref in refs(seen.task)] for seen in tasks
            if seen.tools == list(WRITER_TOOLS) and seen.rounds == 0]


def nothing_to_keep(provider):
    return ScriptedServer([provider.answer(Turn(NOTHING_TO_KEEP), False)], repeat_last=True, max_requests=40)


def test_context_tokens_cut_the_batches_of_a_model_litellm_does_not_know(store):
    provider = PROVIDERS["openai"]
    sid, ids = session(store, 12)
    window = overhead() + 1400  # leaves 700 tokens a batch: about 5 turns of these
    with nothing_to_keep(provider) as server:
        configure(store, provider, server.url, writer__model="openai/local-model", model__context_tokens=window)
        result = write(store, sid, force=True)
    assert result.outcome == "ok", result.message
    batches = handed(server)
    assert [b.turns for b in result.batches] == batches and sum(batches, []) == ids
    assert len(batches) > 1
    per_turn = count_tokens(f"0: {TEXT}")
    assert all(len(b) * per_turn <= batch_limit(window) + per_turn for b in batches)  # each within the limit
    assert all(len(b) >= batch_limit(window) // per_turn - 1 for b in batches[:-1])  # and filled up to it
    assert not pending(store, sid)


def test_litellm_knows_the_window_of_a_cloud_model(store):
    provider = PROVIDERS["openai"]
    sid, ids = session(store, 12)
    with nothing_to_keep(provider) as server:
        configure(store, provider, server.url)  # openai/gpt-4o-mini: 128k tokens, per litellm's bundled map
        result = write(store, sid, force=True)
    assert result.outcome == "ok" and handed(server) == [ids]


def test_context_tokens_overrides_what_litellm_knows(store):
    provider = PROVIDERS["openai"]
    sid, _ids = session(store, 12)
    with nothing_to_keep(provider) as server:
        configure(store, provider, server.url, model__context_tokens=overhead() + 1400)
        write(store, sid, force=True)
    assert len(handed(server)) > 1  # the server's real window (an Ollama num_ctx, say) wins


def test_a_turn_larger_than_the_window_alone_is_refused_before_sending(store):
    provider = PROVIDERS["openai"]
    sid = store.create_session("huge")
    store.append(sid, "user", TEXT * 40, predecessor="ROOT", node_id="big")
    with nothing_to_keep(provider) as server:
        configure(store, provider, server.url, model__context_tokens=4000)
        result = write(store, sid, force=True)
    assert (result.outcome, result.code) == ("permanent", "MODEL_CONTEXT_LENGTH")
    assert "over its context window of 4000; nothing was sent" in result.message
    assert server.requests == [] and [t.id for t in pending(store, sid)] == ["big"]
