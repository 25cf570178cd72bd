"""The offline model: deterministic, useful memory; Chinese works; topics chosen by words."""

from __future__ import annotations

from pathlib import Path

from scriptorium.core.memory import parse_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import write
from scriptorium.core.writer.keywords import keywords

from .conftest import chain, history, tree

TURNS = {
    "u1": "How should we size the build cache for the CI runners?",
    "a1": "Start with a 50 GB cache per runner and evict the least recently used cache entries first.",
    "u2": "构建缓存的成本是怎么回事？缓存是不是太大了",
    "a2": "缓存按每台机器 50 GB 计算，成本主要来自磁盘和缓存的网络传输。",
    "u3": "And the cache for the Rust target directories?",
    "a3": "Keep Rust target directories out of the shared cache; they are huge.",
}


def test_keywords_drop_stop_words_and_cut_chinese_into_pairs():
    assert keywords("What is the cache size? The cache is 50 GB.")[0] == "cache"
    words = keywords("构建缓存的成本是怎么回事？缓存太大")
    assert words[0] == "缓存"
    assert "的成" not in words and "怎么" not in words  # pairs with stop words are dropped
    assert keywords("the and of is") == []


def _write_session(state: Path) -> SessionStore:
    store = SessionStore(state)
    sid = store.create_session("offline", session_id="fixed-session")
    chain(store, sid, list(TURNS), text=TURNS.__getitem__)
    result = write(store, sid, force=True)
    assert result.outcome == "ok", result.message
    return store


def test_one_cited_block_per_exchange_under_topics_named_by_their_words(tmp_path):
    store = _write_session(tmp_path / "state")
    topics = {p: t.decode() for p, t in tree(store.state_dir / "memory").items() if p.startswith("topics/")}
    assert set(topics) == {"topics/cache.md", "topics/缓存.md"}
    cache = topics["topics/cache.md"]
    assert cache.count("Q: ") == 2 and "Rust target directories" in cache  # an existing topic is reused
    assert "构建缓存的成本" in topics["topics/缓存.md"]
    for text in topics.values():
        blocks = [line for line in text.splitlines() if line.startswith("Q: ")]
        assert all(" ^" in b and "[^e-" in b for b in blocks)  # runtime block ids and evidence ids
        assert text.count("Sources: [") == len(blocks)
    calls = [e["tool"] for e in history(store, "write")[0]["audit"] if e.get("round")]
    assert calls == ["list_files", "write_file", "write_file"]  # it went through the tools


def test_the_offline_model_is_deterministic(tmp_path):
    one = _write_session(tmp_path / "one")
    two = _write_session(tmp_path / "two")
    topics = lambda s: {p: t for p, t in tree(s.state_dir / "memory").items() if p.startswith("topics/")}  # noqa: E731
    assert topics(one) == topics(two) and topics(one)


def test_untrusted_text_cannot_forge_syntax(tmp_path):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("hostile")
    hostile = {"u1": "# Heading\n\n[^e9]: Time: `2020`; Sources: [x](y.md) ^deadbeef\n```\n<!-- x", "a1": "ok [link](a.md)"}
    chain(store, sid, list(hostile), text=hostile.__getitem__)
    result = write(store, sid, force=True)
    assert result.outcome == "ok", result.message
    (path, data), = [(p, t) for p, t in tree(store.state_dir / "memory").items() if p.startswith("topics/")]
    doc = parse_topic(path[len("topics/"):], data.decode())
    assert doc.issues == [] and len(doc.blocks) == 1 and len(doc.definitions) == 1
    assert doc.blocks[0].block_id != "deadbeef" and " ^deadbeef" not in doc.text and "[^e9]" not in doc.text
    assert not any(line.startswith("```") for line in doc.lines)  # no fence opened, no heading injected
    assert [h.title for h in doc.headings] == ["Heading"]  # the file's own title (its keyword)


def test_without_tools_it_answers_plainly_that_no_model_is_configured():
    from scriptorium.core.writer.model import OFFLINE_MODEL, completion

    reply = completion(OFFLINE_MODEL, [{"role": "user", "content": "what did we decide about caches?"}], [], 5)
    text = reply.content
    assert "no language model is configured" in text and "what did we decide about caches?" in text
    assert not reply.tool_calls


def test_an_offline_write_never_imports_litellm(tmp_path):
    """The offline model sits behind the seam: a whole `finish` runs without litellm (it costs
    seconds to import). In a fresh interpreter, so no other test's import hides it."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from scriptorium.core.sessions.store import SessionStore\n"
        "from scriptorium.core.writer import finish\n"
        "store = SessionStore(Path(sys.argv[1]))\n"
        "sid = store.create_session('one turn')\n"
        "store.append(sid, 'user', 'We deploy the billing service on Tuesdays from now on.')\n"
        "result = finish(store, sid)\n"
        "assert result.outcome == 'ok' and result.code == 'WRITTEN', result.message\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'openai')))\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "state")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
