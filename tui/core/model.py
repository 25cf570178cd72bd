"""What the Core screen shows: the canonical core, its render within the budget, what the
agents' hooks inject at session start, and the blocks left out — read through
`scriptorium.core.memory` and `scriptorium.core.agents.inject` (the hooks' own reader, so
the screen shows the very text an agent gets, fenced with the agents' wording).

No Textual here; loading runs in a worker thread. Reading never creates the workspace
(a viewer writes nothing but the completion of an install a crash interrupted:
`read_consistent`, never half of one); the only write is the inject setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scriptorium.core.config import set_config_value

if TYPE_CHECKING:
    from scriptorium.core.memory import CoreStatus

INJECT_KEY = "core.inject"
FIRST_WORDS = 12


@dataclass(frozen=True)
class LeftOut:
    block_id: str
    first_words: str  # untrusted: sanitize before display


@dataclass(frozen=True)
class CoreView:
    status: CoreStatus  # budget, token counts, inject, the blocks left out (by id)
    exists: bool  # is there a canonical core (topics/core.md) at all
    canonical: str
    rendered: str
    effective: str  # the session-start injection as the hooks send it ("" when off or empty)
    effective_tokens: int  # its tokens (the hooks' own count when they noted one for this text)
    left_out: list[LeftOut]  # status.omitted_blocks with their first words


def load_core(state_dir: Path) -> CoreView:
    # Imported here, in the worker: the app's first paint must not pay for the memory package.
    from scriptorium.core.memory import read_consistent

    return read_consistent(state_dir, _core_view)


def _core_view(state_dir: Path) -> CoreView:
    from scriptorium.core.memory import Workspace
    from scriptorium.core.memory.core_render import CORE_TOPIC

    workspace = Workspace(state_dir)
    status = workspace.core_status()
    canonical = workspace.read_topic(CORE_TOPIC)
    try:
        rendered = (workspace.root / CORE_TOPIC).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        rendered = ""
    effective, effective_tokens = _session_start(state_dir)
    doc = workspace.topic(CORE_TOPIC)
    words = {}
    if doc is not None:
        for block in doc.blocks:
            for block_id in block.ids:
                words[block_id] = " ".join(block.content.split()[:FIRST_WORDS])
    return CoreView(
        status=status,
        exists=canonical is not None,
        canonical=canonical or "",
        rendered=rendered,
        effective=effective,
        effective_tokens=effective_tokens,
        left_out=[LeftOut(block_id, words.get(block_id, "")) for block_id in status.omitted_blocks],
    )


def _session_start(state_dir: Path) -> tuple[str, int]:
    """The text an agent's session-start hook injects, and its tokens."""
    from scriptorium.core.agents.inject import known_tokens, session_start_injection

    text = session_start_injection(state_dir).text
    tokens = known_tokens(state_dir, text)
    if tokens is None:
        from scriptorium.core.tokens import count_tokens

        tokens = count_tokens(text)
    return text, tokens


def set_inject(state_dir: Path, inject: bool) -> None:
    """Turn the always-on injection on or off (config.toml `core.inject`)."""
    set_config_value(state_dir, INJECT_KEY, inject)
