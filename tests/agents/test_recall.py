"""The recall hook's selection: blocks and evidence records ranked together, one candidate
per block and its records, a token budget, plain text with dates and speakers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scriptorium.core.memory.sources import MARKER, SourceRecord, anchor_for

from .conftest import call, last, payload, set_config

A = "claude-code"
ARCHIVE = "sources/openprogram/_v2/chat.md"
RECORDS = [  # (source id, date, speaker, text)
    ("openprogram/chat/t1", "2023-05-08T14:00:00+00:00", "Caroline", "I adopted a puppy named Rex from the shelter."),
    ("openprogram/chat/t2", "2023-05-08T14:01:00+00:00", "Melanie", "Congrats! I went hiking in the Alps last week."),
    ("openprogram/chat/t3", "2023-06-12T09:30:00+00:00", "Caroline", "My sister moved to Lisbon for a new job."),
]


def conversation_state(tmp_path: Path) -> Path:
    """Records of a chat in the archive; one block cites the first (the others no block cites yet)."""
    state = tmp_path / "state"
    memory = state / "memory"
    (memory / ARCHIVE).parent.mkdir(parents=True)
    frames = [SourceRecord(source_id=sid, timestamp=ts, content=text, speaker_display=who).render()
              for sid, ts, who, text in RECORDS]
    (memory / ARCHIVE).write_text(MARKER + "\n\n" + "\n".join(frames), encoding="utf-8")
    (memory / "topics").mkdir()
    (memory / "topics" / "pets.md").write_text(
        "# Pets\n\nCaroline has a puppy called Rex, adopted from the shelter.[^e-1] ^abcd1234\n\n"
        f"[^e-1]: Time: `2023-05-08`; Sources: [adopted](../{ARCHIVE}#{anchor_for(RECORDS[0][0])})\n",
        encoding="utf-8")
    return state


def recalled(state: Path, prompt: str, session: str) -> str:
    out = call(state, A, "user-prompt-submit", payload(A, "user-prompt-submit", session_id=session, prompt=prompt))
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def test_records_come_with_their_date_and_speaker_and_a_block_stands_for_its_own(tmp_path: Path):
    state = conversation_state(tmp_path)
    text = recalled(state, "Where did Caroline's sister move, and what is the puppy called?", "s1")
    assert "- 2023-06-12, Caroline: My sister moved to Lisbon for a new job." in text  # no block cites it yet
    assert "Caroline has a puppy called Rex" in text
    assert "I adopted a puppy named Rex" not in text  # its block is in: one candidate, not two
    kinds = [(h["kind"], h["block_id"]) for h in last(state).detail["hits"]]
    assert ("block", "abcd1234") in kinds and ("source", "openprogram/chat/t3") in kinds
    assert ("source", "openprogram/chat/t1") not in kinds


def test_the_injected_text_carries_no_ids_footnotes_or_paths_in_its_body(tmp_path: Path):
    state = conversation_state(tmp_path)
    text = recalled(state, "What is the puppy called?", "s1")
    lines = text.splitlines()
    body = [line for line in lines if line.startswith("- ")]
    assert body and not any(re.search(r"\[\^|\^[0-9a-f]{8}|sources/|topics/|#source-", line) for line in body)
    assert [line for line in lines if "abcd1234" in line] == ["(memory_get abcd1234)"]  # one reference line


def test_the_budget_is_counted_in_tokens_and_logged(tmp_path: Path):
    from scriptorium.core.tokens import count_tokens

    state = conversation_state(tmp_path)
    prompt = "Where did Caroline's sister move, and what is the puppy called? Hiking in the Alps?"
    full = recalled(state, prompt, "a")
    logged = last(state).detail
    assert logged["recall_tokens"] == count_tokens(full) and len(logged["hits"]) >= 2
    set_config(state, f"[recall]\nbudget_tokens = {count_tokens(full) - 1}\n")
    cut = recalled(state, prompt, "b")
    assert 0 < last(state).detail["recall_tokens"] == count_tokens(cut) <= count_tokens(full) - 1
    assert len(last(state).detail["hits"]) < len(logged["hits"])


def test_records_given_earlier_in_the_session_are_skipped(tmp_path: Path):
    state = conversation_state(tmp_path)
    assert "Lisbon" in recalled(state, "Where did the sister move?", "s1")
    assert "Lisbon" not in recalled(state, "Where did the sister move?", "s1")
    assert "Lisbon" in recalled(state, "Where did the sister move?", "s2")


def test_a_sessions_turns_are_shown_with_the_names_of_who_spoke(tmp_path: Path):
    """The archive labels a session's turns "Owner" and "agent/main": the injected record names
    the person, from the session's speakers or from an imported turn's "Name: "."""
    from scriptorium.core.memory.sources import archive_path, session_record
    from scriptorium.core.sessions.store import SessionStore

    state = tmp_path / "state"
    store = SessionStore(state)
    sid = store.create_session("chat", session_id="s01", speakers={"user": "Caroline", "assistant": "Melanie"})
    turns = [session_record(sid, "n1", "user", "I adopted a puppy named Rex.", 1683554160.0),
             session_record(sid, "n2", "assistant", "Rex is a lovely name for a beagle.", 1683554161.0),
             session_record("cc-imported", "n1", "user", "Jon: I opened a dance studio downtown.", 1683554162.0)]
    for thread in (turns[:2], turns[2:]):
        archive = state / "memory" / archive_path(thread[0].source_id)
        archive.parent.mkdir(parents=True, exist_ok=True)
        archive.write_text(MARKER + "\n\n" + "\n".join(t.render() for t in thread), encoding="utf-8")
    (state / "memory" / "topics").mkdir()
    text = recalled(state, "puppy Rex beagle dance studio", "s1")
    assert "- 2023-05-08, Caroline: I adopted a puppy named Rex." in text
    assert "- 2023-05-08, Melanie: Rex is a lovely name for a beagle." in text
    assert "- 2023-05-08, Jon: I opened a dance studio downtown." in text
    assert "Owner" not in text and "agent/main" not in text


def test_the_writer_archives_a_sessions_turns_under_its_speakers_names(tmp_path: Path):
    """Evidence records name who spoke (the session's speakers), not "Owner" / "agent/main":
    the archive itself, so search, `memory_get` and recall all read the name."""
    from scriptorium.core.memory.sources import scan_archive
    from scriptorium.core.sessions.store import SessionStore
    from scriptorium.core.writer import finish

    state = tmp_path / "state"
    store = SessionStore(state)
    sid = store.create_session("chat", speakers={"user": "Caroline", "assistant": "Melanie"})
    for role, text in (("user", "I adopted a puppy named Rex from the shelter last week."),
                       ("assistant", "Congrats! I went hiking in the Alps with my kids.")):
        store.append(sid, role, text)
    assert finish(store, sid).outcome == "ok"
    memory = state / "memory"
    labels = [re.match(r"\[[^\]]*\] ([^:]*):", frame.lines[0]).group(1)  # type: ignore[union-attr]
              for path in (memory / "sources").rglob("*.md")
              for frame in scan_archive(path.read_bytes(), path.relative_to(memory).as_posix()).frames]
    assert sorted(label.split(" (")[0] for label in labels) == ["Caroline", "Melanie"]
    text = recalled(state, "Where did Melanie go hiking?", "s1")
    assert "Melanie: Congrats! I went hiking in the Alps" in text or "Melanie went hiking" in text


LONG_BLOCK = " ".join([
    "Caroline went to a support group on 7 May 2023 and it was powerful.",
    "Melanie painted a lake sunrise last year and loves how it turned out.",
    "Caroline's sister moved to Lisbon for a new job at a design studio.",
    "Melanie is off to go swimming with the kids at the lake this weekend.",
    "Caroline is keen on counseling or working in mental health one day.",
    "Melanie's kids loved the beach trip and want to go back in the summer.",
    "Caroline has been reading a novel about a lighthouse keeper in Norway.",
    "Melanie signed up for a pottery class that meets every Thursday night.",
    "Caroline and Melanie plan to run a charity race together in the autumn.",
    "Melanie's husband bought a new canoe for the family camping trips.",
])


def long_block_state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    (state / "memory" / "topics").mkdir(parents=True)
    (state / "memory" / "topics" / "friends.md").write_text(f"# Friends\n\n{LONG_BLOCK} ^feed1234\n", encoding="utf-8")
    return state


def test_a_long_block_is_cut_to_the_sentences_the_prompt_is_about(tmp_path: Path):
    from scriptorium.core.tokens import count_tokens

    state = long_block_state(tmp_path)
    text = recalled(state, "Where did Caroline's sister move for her job?", "s1")
    body = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(body) == 1 and "Caroline's sister moved to Lisbon for a new job at a design studio." in body[0]
    assert "pottery" not in body[0] and " … " in body[0] and len(body[0]) <= 600 + 4
    assert "(memory_get feed1234)" in text  # the whole block is one call away
    assert last(state).detail["recall_tokens"] == count_tokens(text)
    set_config(state, "[recall]\nitem_chars = 0\n")  # whole items
    whole = recalled(state, "Where did Caroline's sister move for her job?", "s2")
    assert LONG_BLOCK in whole and last(state).detail["recall_tokens"] == count_tokens(whole)


CUT_PROBE = """
import json, sys
from pathlib import Path
from scriptorium.core.agents.recall import recall_for_prompt
found = recall_for_prompt(Path(sys.argv[1]), sys.argv[2])
print(json.dumps({"text": found.text, "tokens": found.tokens, "tokenizer": "tiktoken" in sys.modules}))
"""


def test_a_cut_item_is_counted_exactly_without_loading_the_tokenizer(tmp_path: Path):
    """The write job counts every sentence of every candidate ahead (recall_tokens): the
    budget of a cut item is the sum of its pieces' counts, what the tokenizer counts."""
    import subprocess
    import sys

    from scriptorium.core.agents.recall_tokens import count_ahead
    from scriptorium.core.tokens import count_tokens

    state = long_block_state(tmp_path)
    count_ahead(state)
    for prompt in ("Where did Caroline's sister move?", "pottery class and the canoe for camping",
                   "Melanie's kids at the beach and the lake"):
        done = subprocess.run([sys.executable, "-c", CUT_PROBE, str(state), prompt], capture_output=True,
                              text=True, timeout=120, check=True)
        found = json.loads(done.stdout.strip().splitlines()[-1])
        assert "…" in found["text"] and not found["tokenizer"]
        assert found["tokens"] == count_tokens(found["text"])


def test_a_cut_item_keeps_the_sentence_after_the_one_that_matched(tmp_path: Path):
    """What was said next often holds the answer (a question, then its reply): room left
    after the matching sentences goes to the sentence after each."""
    text = recalled(long_block_state(tmp_path), "Which studio in Lisbon?", "s1")
    body = next(line for line in text.splitlines() if line.startswith("- "))
    assert body == ("- … Caroline's sister moved to Lisbon for a new job at a design studio. "
                    "Melanie is off to go swimming with the kids at the lake this weekend. …")
