"""The scriptorium provider end to end, through the reference loop and the offline writer."""

from pathlib import Path

from filelock import FileLock

from scriptorium.core.sessions.marker import pending
from scriptorium.core.paths import StatePaths
from scriptorium.core.providers import create_provider
from scriptorium.core.providers.runtime import ChatRuntime
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer.pipeline import PASS_LOCK

QUESTIONS = [
    "Our build cache lives on the runners; each runner gets fifty gigabytes of cache.",
    "Deploys to production happen on Tuesday evenings, never on Fridays.",
    "The staging database is rebuilt every night at two.",
]


def _model(messages: list[dict]) -> str:
    return "Noted: " + messages[-1]["content"].rsplit("\n", 1)[-1]


def test_session_end_writes_everything_and_search_finds_it(tmp_path: Path):
    store = SessionStore(tmp_path)
    provider = create_provider(tmp_path, "scriptorium")
    runtime = ChatRuntime(provider, _model, store, compact_tokens=100_000)
    sid = runtime.start()
    for text in QUESTIONS:
        result = runtime.turn(text)
        assert result.write_outcome.outcome == "ok"  # below the threshold: nothing yet, no error
    assert len(pending(store, sid)) == 6
    runtime.end()
    assert provider.last_finish.outcome == "ok" and provider.last_finish.code == "WRITTEN"
    assert pending(store, sid) == []
    recalled = provider.search("when do production deploys happen")
    assert recalled.count("<memory-context>") == 1 and "Tuesday" in recalled


def test_extract_before_discard_writes_the_discarded_turns_first(tmp_path: Path):
    store = SessionStore(tmp_path)
    provider = create_provider(tmp_path, "scriptorium")
    runtime = ChatRuntime(provider, _model, store, compact_tokens=100_000, keep_recent=2)
    sid = runtime.start()
    for text in QUESTIONS:
        runtime.turn(text)
    discard = runtime.history[:4]
    assert provider.extract_before_discard(discard) == ""  # written, nothing for the summary to keep
    left = {t.id for t in pending(store, sid)}
    assert not left & {m["id"] for m in discard}


def test_extract_before_discard_returns_what_could_not_be_written(tmp_path: Path):
    store = SessionStore(tmp_path)
    provider = create_provider(tmp_path, "scriptorium")
    runtime = ChatRuntime(provider, _model, store, compact_tokens=100_000, keep_recent=2)
    runtime.start()
    for text in QUESTIONS[:2]:
        runtime.turn(text)
    paths = StatePaths(tmp_path)
    with FileLock(str(paths.runtime / PASS_LOCK)):  # another writer holds the pass: retryable
        kept = provider.extract_before_discard(runtime.history[:2])
    assert kept.splitlines() == [f"user: {QUESTIONS[0]}", f"assistant: Noted: {QUESTIONS[0]}"]
    assert provider.extract_before_discard([{"role": "user", "content": "no id"}]) == ""
