"""Readers racing a live writer (issue 19, item 5): another process installs transactions
that flip four topics between OLD and NEW, one after another; a reader going through
`read_consistent` never sees some topics flipped and others not. The same reads made
straight from the files are counted too (printed: how often the race shows at all)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from scriptorium.core.memory import Transaction, Workspace, read_consistent, session_record

TOPICS = ("alpha.md", "beta.md", "core.md", "zeta.md")
FLIPS = 40

WRITER = textwrap.dedent("""
    import sys
    from scriptorium.core.memory import Transaction, Workspace
    ws = Workspace.open(sys.argv[1])
    for _ in range({flips}):
        with Transaction(ws, "write", "flip", lock_timeout=30) as txn:
            for name in {topics!r}:
                text = txn.read_topic(name)
                txn.write_topic(name, text.replace("OLD", "TMP").replace("NEW", "OLD").replace("TMP", "NEW"))
            assert txn.commit().outcome == "installed"
""").format(flips=FLIPS, topics=TOPICS)


def flipped(state: Path) -> frozenset[bool]:
    """Which topics read NEW: {True} or {False} is one state, both is a mix."""
    return frozenset(b"NEW" in (state / "memory" / "topics" / name).read_bytes() for name in TOPICS)


def test_a_reader_never_sees_half_of_a_live_install(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Transaction(Workspace.open(state), "write", "seed") as txn:
        txn.archive([session_record("s1", "m0", "user", "the gauges", 1767312000.0)])
        for name in TOPICS:
            txn.write_topic(name, f"# {name}\n\nThe gauge reads OLD.[^e1]\n\n"
                            "[^e1]: Time: `2026-01-02`; Sources: [seen](openprogram/s1/m0)\n")
        assert txn.commit().outcome == "installed"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(state)], stderr=subprocess.PIPE, text=True)
    reads = raw_mixes = mixes = 0
    while writer.poll() is None:
        reads += 1
        raw_mixes += len(flipped(state)) > 1
        mixes += len(read_consistent(state, flipped)) > 1
    assert writer.returncode == 0, writer.stderr.read() if writer.stderr else ""
    print(json.dumps({"reads": reads, "mixed_unguarded": raw_mixes, "mixed_guarded": mixes}))
    assert reads > 0 and mixes == 0
