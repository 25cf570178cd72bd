"""The first transaction in a process needs no tokenizer when the core did not change: the
counts of the last install's render are kept by content (issue 20, item 3)."""

from __future__ import annotations

import json
import subprocess
import sys

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.tokens import count_tokens

from .support import Seeded

COUNTS = ".scriptorium/token-counts.json"

HAND_EDIT = """
import json, sys
from scriptorium.core.memory import Workspace, save_topic
ws = Workspace.open(sys.argv[1])
text = ws.read_topic(sys.argv[2]).replace(sys.argv[3], sys.argv[4], 1)
result = save_topic(ws, sys.argv[2], text)
print(json.dumps({"outcome": result.outcome, "tiktoken": "tiktoken" in sys.modules}))
"""


def hand_edit(ws: Workspace, topic: str, old: str, new: str) -> dict:
    out = subprocess.run([sys.executable, "-c", HAND_EDIT, str(ws.state_dir), topic, old, new],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def status_is_exact(ws: Workspace) -> None:
    """The recorded status says what a fresh count of the files says."""
    status = ws.core_status()
    rendered = (ws.root / "core.md").read_text(encoding="utf-8")
    assert status.rendered_tokens == count_tokens(rendered)
    assert status.canonical_tokens == count_tokens(ws.read_topic("core.md") or "")
    assert status.effective_tokens == count_tokens(ws.core_injection())


def test_a_fresh_process_edits_a_topic_without_the_tokenizer(seeded: Seeded) -> None:
    ws = seeded.ws
    assert (ws.root / COUNTS).is_file()  # the seeding installs rendered the core and kept its counts
    core_before = (ws.root / "core.md").read_bytes()
    done = hand_edit(ws, "people/ada.md", "green tea", "mint tea")
    assert done == {"outcome": "installed", "tiktoken": False}
    assert (ws.root / "core.md").read_bytes() == core_before
    status_is_exact(ws)


def test_a_changed_core_block_is_recounted(seeded: Seeded) -> None:
    ws = seeded.ws
    longer = "The user is Ada, who reviews every deploy window and keeps the shared runner's cache tidy."
    done = hand_edit(ws, "core.md", "The user is Ada.", longer)
    assert done == {"outcome": "installed", "tiktoken": True}  # a new block: counted by the tokenizer
    assert longer in (ws.root / "core.md").read_text(encoding="utf-8")
    status_is_exact(ws)
    assert hand_edit(ws, "people/ada.md", "green tea", "mint tea")["tiktoken"] is False  # and kept


def test_a_budget_too_small_for_a_grown_block_drops_it_with_exact_counts(seeded: Seeded) -> None:
    ws = seeded.ws
    from scriptorium.core.config import set_config_value

    rendered = (ws.root / "core.md").read_text(encoding="utf-8")
    set_config_value(ws.state_dir, "core.budget", count_tokens(rendered) + 3)
    grown = "The user is Ada, " + "who keeps the cache tidy, " * 20 + "and so on."
    result = save_topic(ws, "core.md", ws.read_topic("core.md").replace("The user is Ada.", grown, 1))
    assert result.outcome == "installed"
    assert grown not in (ws.root / "core.md").read_text(encoding="utf-8") and result.core.omitted
    status = ws.core_status()
    assert status.rendered_tokens == count_tokens((ws.root / "core.md").read_text(encoding="utf-8")) <= status.budget


def test_a_corrupt_or_missing_count_cache_is_rebuilt(seeded: Seeded) -> None:
    ws = seeded.ws
    cache = ws.root / COUNTS
    good = json.loads(cache.read_bytes())
    for damage in (b"{not json", b'{"version": 1, "encoding": "o200k_base", "counts": {"x": "many"}}', None):
        if damage is None:
            cache.unlink()
        else:
            cache.write_bytes(damage)
        text = ws.read_topic("people/ada.md")
        swapped = text.replace("green tea", "mint tea") if "green tea" in text else text.replace("mint tea", "green tea")
        assert save_topic(ws, "people/ada.md", swapped).outcome == "installed"
        assert json.loads(cache.read_bytes()) == good  # recounted, the same exact counts
        status_is_exact(ws)
