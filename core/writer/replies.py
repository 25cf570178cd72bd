"""The user's reply to what the agent just said belongs with what it answers.

In a working session notes gather under the word most of the batch's notes share (distil.group),
and a reply that opens "No, …" or "Yes, …" is about the agent's turn before it — a proposal it
turns down or takes — whatever words it shares with other notes. pi's agent proposed how unsent
bash results are shown ("Better UX would be: … On `agent_end`, move it to the chat …", "Or we
could make it simpler - don't show bash output in chat until `agent_end`."), and the user
answered "no, we want to put it in pendingMessageContainer, and on next user submit, we move to
chat and add to context": gathered by "move", the decision sat in a block about the files'
reorganisation ("Moved files to organized structure: …", "The user asked to move …config.ts to
src/."), where a search for where the results are shown did not find it, and that block's hit
carried a note about something else. Only a user's note that opens with the reply, within two
turns of the agent's note it follows; between people (LoCoMo's threads) blocks are consecutive
notes already.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

REPLY_TURNS = 2  # the agent's note the reply answers is at most this many turns before it
_REPLY = re.compile(r"^(?:no|nope|yes|yeah|yep|right|exactly|correct)\b\s*[,.!—-]", re.I)


class _Turn(Protocol):
    role: str
    index: int


class _Note(Protocol):
    text: str
    core: bool

    @property
    def turn(self) -> _Turn: ...


class _Block(Protocol):
    @property
    def notes(self) -> Sequence[_Note]: ...


B = TypeVar("B", bound=_Block)


def answered(note: _Note, blocks: Sequence[B]) -> B | None:
    """The block holding the agent's note that the user's reply `note` answers, or None."""
    if note.turn.role != "user" or note.core or not _REPLY.match(note.text):
        return None
    for block in reversed(blocks):
        last = block.notes[-1]
        if last.turn.role == "assistant" and 0 < note.turn.index - last.turn.index <= REPLY_TURNS:
            return block
    return None
