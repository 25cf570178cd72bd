"""What the offline writer keeps is never wrong or broken (issue 24: "When a later turn corrects
or disproves an earlier statement, the later one stands and the earlier is not kept as fact";
"Every block is at least one whole sentence"), on the coding set's real transcripts: a
sentence cut where the turn stopped, a problem said as fixed when it was fixed (in the next
turn too) and not when what the turn fixed was something else, a thing the agent found
missing that the user says the project has."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep

from .test_offline_real import _imported, _topics, _written

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"
SPOTTER_SUBAGENT = CODING / "claude-code__marot_spotter__subagent.jsonl"


@pytest.fixture(scope="module")
def pi_text(tmp_path_factory) -> str:
    store, sid = _imported(tmp_path_factory.mktemp("pi"), "pi", PI_LARGE)
    return "\n".join(b for bs in _written(store, sid).values() for b in bs)


def _all_written(tmp_path: Path, kind: str, path: Path) -> str:
    """Every session of a transcript (a sub-agent's its own) written, then one sleep."""
    store = SessionStore(tmp_path / "state")
    for sid in import_sources(store, kind, [path]).to_json()["session_ids"]:
        assert finish(store, sid).outcome == "ok"
    sleep(store.state_dir)
    return "\n".join(b for bs in _topics(store).values() for b in bs)


def test_a_sentence_cut_where_the_turn_stopped_is_no_note(pi_text, tmp_path):
    """pi's summary was interrupted mid-list: "- Adjusted dark theme colors:" / "  - Gray levels:
    `#303030` (darkGray)," and the turn ends. That was written "Gray levels: `#303030`
    (darkGray),." — no whole sentence. The spotter sub-agent's plan quotes a code block inside
    a blockquote; its line `test: ["ash.setup --quiet", "test"],` was written 'Test: [...],.'."""
    assert ",." not in pi_text
    assert "Gray levels: `#303030` (darkGray)" not in pi_text
    # the sentence before it in the same summary stays
    assert "Changed `gray` (used for `muted`) from `#6c6c6c` (RGB 108,108,108) to `#808080`" in pi_text
    text = _all_written(tmp_path, "claude-code", SPOTTER_SUBAGENT)
    assert ",." not in text
    assert '"ash.setup --quiet"' not in text
    # the same plan's `defp deps` block, quoted: '{:credo, "~> 1.7", only: [:dev, :test], runtime: false}' was
    # written "Credo, "~> 1.7", only: (:dev, :test), runtime: false}."; the quote's prose stays
    assert "runtime: false" not in text
    assert "Runs in order: credo → dialyzer → deps.audit." in text
