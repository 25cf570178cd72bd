"""A later turn that changes a value stands; the earlier value is not kept as fact (issue
24, "When a later turn corrects or disproves an earlier statement, the later one stands"):
on pi's real session, where the thinking-level colours were remade twice, and a user
correcting the agent's setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer.pipeline import finish

from .conftest import chain, imported_session, topics_text, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
PI_LARGE = CODING / "pi__badlogic_pi-mono__large-session.jsonl"


@pytest.fixture(scope="module")
def pi_text(tmp_path_factory) -> str:
    store, sid = imported_session(tmp_path_factory.mktemp("pi"), "pi", PI_LARGE)
    return "\n".join(b for bs in written_topics(store, sid).values() for b in bs)


def test_colours_the_session_changed_later_keep_only_their_new_values(pi_text):
    """pi: "Thinking level colors are now more muted: `thinkingOff`: `#666666` (dimGray);
    `thinkingMinimal`: `#303030`; `thinkingLow`: `#5f87af`; …", then, asked for more
    contrast, "`thinkingOff`: `#303030` …; `thinkingMinimal`: `#4e4e4e`; `thinkingLow`:
    `#5f87af`; `thinkingMedium`: `#81a2be`". The old values go, the unchanged one and the
    label stay."""
    assert "`thinkingOff` is `#666666`" not in pi_text
    assert "`thinkingMinimal` is `#303030`" not in pi_text
    assert "`thinkingMedium` is `#5f8787`" not in pi_text
    assert "Thinking level colors are now more muted: `thinkingLow` is `#5f87af` (muted blue)" in pi_text
    assert "`thinkingOff`: `#303030` (darkGray - very dark, almost invisible)" in pi_text
    assert "`thinkingMedium` is `#81a2be` (brighter blue)" in pi_text
    # "The scale is: … `gray` is `#6c6c6c`", then "Changed `gray` … from `#6c6c6c` … to `#808080`"
    assert "`gray` is `#6c6c6c`" not in pi_text
    # said once: "`gray`: `#808080` (muted - now brighter)" repeats it
    assert "to `#808080` (RGB 128,128,128)" in pi_text


def test_a_later_statement_saying_the_opposite_stands(pi_text):
    """pi: "The `Text` component doesn't implement `invalidate()`!", then "Fixed `Text` component to
    implement `invalidate()` so theme changes work correctly": the later one stands."""
    assert "Fixed `Text` component to implement `invalidate()` so theme changes work correctly" in pi_text
    assert "The `Text` component doesn't implement `invalidate()`" not in pi_text


def test_a_statement_with_one_value_still_current_stays(pi_text):
    """"Changed `dimGray` from `#585858` to `#666666` and `mdLink` now uses `dimGray`": the
    link colour changed later (`mdLink`: `#81a2be`), `dimGray`'s value did not."""
    assert "Changed `dimGray` from `#585858` to `#666666`" in pi_text


def test_the_users_correction_of_a_setting_stands_and_the_agents_value_goes(tmp_path):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("work", source="claude-code", cwd="/home/u/shop")
    chain(store, sid, ["u1", "a1", "u2", "a2"], text={
        "u1": "Add a retry to the payment client when the gateway times out.",
        "a1": "Added the retry in `lib/payments/client.ex`: `max_retries` is `5` with a backoff of 200 ms.",
        "u2": "No, set `max_retries` to 2, the gateway rate-limits us.",
        "a2": "Changed it: the payment client in `lib/payments/client.ex` now retries twice."}.__getitem__)
    assert finish(store, sid).outcome == "ok"
    text = "\n".join(b for bs in topics_text(store).values() for b in bs)
    assert "`max_retries` is `5`" not in text, text
    assert "set `max_retries` to 2" in text, text


def test_the_same_name_in_two_files_of_one_turn_is_no_change(pi_text):
    """"Updated `dark.json`: … `thinkingLow` is blue (#0087ff)" and "Updated `light.json`: …
    `thinkingLow` is darkBlue (#0066cc)" are two themes, not a change."""
    assert "`thinkingLow` is blue (#0087ff)" in pi_text
    assert "`thinkingLow` is darkBlue (#0066cc)" in pi_text


def test_sleep_takes_out_a_value_a_later_batch_changed(tmp_path):
    """pi's session is written in two batches: "`thinkingMedium` is `cyan` which is `#00d7ff`"
    in the first, "`thinkingMedium` is `#81a2be` (brighter blue)" in the second, which cannot
    see the first. Sleep, reading the topic whole, retires the old block; every other block
    and id stays."""
    from scriptorium.core.writer import sleep

    store, sid = imported_session(tmp_path, "pi", PI_LARGE)
    before = written_topics(store, sid)
    old = [b for bs in before.values() for b in bs if b.startswith("`thinkingMedium` is `cyan` which is `#00d7ff`")]
    assert old, "the first batch's value"
    result = sleep(store.state_dir)
    assert result.outcome == "ok", result.message
    after = "\n".join(b for bs in topics_text(store).values() for b in bs)
    assert "`thinkingMedium` is `cyan` which is `#00d7ff`" not in after
    assert "`thinkingMedium` is `#81a2be` (brighter blue)" in after
    assert "`tui-renderer.ts` still uses `chalk` extensively throughout." in after
