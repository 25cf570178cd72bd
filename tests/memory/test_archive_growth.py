"""A grown archive is scanned from where the last scan ended, with the same result as a
scan from scratch — including when the appended part is malformed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scriptorium.core.memory import archive_path, scan_archive, session_record
from scriptorium.core.memory.sources import plan_append, scan_v2

texts = st.text(min_size=1, max_size=40).filter(lambda t: t.strip())


@settings(max_examples=30, deadline=None)
@given(first=st.lists(texts, min_size=1, max_size=5), second=st.lists(texts, min_size=1, max_size=5),
       garbage=st.sampled_from(["", "<a id=\"source-0\"></a>\n", "\nstray text\n"]), thread=st.uuids())
def test_resumed_scan_equals_fresh_scan(first, second, garbage, thread) -> None:
    sid = f"t{thread.hex[:8]}"
    recs = [session_record(sid, f"n{i}", "user" if i % 2 == 0 else "assistant", t, 1_700_000_000 + i)
            for i, t in enumerate(first + second)]
    rel = archive_path(recs[0].source_id)
    data, _ = plan_append(None, rel, recs[: len(first)])
    assert scan_archive(data, rel).complete
    grown, _ = plan_append(data, rel, recs[len(first):])
    grown += garbage.encode()
    resumed = scan_archive(grown, rel)
    fresh = scan_v2(grown.decode("utf-8"), rel)
    assert resumed == fresh
    assert resumed.complete == (garbage == "")
    if garbage == "":
        assert [f.source_id for f in resumed.frames] == [r.source_id for r in recs]
