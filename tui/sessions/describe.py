"""The detail pane's text: one turn in full, or one branch with the writer's next batch.

Returns Textual `Content` whose styles are theme variables; every string that
came from a session passes through `safe_text`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from textual.content import Content

from ..common.formatting import stamp, tokens
from ..common.glyphs import GLYPHS, HEAD, LABELS
from scriptorium.core.sanitize import sanitize_line

from ..common.safe_text import untrusted_content
from .states import ELSEWHERE, REWOUND, ROLE_LABELS, UNRECORDED, WRITTEN, short_id
from .turn_text import EXCERPT_CHARS, excerpt

if TYPE_CHECKING:
    from .model import Branch, Node, SessionGraph, TurnRow

# A turn's text in the pane is a bounded preview: a 1 MB turn (or a tool's 1 MB input) is
# cut, and `o` opens the whole (TurnViewer). Lines are bounded too: 20,000 characters of
# one-word lines would be thousands of rows to lay out.
PREVIEW_CHARS = 20_000
PREVIEW_LINES = 400
LISTED_TURNS = 200
META_VALUE_CHARS = 200
OPEN_KEY = "o"

STATE_NOTES = {
    WRITTEN: "written to memory by this workspace",
    REWOUND: "rewound — hidden from every branch, never written",
    UNRECORDED: "not recorded — tool calls, runtime turns and summaries never become memory",
}


def glyph(state: str) -> tuple[str, str]:
    return GLYPHS[state], f"$node-{state}"


def _line(*parts: str | Content | tuple[str, str]) -> Content:
    return Content.assemble(*parts)


def describe_turn(graph: SessionGraph, row: TurnRow, *, writes: str | None = None) -> Content:
    """A turn's header, links and bounded text; `writes` is the branch `w` would write from here."""
    entry = row.entry
    node = graph.node(entry.id)
    header = [glyph(HEAD if row.is_head else row.state), " ", (sanitize_line(entry.id), "bold"), "  ",
              (entry.kind, "$text-accent"), " · ", LABELS[row.state], " · ", stamp(entry.created_at)]
    if entry.is_record and entry.tokens >= 0:
        header += [" · ", f"{entry.tokens} tokens"]
    if row.is_head:
        header += [" · ", ("head", "$node-head bold")]
    lines = [_line(*header)]
    links = []
    if entry.predecessor:
        links += ["after ", (sanitize_line(entry.predecessor), "bold")]
    elif entry.caller and graph.entry(entry.caller) is not None:
        links += ["spawned by " if entry.spawn_root else "called by ", (sanitize_line(entry.caller), "bold")]
    children = graph.children(entry.id)
    if children:
        shown = ", ".join(sanitize_line(child) for child in children[:8])
        links += ["  ·  followed by ", (shown + (" …" if len(children) > 8 else ""), "bold")]
    if links:
        lines.append(_line(*links))
    if writes is not None:
        lines.append(_line(("w writes the branch ending at ", "$muted-text"), (sanitize_line(writes), "bold")))
    note = STATE_NOTES.get(row.state)
    if row.state == ELSEWHERE:
        lines.append(_line(("marked by ", "$muted-text"), sanitize_line(row.foreign_mark or ""),
                           (" — not counted here, still owed to this workspace", "$muted-text")))
    elif note:
        lines.append(Content.styled(note, "$muted-text"))
    lines.append(Content(""))
    if node is None:
        lines.append(Content.styled("The node file could not be read.", "$text-error"))
        return Content("\n").join(lines)
    cut = False
    if entry.kind == "tool" and node.name:
        lines.append(_line(("tool ", "$muted-text"), untrusted_content(node.name, "bold")))
        if node.input is not None:
            shown, cut = preview(_arguments(node.input))
            lines.append(untrusted_content(shown))
    body = node.text
    shown, body_cut = preview(body)
    cut = cut or body_cut
    lines.append(untrusted_content(shown) if body else Content.styled("(empty)", "$muted-text"))
    if cut:
        lines.append(Content.assemble(
            ("… cut here, a preview — press ", "$muted-text"),
            (OPEN_KEY, "bold $text-accent"), (f" to open the whole turn ({size(whole_turn(row, node))})", "$muted-text")))
    if node.metadata:
        lines += [Content(""), Content.styled("metadata", "bold $text-accent")]
        for key in sorted(node.metadata):
            value = _json(node.metadata[key])
            if len(value) > META_VALUE_CHARS:
                value = value[:META_VALUE_CHARS] + "…"
            lines.append(_line("  ", (sanitize_line(key), "$muted-text"), "  ", sanitize_line(value)))
    return Content("\n").join(lines)


def preview(text: str) -> tuple[str, bool]:
    """The start of `text` shown in the pane (at most PREVIEW_CHARS characters and PREVIEW_LINES
    lines), and whether that is not all of it."""
    shown = text[:PREVIEW_CHARS]
    end = -1
    for _ in range(PREVIEW_LINES):
        end = shown.find("\n", end + 1)
        if end < 0:
            break
    else:
        shown = shown[:end]
    return shown, len(shown) < len(text)


def whole_turn(row: TurnRow, node: Node) -> str:
    """Everything the detail pane previews of a turn, whole, for the viewer: a tool call's name
    and input, then the text. Untrusted: sanitized by the viewer."""
    parts = []
    if row.entry.kind == "tool" and node.name:
        parts.append(f"tool {node.name}")
        if node.input is not None:
            parts.append(_arguments(node.input))
    parts.append(node.text)
    return "\n\n".join(parts)


def turn_title(row: TurnRow, node: Node) -> Content:
    """The whole-turn viewer's title line: the turn, its kind, its size."""
    text = whole_turn(row, node)
    return _line(glyph(HEAD if row.is_head else row.state), " ", (sanitize_line(row.id), "bold"), "  ",
                 (row.entry.kind, "$text-accent"), " · ", size(text), " · ", f"{text.count(chr(10)) + 1:,} lines",
                 ("   esc closes", "$muted-text"))


def size(text: str) -> str:
    """The UTF-8 size of `text`, as a person reads it (1.0 MB, 12 kB, 300 B)."""
    count = len(text.encode("utf-8", "surrogatepass"))
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f} MB"
    if count >= 1_000:
        return f"{count / 1_000:.0f} kB"
    return f"{count} B"


def at_session_end(branch: Branch, threshold: int) -> str:
    """What `finish` will do with this branch (DESIGN §4 "Forks and session boundaries")."""
    if branch.is_head:
        return "At the session's end: written in full (the head)."
    if branch.spawned:
        return "At the session's end: written in full (a sub-agent's work)."
    if branch.pending_tokens < threshold:
        return "At the session's end: stays pending (a retry, below the threshold)."
    return "At the session's end: written while its backlog reaches the threshold."


def describe_branch(graph: SessionGraph, branch: Branch, width: int = 100) -> Content:
    """The branch's pending turns, oldest first, with the writer's next batch marked and the cut shown.

    One line per turn, cut to `width` cells."""
    state = HEAD if branch.is_head else "pending"
    length = sum(1 for e in graph.walk(branch.tip) if not e.rewound and e.kind != "root")
    lines = [
        _line(glyph(state), " ", ("Branch ending at ", "bold"), (sanitize_line(branch.tip), "bold"),
              ("  (head)", "$node-head bold") if branch.is_head else ""),
        _line(f"{_turns(length)} · ", (f"{len(branch.pending)} pending", "$node-pending bold"),
              f" · {tokens(branch.pending_tokens)} tokens"),
        Content(""),
    ]
    if not branch.pending:
        lines.append(Content.styled("Nothing pending: every record of this branch is written.", "$node-written"))
        return Content("\n").join(lines)
    batch, rest = branch.batch, branch.pending[len(branch.batch):]
    lines.append(_line(("Next batch", "bold"), f" (threshold {graph.threshold:,} tokens): ",
                       (f"{_turns(len(batch))} · {branch.batch_tokens:,} tokens", "bold")))
    if rest:
        lines.append(Content.styled(f"cut after {sanitize_line(batch[-1].id)}; {_turns(len(rest))} more wait for the next pass",
                                    "$muted-text"))
    else:
        lines.append(Content.styled("the whole backlog", "$muted-text"))
    lines.append(Content.styled(at_session_end(branch, graph.threshold), "$muted-text"))
    lines.append(Content(""))
    for index, turn in enumerate(branch.pending[:LISTED_TURNS]):
        if index == len(batch):
            lines.append(Content.styled("  ╌╌╌ cut: the batch ends above ╌╌╌", "$node-pending"))
        row_index = graph.row_index(turn.id)
        text = excerpt(graph, graph.rows[row_index]) if row_index is not None else ""
        marker = ("▍ ", "$node-pending") if index < len(batch) else "  "
        role = ROLE_LABELS.get(turn.role, turn.role)
        line = _line(marker, (short_id(turn.id).ljust(8), "bold"), " ", (role.ljust(4), "$text-accent"),
                     f" {turn.tokens:>6}  ", sanitize_line(text[:EXCERPT_CHARS]))
        lines.append(line.truncate(max(width, 20), ellipsis=True))
    if len(branch.pending) > LISTED_TURNS:
        lines.append(Content.styled(f"… {len(branch.pending) - LISTED_TURNS:,} more pending turns", "$muted-text"))
    return Content("\n").join(lines)


def _turns(count: int) -> str:
    return f"{count} turn{'' if count == 1 else 's'}"


def _arguments(value: object) -> str:
    """A tool call's arguments one per line, texts as they are (JSON would show a file's
    newlines as literal `\\n`)."""
    if not isinstance(value, dict):
        return _json(value)
    return "\n".join(f"{key}: {item if isinstance(item, str) else _json(item)}" for key, item in value.items())


def _json(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
