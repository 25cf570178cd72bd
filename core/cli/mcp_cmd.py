"""`scriptorium mcp`: serve memory to an agent over MCP (stdio); see core/agents/mcp_server.py."""

from __future__ import annotations

import argparse

from .common import CliContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..agents.mcp_server import serve

    serve(ctx.state_dir)
    return 0
