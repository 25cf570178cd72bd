"""The plain names the Sessions screen, its widgets and its model share: node states, role
labels, short ids, the agents an import reads.

No engine here (only the sanitizer): widgets import these at start-up, while the model —
and with it the session engine — is imported by the first worker that reads the sessions,
after the app's first paint.
"""

from __future__ import annotations

import re

from scriptorium.core.sanitize import sanitize_line

# Node states of the graph, each drawn with its own glyph and theme colour.
WRITTEN, PENDING, ELSEWHERE, REWOUND, UNRECORDED = "written", "pending", "elsewhere", "rewound", "unrecorded"
STATES = (WRITTEN, PENDING, ELSEWHERE, REWOUND, UNRECORDED)

ROLE_LABELS = {"user": "user", "assistant": "asst", "system": "sys", "tool": "tool",
               "summary": "summ", "runtime": "rt", "root": "root"}

IMPORT_KINDS = {"claude-code": "Claude Code", "pi": "pi", "codex": "Codex"}


# Prefixes every id of a kind shares (ours, and the agents' tool call ids): dropped, or every
# imported tool row would read `tool-too`.
_SHARED_PREFIX = re.compile(r"^(?:summary_|tool-)?(?:toolu_|call_|fc_)?")


def short_id(node_id: str) -> str:
    """Eight characters that tell ids apart, like git's short hashes (shared prefixes dropped).
    Ids come from node files, so they are untrusted: the result is sanitized."""
    return sanitize_line(_SHARED_PREFIX.sub("", node_id, count=1) or node_id)[:8]
