"""The reference runtime loop drives all nine methods, in a session's order."""

from pathlib import Path
from typing import Any

from scriptorium.core.providers import MemoryProvider
from scriptorium.core.providers.runtime import ChatRuntime
from scriptorium.core.providers.trilogy import TrilogyProvider
from scriptorium.core.search import fence_memory
from scriptorium.core.sessions.store import SessionStore


class Recording(MemoryProvider):
    """Records every call, answers like a small memory system."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.discarded: list[dict] = []

    @property
    def name(self) -> str:
        self.calls.append("name")
        return "recording"

    def is_available(self) -> bool:
        self.calls.append("is_available")
        return True

    def initialize(self, session_id: str = "", **options: Any) -> None:
        self.calls.append("initialize")
        self.session_id = session_id

    def system_prompt(self) -> str:
        self.calls.append("system_prompt")
        return fence_memory("The user is called Ada.")

    def search(self, query: str, *, top_k: int | None = None) -> str:
        self.calls.append("search")
        return fence_memory(f"recalled for: {query}")

    def write(self, messages=None, *, session_id: str = "", force: bool = False) -> Any:
        self.calls.append("write")
        assert session_id == self.session_id and [m["role"] for m in messages] == ["user", "assistant"]
        return "ok"

    def reorganize(self, **options: Any) -> dict:
        self.calls.append("reorganize")
        return {"status": "ok"}

    def extract_before_discard(self, messages: list[dict]) -> str:
        self.calls.append("extract_before_discard")
        self.discarded = messages
        return "the user prefers tea"

    def shutdown(self) -> None:
        self.calls.append("shutdown")


class Model:
    def __init__(self) -> None:
        self.prompts: list[list[dict]] = []

    def __call__(self, messages: list[dict]) -> str:
        self.prompts.append(messages)
        return f"reply {len(self.prompts)}"


def test_loop_calls_all_nine_in_session_order(tmp_path: Path):
    provider, model, store = Recording(), Model(), SessionStore(tmp_path)
    runtime = ChatRuntime(provider, model, store, compact_tokens=10_000, keep_recent=2)
    sid = runtime.start()
    for text in ("hello", "what do I drink?", "thanks"):
        runtime.turn(text)
    assert runtime.compact()
    runtime.reorganize()
    runtime.end()
    assert provider.calls == [
        "name", "is_available", "initialize", "system_prompt",
        "search", "write", "search", "write", "search", "write",
        "extract_before_discard", "reorganize", "shutdown",
    ]
    # core in the system prompt, recall with the user's message, never re-wrapped
    first = model.prompts[0]
    assert first[0]["role"] == "system" and "The user is called Ada." in first[0]["content"]
    assert first[-1]["content"].startswith("<memory-context>") and first[-1]["content"].endswith("hello")
    assert first[-1]["content"].count("<memory-context>") == 1
    # the session holds what a runtime leaves behind: turns, prefetch, the summary
    assert store.meta(sid)["memory_provider"] == "recording"
    branch = store.get_branch(sid)
    users = [n for n in branch if n.kind == "user"]
    assert [n.text for n in users] == ["hello", "what do I drink?", "thanks"]
    assert "recalled for: hello" in users[0].metadata["memory_prefetch"]
    assert [m["role"] for m in provider.discarded] == ["user", "assistant"] * 2
    assert "the user prefers tea" in runtime.history[0]["content"]


def test_compaction_happens_on_its_own_when_history_outgrows_the_budget(tmp_path: Path):
    provider = Recording()
    runtime = ChatRuntime(provider, Model(), SessionStore(tmp_path), compact_tokens=30, keep_recent=2)
    runtime.start()
    results = [runtime.turn("tell me something long enough to need compaction") for _ in range(3)]
    assert any(r.compacted for r in results)
    assert provider.calls.index("extract_before_discard") > provider.calls.index("write")
    assert len(runtime.history) <= 3


def test_unavailable_provider_runs_without_memory(tmp_path: Path):
    class Off(Recording):
        def is_available(self) -> bool:
            self.calls.append("is_available")
            return False

    provider, model = Off(), Model()
    runtime = ChatRuntime(provider, model, SessionStore(tmp_path))
    runtime.start()
    runtime.turn("hi")
    runtime.end()
    assert provider.calls == ["name", "is_available"]
    assert "<memory-context>" not in model.prompts[0][0]["content"]


def test_resumed_trilogy_session_is_not_reinjected(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    store = SessionStore(tmp_path / "state")
    first = ChatRuntime(TrilogyProvider(tmp_path / "state", project_dir=project), Model(), store)
    sid = first.start()
    assert "[trilogy] 本次注入" in first.system
    first.turn("hi")
    first.end()
    # a host that keeps the injected block in the conversation gets no second copy
    store.append(sid, "user", first.system)
    resumed = ChatRuntime(TrilogyProvider(tmp_path / "state", project_dir=project), Model(), store, session_id=sid)
    resumed.start()
    assert "[trilogy]" not in resumed.system
