"""Names and code are kept byte for byte as the transcript had them, whatever the writer
rewrites around them (issue 24: "paths kept verbatim"; verbatim.py), and an item cut from a
list whose label says what was done to it keeps that label. Found by a hand-read of the
coding set's blind split ("`just check`" written "` check`", "Registry.test.ts",
"Fe5d0ee", "[framework]" as "(framework)"; "DeltaWriter.ts (generic JSONL writer now)." of
a file a "Deleted:" list named); tested on sessions written here and on the tune, held-out
and fresh splits' transcripts (bench/data/coding/, sources and licences in its SOURCES.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer.filing import inline

from .conftest import imported_session, written_topics
from .test_offline_work_notes import CODING

PI_REFACTOR = CODING / "pi__badlogic_pi-mono__before-compaction.jsonl"
PI_THEMES = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER_DOV = CODING / "claude-code__marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SPOTTER_REGISTRY = CODING / "claude-code__marot_spotter__fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
GRAPH_MONITOR = CODING / "claude-code__kiliman_claude-transcript__test2.jsonl"


def _session(tmp_path: Path, turns: list[tuple[str, str]]) -> str:
    """A Claude Code session in a project (a working session) of these turns, written: its blocks' text."""
    project = tmp_path / "projects" / "-home-user-shop"
    project.mkdir(parents=True)
    records, parent = [], None
    for i, (role, text) in enumerate(turns):
        message = {"role": "user", "content": text} if role == "user" else {
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}]}
        records.append({"type": role, "uuid": f"t{i}", "parentUuid": parent, "sessionId": "s1", "cwd": "/home/user/shop",
                        "timestamp": f"2026-01-21T10:00:0{i}.000Z", "message": message})
        parent = f"t{i}"
    (project / "s1.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    store = SessionStore(tmp_path / "state")
    (sid,) = import_sources(store, "claude-code", [project]).to_json()["session_ids"]
    return "\n".join(b for bs in written_topics(store, sid).values() for b in bs)  # every topic parses without an issue


def test_code_spans_file_names_and_hashes_are_kept_as_said(tmp_path):
    text = _session(tmp_path, [
        ("user", "Port the math helpers to Rust and keep the Justfile working."),
        ("assistant", "The Justfile's `just check` recipe runs clippy and `just test` really runs the whole suite.\n\n"
                      "registry.test.ts covers the flag mapping and the unknown flags passthrough.\n\n"
                      "fe5d0ee moved the session logic from `providers/sso/` to `agents/core/session/`.\n\n"
                      "The `init [framework]` subcommand reads `items[0]` and `__init__.py` re-exports `**/*.rs` globs.\n\n"
                      "The docs say `[^e1]` is a footnote marker, and [this](https://example.com) is a link."),
        ("user", "I keep my notes in `~/my notes/todo.md` and my_config.toml holds the settings.")])
    assert "`just check`" in text and "`just test`" in text, text  # the filler word "just" is a name's word here
    assert "` check`" not in text and "really" not in text  # "really" outside the code still goes
    assert "registry.test.ts covers the flag mapping" in text and "Registry.test.ts" not in text
    assert "fe5d0ee moved the session logic" in text and "Fe5d0ee" not in text
    assert "`init [framework]`" in text and "`items[0]`" in text, text  # markdown reads a span's brackets as code
    assert "`__init__.py`" in text and "`**/*.rs`" in text  # no emphasis marks taken out of code
    assert "`[^e1]` is a footnote marker" in text  # code, no citation: the topic parsed without an issue
    assert "(this)(https://example.com)" in text  # outside code a link is still turned round: none is forged
    assert "`~/my notes/todo.md`" in text and "my_config.toml" in text  # "my" of a path is not the user's
    assert "The user keeps the user's notes in" in text  # ... and outside it, it is


def test_brackets_are_turned_round_where_markdown_would_read_them():
    """A span the writer cannot be sure markdown reads as one (an escaped backtick, a span the
    length limit cut open) keeps no bracket: no citation or link can be forged."""
    assert inline("a `b[0]` c", 100) == "a `b[0]` c"
    assert inline("a \\`[^e1]` c", 100) == "a \\`(ˆe1)` c"
    assert inline("a ``x`[^e1]`` c", 100).count("[") == 0
    cut = inline("x `" + "y" * 20 + " [^e1]` z", 26)
    assert "[^e1]" not in cut and cut.endswith("…"), cut
    assert inline("keep [REDACTED:password:0123abcd] `p[1]`", 100) == "keep [REDACTED:password:0123abcd] `p[1]`"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory) -> dict[str, str]:
    """Transcripts of the coding set's tune and fresh splits, each written alone: its blocks' text."""
    out = {}
    for name, kind, path in (("pi", "pi", PI_REFACTOR), ("pi-themes", "pi", PI_THEMES),
                             ("dov", "claude-code", SPOTTER_DOV), ("registry", "claude-code", SPOTTER_REGISTRY),
                             ("graph", "claude-code", GRAPH_MONITOR)):
        store, sid = imported_session(tmp_path_factory.mktemp(name), kind, path)
        out[name] = "\n".join(b for bs in written_topics(store, sid).values() for b in bs)
    return out


def test_real_names_and_code_are_kept_as_said(tuned):
    """pi: "The issue is that `__dirname` is now `utils/`, so `dirname(__dirname)` goes to `src/`"
    (was "`dirname` … `dirname(dirname)`": emphasis marks taken out), "`AppMessage[]`" (was
    "`AppMessage()`"), "interactive-mode.ts Cleanup:" (was "Interactive-mode.ts"); spotter's
    "the `__executor__` assign"; graph-monitor's "database.ts and executor.ts didn't have any
    local imports" (was "Database.ts"), "`__dirname` and `__filename` workarounds"."""
    assert "`dirname(__dirname)` goes to `src/`" in tuned["pi"], tuned["pi"]
    assert "`AppMessage[]`" in tuned["pi"] and "AppMessage()" not in tuned["pi"]
    assert "interactive-mode.ts Cleanup:" in tuned["pi"] and "Interactive-mode.ts" not in tuned["pi"]
    assert "`__executor__` assign" in tuned["dov"], tuned["dov"]
    assert "database.ts and executor.ts didn't have any local imports" in tuned["graph"], tuned["graph"]
    assert "`__dirname` and `__filename` workarounds" in tuned["graph"]
    assert not re.search(r"`\\x1b\(", tuned["pi-themes"])  # `\x1b[0m` is no `\x1b(0m`


def test_an_item_cut_from_a_list_keeps_what_its_label_says_of_it(tmp_path):
    """A "Deleted (cleanup):" label, a blank line, then its items (gathered only when the items
    open with bold titles): each item was a sentence of its own, "`DeltaWriter.ts` (generic JSONL
    writer now)." reading as what the file is now. A label that says nothing was done ("Key
    files:") is not repeated."""
    text = _session(tmp_path, [
        ("user", "Clean up the metrics code now that the processors exist."),
        ("assistant", "The session refactor is finished.\n\n**Deleted (cleanup):**\n\n"
                      "- `BaseMetricsAdapter.ts` (integrated into processors)\n"
                      "- `DeltaWriter.ts` (generic JSONL writer now)\n\n"
                      "**Key files:**\n\n- `jsonl-writer.ts` writes every record of a session as one line")])
    deleted = [s for s in re.split(r"(?<=\.)\s+", text) if "DeltaWriter.ts" in s]
    assert deleted and all(s.startswith("Deleted (cleanup):") for s in deleted), text
    assert "BaseMetricsAdapter.ts` (integrated into processors)" in text
    assert "Key files: `jsonl-writer.ts`" not in text and "`jsonl-writer.ts` writes every record" in text


def test_real_items_cut_from_their_list_keep_its_label(tuned):
    """spotter: "**New files:**" over items too long to gather (a file each, what it does):
    "New files: `spotter-plugin/scripts/notify-session-end.sh` — Silent-fail hook script …"
    (the item alone did not say the file is new); pi: "### Fixes Applied" over bold-titled
    items with their own lists."""
    assert "New files: `spotter-plugin/scripts/notify-session-end.sh` — Silent-fail hook script" in tuned["registry"]
    assert "Fixes Applied: Improved ANSI handling: Added `\\x1b[0m` reset before `...` ellipsis" in tuned["pi-themes"]
