"""The offline model: deterministic, useful memory; Chinese works; topics chosen by words."""

from __future__ import annotations

import re
from pathlib import Path

from scriptorium.core.memory import parse_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep, write
from scriptorium.core.writer.keywords import content_words

from .conftest import chain, history, tree

TURNS = {
    "u1": "How should we size the build cache for the CI runners?",
    "a1": "Start with a 50 GB cache per runner and evict the least recently used cache entries first.",
    "u2": "构建缓存的成本是怎么回事？缓存是不是太大了",
    "a2": "缓存按每台机器 50 GB 计算，成本主要来自磁盘和缓存的网络传输。",
    "u3": "And the cache for the Rust target directories?",
    "a3": "Keep Rust target directories out of the shared cache; they are huge.",
}
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
# A real Claude Code session (marot/spotter, MIT; see SOURCES.md there): OpenTelemetry wiring
SPOTTER = FIXTURES / "claude-code__marot_spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.first400KB.jsonl"


def test_content_words_drop_stop_words_and_filler_and_cut_chinese_into_pairs():
    assert content_words("Wow, thanks! What is the cache size? The cache is 50 GB.") == ["cache", "size", "cache", "50"]
    words = content_words("构建缓存的成本是怎么回事？缓存太大")
    assert "缓存" in words and "的成" not in words  # pairs with stop words are dropped
    assert content_words("the and of is ok thanks wow") == []
    assert content_words("the core/writer/model.py and Spotter.Telemetry.Otel") == [
        "core/writer/model.py", "spotter.telemetry.otel"]  # identifiers stay whole


def _write_session(state: Path) -> SessionStore:
    store = SessionStore(state)
    sid = store.create_session("offline", session_id="fixed-session")
    chain(store, sid, list(TURNS), text=TURNS.__getitem__)
    result = write(store, sid, force=True)
    assert result.outcome == "ok", result.message
    return store


def _topics(store: SessionStore) -> dict[str, str]:
    return {p: t.decode() for p, t in tree(store.state_dir / "memory").items() if p.startswith("topics/")}


def test_notes_are_distilled_cited_and_filed_by_subject(tmp_path):
    store = _write_session(tmp_path / "state")
    topics = _topics(store)
    text = "\n".join(topics.values())
    assert "50 GB cache per runner" in text and "Rust target directories out of the shared cache" in text
    assert "缓存按每台机器 50 GB 计算" in text
    assert "How should we size" not in text  # a question that tells nothing is no note
    assert all("cache" in p or "缓存" in p or "runner" in p for p in topics), list(topics)
    for path, body in topics.items():
        doc = parse_topic(path[len("topics/"):], body)
        assert doc.issues == [] and doc.blocks
        assert all(b.block_id and b.citations for b in doc.blocks)  # runtime block ids, every block cited
    calls = [e["tool"] for e in history(store, "write")[0]["audit"] if e.get("round")]
    assert calls[0] == "list_files" and "write_file" in calls  # it went through the tools


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
    files = [(p, t) for p, t in tree(store.state_dir / "memory").items() if p.startswith("topics/")]
    assert files
    for path, data in files:
        doc = parse_topic(path[len("topics/"):], data.decode())
        assert doc.issues == [] and len(doc.blocks) == 1 and len(doc.definitions) == 1
        assert doc.blocks[0].block_id != "deadbeef" and " ^deadbeef" not in doc.text and "[^e9]" not in doc.text
        assert not any(line.startswith("```") for line in doc.lines)  # no fence opened, no heading injected
        assert len(doc.headings) == 1  # the file's own title only


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


def _import(state: Path, path: Path) -> tuple[SessionStore, str]:
    from scriptorium.core.importers.run import import_sources

    store = SessionStore(state)
    import_sources(store, "claude-code", [path])
    (summary,), _ = store.list_sessions()
    return store, summary.id


def test_a_real_coding_session_becomes_notes_about_its_project(tmp_path):
    from scriptorium.core.writer.stopwords import STOPWORDS_EN_PLUS
    from scriptorium.core.sessions.marker import pending
    from scriptorium.core.sessions.records import records_for

    store, sid = _import(tmp_path / "state", SPOTTER)
    said = records_for(store, sid, [t.id for t in pending(store, sid)])
    result = finish(store, sid)
    assert result.outcome == "ok", result.message
    topics = _topics(store)
    first_words = {m.group(0).casefold() for r in said if (m := re.match(r"\w+", r.text))}
    for path in topics:
        stem = Path(path).stem
        assert stem not in STOPWORDS_EN_PLUS and stem not in first_words, path
    assert all(p == "topics/spotter.md" or p.startswith("topics/spotter/") for p in topics), list(topics)
    blocks = [b.content for p, t in topics.items() for b in parse_topic(p[len("topics/"):], t).blocks]
    # "Good! I can see `set_text_map_propagator/1` takes a single propagator. Let me check ..."
    assert any("`set_text_map_propagator/1` takes a single propagator" in b for b in blocks), blocks
    text = "\n".join(blocks)
    for narration in ("Let me", "let me", "Let's", "decided to", "I'll", "Claude will", "Perfect", "compiles",
                      "Spotter.Telemetry.Otel module"):  # "Good! Now let me create the Spotter.Telemetry.Otel module:"
        assert narration not in text  # the agent announcing or reporting a step is no note


def test_chatter_produces_no_block(tmp_path):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("chat")
    turns = {"u1": "ok", "a1": "Thanks!", "u2": "wow", "a2": "Sure, happy to help!",
             "u3": "We deploy the billing service on Tuesdays after the 14:00 freeze.", "a3": "Noted, thanks!",
             "u4": "ok thanks", "a4": "You're welcome!"}
    chain(store, sid, list(turns), text=turns.__getitem__)
    assert finish(store, sid).outcome == "ok"
    topics = _topics(store)
    blocks = [b for p, t in topics.items() for b in parse_topic(p[len("topics/"):], t).blocks]
    assert len(blocks) == 1 and "billing service on Tuesdays" in blocks[0].content
    cited = {s.target.rsplit("#", 1)[0] for t in topics.values() for d in parse_topic("x.md", t).definitions.values()
             for s in d.sources}
    assert len(cited) == 1  # only the statement's own record


def test_speakers_are_named_and_identity_goes_to_the_core(tmp_path):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("friends", speakers={"user": "Caroline", "assistant": "Melanie"})
    turns = {"u1": "Hey Mel! I went to a LGBTQ support group yesterday and it was so powerful.",
             "a1": "Wow, that's cool, Caroline! What happened?",
             "u2": "I'm a transgender woman and the stories there gave me courage.",
             "a2": "That's awesome! I painted a sunrise over the lake last weekend."}
    chain(store, sid, list(turns), text=turns.__getitem__)
    assert finish(store, sid).outcome == "ok"
    topics = _topics(store)
    assert "Caroline is a transgender woman" in topics["topics/core.md"]
    people = "\n".join(t for p, t in topics.items() if p.startswith("topics/people/"))
    assert "Caroline went to a LGBTQ support group on 13 November 2023" in people  # "yesterday", said on the 14th
    # a block about events says when, once: the note's own date, not the session's beside it
    assert "On 14 November 2023, Caroline went" not in people
    assert "Melanie painted a sunrise over the lake" in people
    assert "Hey Mel" not in people and "What happened" not in people and "Wow" not in people


def test_sleep_merges_near_duplicates_across_sessions(tmp_path):
    store = SessionStore(tmp_path / "state")
    for n, text in enumerate(("The nightly backups of the billing database go to the Glacier vault in eu-west-1.",
                              "Nightly backups of the billing database go to the Glacier vault in eu-west-1!")):
        sid = store.create_session(f"s{n}")
        chain(store, sid, ["u1"], text=lambda _: text)
        assert finish(store, sid).outcome == "ok"
    before = [b for p, t in _topics(store).items() for b in parse_topic(p[len("topics/"):], t).blocks]
    assert len(before) == 2
    result = sleep(store.state_dir)
    assert result.code == "REORGANIZED", result.message
    after = [(p, b) for p, t in _topics(store).items() for b in parse_topic(p[len("topics/"):], t).blocks]
    assert len(after) == 1 and after[0][1].block_id == before[0].block_id
    assert len({c.id for c in after[0][1].citations}) == 2  # the survivor cites both sessions


def test_a_batch_of_only_chatter_is_handled_without_a_topic_change(tmp_path):
    """The writer says 'Nothing to keep.': the turns are marked, no topic is written; a model
    that silently edits nothing still gets WRITER_NO_PROGRESS (tests/writer/test_write.py)."""
    from .conftest import marked

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("chatter")
    chain(store, sid, ["u1", "a1", "u2"], text={"u1": "ok thanks!", "a1": "You're welcome!", "u2": "wow"}.__getitem__)
    result = finish(store, sid)
    assert (result.outcome, result.code) == ("ok", "WRITTEN") and result.batches[0].changed_files == []
    assert marked(store, sid) == ["u1", "a1", "u2"]
    assert not _topics(store)
