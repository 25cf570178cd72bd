"""`scriptorium search QUERY` and `scriptorium get BLOCK_ID`: BM25 recall over topic blocks."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..sanitize import sanitize, sanitize_line
from .common import CliContext, CliError, add_json_flag, emit_json, positive_int

if TYPE_CHECKING:
    from pathlib import Path

    from ..memory.names import Skipped
    from ..search import Hit
    from ..search.get import BlockView


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("search")
    s.add_argument("query")
    s.add_argument("--top-k", type=positive_int, metavar="N", help="hits to return (default 5)")
    s.add_argument("--sources", action="store_true", help="also search the evidence archive (sources/)")
    add_json_flag(s)
    s.set_defaults(func=cmd_search)

    g = sub.add_parser("get")
    g.add_argument("block_id")
    add_json_flag(g)
    g.set_defaults(func=cmd_get)


def cmd_search(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory.reading import read_consistent
    from ..paths import StatePaths
    from ..search import DEFAULT_TOP_K, SearchIndex

    top_k = args.top_k or DEFAULT_TOP_K

    def run(state: Path) -> tuple[list[Hit], list[Skipped]]:
        # one query in a fresh process: the saved model is queried as loaded, without numpy
        index = SearchIndex(StatePaths(state).memory, vectorize=False)
        return index.search(args.query, top_k=top_k, include_sources=args.sources), index.skipped

    hits, skipped = read_consistent(ctx.state_dir, run) if _has_memory(ctx) else ([], [])
    if args.json:
        emit_json({"hits": [hit.to_json() for hit in hits], **_skipped_json(skipped)})
        return 0
    _warn_skipped(skipped)
    if not hits:
        print("no hits")
    for hit in hits:
        where = f"^{hit.block_id}" if hit.kind == "block" else hit.block_id
        print(sanitize(f"{hit.score:8.3f}  {hit.path}:{hit.line}  {where}"))
        print(f"          {sanitize(hit.text)}")
    return 0


def cmd_get(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory.reading import read_consistent
    from ..paths import StatePaths
    from ..search import SearchIndex, memory_get

    def run(state: Path) -> tuple[BlockView | None, list[Skipped]]:
        index = SearchIndex(StatePaths(state).memory, vectorize=False)
        return memory_get(index, args.block_id), index.skipped

    if not ctx.paths.memory.is_dir():  # reading would create it (a mistyped --state would leave one behind)
        raise CliError(f"no block with id {args.block_id!r}")
    view, skipped = read_consistent(ctx.state_dir, run)
    if view is None:
        raise CliError(f"no block with id {args.block_id!r}")
    if args.json:
        emit_json({**view.to_json(), **_skipped_json(skipped)})
        return 0
    _warn_skipped(skipped)
    print(sanitize(f"{view.path}:{view.line}  ^{view.block_id}"))
    print(sanitize(view.text))
    for citation in view.citations:
        for source in citation.sources:
            print(sanitize(f"[^{citation.id}] {citation.time or 'undated'}  {source.source_id or source.target}"))
            if source.record:
                print(sanitize(f"    {source.record}"))
    return 0


def _has_memory(ctx: CliContext) -> bool:
    """A state without memory has nothing to find; reading it would create the directory
    (a mistyped --state would leave one behind). Said on stderr, the answer stays empty."""
    if ctx.paths.memory.is_dir():
        return True
    print(f"scriptorium: no memory in {sanitize_line(str(ctx.state_dir))} yet (check --state)", file=sys.stderr)
    return False


def _skipped_json(skipped: list[Skipped]) -> dict[str, Any]:
    """`skipped` in the document only when a file was left out for its name (names.py)."""
    return {"skipped": [s.to_json() for s in skipped]} if skipped else {}


def _warn_skipped(skipped: list[Skipped]) -> None:
    """Files search cannot read for their names: said on stderr, stdout keeps the hits."""
    for s in skipped:
        print(f"scriptorium: skipped {sanitize_line(str(s))}", file=sys.stderr)
