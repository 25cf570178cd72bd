"""`scriptorium search QUERY` and `scriptorium get BLOCK_ID`: BM25 recall over topic blocks."""

from __future__ import annotations

import argparse

from ..sanitize import sanitize
from .common import CliContext, CliError, add_json_flag, emit_json, positive_int


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
    # one query in a fresh process: the saved model is queried as loaded, without numpy
    hits = read_consistent(ctx.state_dir, lambda state: SearchIndex(StatePaths(state).memory, vectorize=False).search(
        args.query, top_k=top_k, include_sources=args.sources))
    if args.json:
        emit_json({"hits": [hit.to_json() for hit in hits]})
        return 0
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

    view = read_consistent(ctx.state_dir, lambda state: memory_get(
        SearchIndex(StatePaths(state).memory, vectorize=False), args.block_id))
    if view is None:
        raise CliError(f"no block with id {args.block_id!r}")
    if args.json:
        emit_json(view.to_json())
        return 0
    print(sanitize(f"{view.path}:{view.line}  ^{view.block_id}"))
    print(sanitize(view.text))
    for citation in view.citations:
        for source in citation.sources:
            print(sanitize(f"[^{citation.id}] {citation.time or 'undated'}  {source.source_id or source.target}"))
            if source.record:
                print(sanitize(f"    {source.record}"))
    return 0
