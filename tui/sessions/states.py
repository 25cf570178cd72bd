"""The plain names the Sessions screen, its widgets and its model share: node states, role
labels, short ids, the agents an import reads.

No engine here (only the sanitizer): widgets import these at start-up, while the model —
and with it the session engine — is imported by the first worker that reads the sessions,
after the app's first paint.
"""

from __future__ import annotations

from scriptorium.core.sanitize import sanitize_line

# Node states of the graph, each drawn with its own glyph and theme colour.
WRITTEN, PENDING, ELSEWHERE, REWOUND, UNRECORDED = "written", "pending", "elsewhere", "rewound", "unrecorded"
STATES = (WRITTEN, PENDING, ELSEWHERE, REWOUND, UNRECORDED)

ROLE_LABELS = {"user": "user", "assistant": "asst", "system": "sys", "tool": "tool",
               "summary": "summ", "runtime": "rt", "root": "root"}

IMPORT_KINDS = {"claude-code": "Claude Code", "pi": "pi", "codex": "Codex"}


def short_id(node_id: str) -> str:
    """Eight characters that tell ids apart, like git's short hashes (`summary_` prefixes dropped).
    Ids come from node files, so they are untrusted: the result is sanitized."""
    return sanitize_line(node_id.removeprefix("summary_"))[:8]
