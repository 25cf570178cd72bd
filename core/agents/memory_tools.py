"""What `scriptorium mcp` serves, without the protocol: search, get, core, remember, topics.

One `MemoryTools` lives as long as the server. It keeps the workspace's search index in
memory (core/search reuses the parsed files and the BM25 model until a file changes).
Before a search it compares a cheap fingerprint — the audit log every transaction appends
to, core.md, config.toml and the mtimes of the topic and source directories (an install
renames files into them) — and only when that moved does the index stat every file; so a
warm query is a ranking, and edits made by the TUI, `scriptorium write` or another agent
show up on the next call without a restart. Every read goes through `read_consistent`
(memory/reading.py): an install a crash interrupted is completed first, or the read is
answered from a snapshot of the state it leads to, never from the half-installed tree.

`remember` is a human edit's transaction with one difference: the fact is archived first
as an `agent` record (`agent_record`) and the new paragraph cites it, so the validator
sees an ordinary cited block. One call writes one paragraph of at most MAX_FACT_CHARS (more
is refused with rule `limit`, never archived), and what search and get return is bounded
(MAX_HIT_CHARS, MAX_GET_CHARS) with the whole size said: a huge block an older version or a
hand edit let in must not cost every later call megabytes.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from ..values import TYPE_CHECKING

if TYPE_CHECKING:  # an MCP server imports this module at start: no typing, no evidence archive
    from collections.abc import Callable
    from typing import Any, TypeVar

    from ..search import SearchIndex

    T = TypeVar("T")

DEFAULT_TOPIC = "agent-notes.md"
AGENT_LABEL = "agent note"
MAX_FACT_CHARS = 4000  # what one remember call may write: one paragraph of at most this many characters
MAX_HIT_CHARS = 2000  # a search hit's text, at most (top_k 50 stays about 100 kB)
MAX_GET_CHARS = 20000  # memory_get's block text and each cited record, at most


class MemoryTools:
    def __init__(self, state_dir: Path) -> None:
        from ..memory.audit import AUDIT_NAME
        from ..paths import StatePaths

        self.state_dir = Path(state_dir)
        paths = StatePaths(self.state_dir)
        self.memory = paths.memory
        self._watched = (paths.runtime / AUDIT_NAME, self.memory / "core.md", paths.config)
        self._trees = (str(paths.topics), str(paths.sources))
        self._index: SearchIndex | None = None
        self._seen: tuple | None = None

    @property
    def index(self) -> SearchIndex:
        from ..search import workspace_index

        if self._index is None:
            self._index = workspace_index(self.memory)
        return self._index

    # -- reading ----------------------------------------------------------------------------

    def fingerprint(self) -> tuple:
        """What changes whenever memory does (see the module note); a few stats."""
        parts: list[object] = []
        for path in self._watched:
            try:
                st = os.stat(path)
                parts.append((st.st_size, st.st_mtime_ns))
            except OSError:
                parts.append(None)
        stack = list(self._trees)
        while stack:
            directory = stack.pop()
            try:
                parts.append((directory, os.stat(directory).st_mtime_ns))
                with os.scandir(directory) as entries:
                    stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
            except OSError:
                parts.append((directory, None))
        return tuple(parts)

    def search(self, query: str, top_k: int = 5) -> dict[str, Any]:
        top_k = max(1, min(int(top_k), 50))

        def read(state: Path) -> list[Any]:
            if state != self.state_dir:  # a snapshot of an install still pending
                return self._index_for(state).search(query, top_k=top_k)
            seen = self.fingerprint()
            hits = self.index.search(query, top_k=top_k, refresh=seen != self._seen)
            self._seen = seen
            return hits
        return {"query": query, "hits": [bounded(hit.to_json(), "text", MAX_HIT_CHARS)
                                         for hit in self._read_state(read)]}

    def get(self, block_id: str) -> dict[str, Any] | None:
        from ..search import memory_get

        view = self._read_state(lambda state: memory_get(self._index_for(state), block_id))
        if view is None:
            return None
        doc = bounded(view.to_json(), "text", MAX_GET_CHARS)
        for citation in doc["citations"]:
            citation["sources"] = [bounded(source, "record", MAX_GET_CHARS) for source in citation["sources"]]
        return doc

    def core(self) -> dict[str, Any]:
        from ..memory import Workspace

        def read(state: Path) -> dict[str, Any]:
            ws = Workspace(state)
            return {"injection": ws.core_injection(), **ws.core_status().to_json()}
        return self._read_state(read)

    def topics(self) -> list[str]:
        from ..memory.names import list_topic_files  # not the Workspace: an MCP client lists these at start
        from ..paths import StatePaths

        return self._read_state(lambda state: list_topic_files(StatePaths(state).topics).paths)

    def topic_text(self, topic: str) -> str | None:
        from ..memory import Workspace

        def read(state: Path) -> str | None:
            ws = Workspace(state)
            text = ws.read_topic(topic)
            if text is None and (renamed := ws.renamed_to(topic)) is not None:
                text = ws.read_topic(renamed)  # the topic the old name became (its `formerly` line says so)
            return text

        return self._read_state(read)

    def _read_state(self, read: Callable[[Path], T]) -> T:
        """`read(state)` against one committed state (never half an interrupted install)."""
        from ..memory.reading import read_consistent

        return read_consistent(self.state_dir, read)

    def _index_for(self, state: Path) -> SearchIndex:
        """The server's index, or a snapshot's own (read once, then dropped)."""
        from ..paths import StatePaths
        from ..search import SearchIndex

        return self.index if state == self.state_dir else SearchIndex(StatePaths(state).memory)

    # -- writing ----------------------------------------------------------------------------

    def remember(self, text: str, topic: str | None = None, *, agent: str = "mcp") -> dict[str, Any]:
        """Add `text` as a new block of `topic` (default `agent-notes.md`), cited to an
        `agent` record. Returns {"outcome": "installed", "block_id", "topic", "commit"} or
        {"outcome": "rejected", "diagnostics": [...]} (or "busy": retry later)."""
        from ..memory import LockBusy, Transaction, TopicPathError, WorkspaceError, agent_record, topic_rel

        fact = text.strip()
        target = topic or DEFAULT_TOPIC
        if not fact:
            return _rejection("citation-required", None, "there is nothing to remember", "pass the fact as text")
        if len(fact) > MAX_FACT_CHARS:
            return _rejection("limit", None, f"the fact is {len(fact):,} characters; one memory_remember keeps at "
                              f"most {MAX_FACT_CHARS:,}", "remember one short, durable fact per call")
        paragraphs = len(_PARAGRAPH_BREAK.split(fact))
        if paragraphs > 1:
            return _rejection("limit", None, f"the text is {paragraphs} paragraphs; one memory_remember keeps one",
                              "call memory_remember once per fact, each a single paragraph")
        try:
            rel = topic_rel(target)
        except TopicPathError as exc:
            return _rejection("parse", target, str(exc), "name a .md file under topics/, e.g. people/ada.md")
        try:
            from ..memory import Workspace

            ws = Workspace.open(self.state_dir)
            record = agent_record(fact, time.time(), agent)
            summary = f"remember ({record.speaker_display}): {' '.join(fact.split())[:80]}"
            with Transaction(ws, "edit", summary, manual_sources=False) as txn:
                txn.archive([record])
                current = txn.read_topic(rel) or ""
                txn.write_topic(rel, _appended(current, fact, record.source_id))
                result = txn.commit()
        except LockBusy as exc:
            return {"outcome": "busy", "retryable": True, "message": str(exc)}
        except WorkspaceError as exc:
            return {"outcome": "busy" if exc.retryable else "error", "retryable": exc.retryable, "message": str(exc)}
        if result.outcome != "installed":
            from ..memory.transaction.judge import SECRET_NAME

            named = [d.file for d in result.diagnostics if d.message == SECRET_NAME and d.file]
            topic = named[0].removeprefix("topics/") if named else rel  # a name holding a secret: its redacted form
            return {"outcome": "rejected", "topic": topic, "diagnostics": [d.to_json() for d in result.diagnostics]}
        created = [bid for bid in result.created_blocks]
        from ..memory.sources import anchor_for, archive_path

        return {
            "outcome": "installed", "topic": rel, "block_id": created[0] if created else None,
            "commit": result.commit, "source_id": record.source_id,
            "evidence": f"{archive_path(record.source_id)}#{anchor_for(record.source_id)}",
        }


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")  # what separates two blocks of a topic


def bounded(doc: dict[str, Any], key: str, limit: int) -> dict[str, Any]:
    """`doc` with its text `key` cut to `limit` characters; a cut one says so in the text and
    gives its whole size (`<key>_chars`) and `truncated`, so the agent knows what it missed."""
    text = doc.get(key)
    if not isinstance(text, str) or len(text) <= limit:
        return doc
    tail = f"\n[… cut: {len(text):,} characters in all]"
    return {**doc, key: text[:limit] + tail, f"{key}_chars": len(text), "truncated": True}


def _appended(current: str, fact: str, source_id: str) -> str:
    """The topic with `fact` as a last paragraph citing its record (a local label the
    normalizer renames; the plain handle becomes the relative link)."""
    head = current.rstrip("\n")
    block = f"{fact} [^e1]\n\n[^e1]: Time: `undated`; Sources: [{AGENT_LABEL}]({source_id})\n"
    return f"{head}\n\n{block}" if head else block


def _rejection(rule: str, file: str | None, message: str, hint: str) -> dict[str, Any]:
    return {"outcome": "rejected", "topic": file,
            "diagnostics": [{"rule": rule, "file": file, "line": None, "block_id": None, "message": message,
                             "hint": hint}]}
