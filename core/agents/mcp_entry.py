"""The MCP server's way in: `scriptorium [--state DIR] mcp`, as install writes it, without the
CLI around it (as `hook_entry` is the hooks'). An agent starts its MCP servers at every
session start and waits for their tool lists; the CLI's parser and command table were a
third of this server's start.
"""

from __future__ import annotations

from ..values import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str]) -> int | None:
    """Serve `argv`'s state and return the exit code, or None when `argv` is not a plain MCP
    call. A state that is not a directory goes through the CLI, which says so; a failure
    while serving is raised, for the console command to report as the CLI does (`cli.failed`:
    the CLI sits above this package, so it is not imported from here)."""
    rest = list(argv)
    state: str | None = None
    if len(rest) == 3 and rest[0] == "--state":
        state, rest = rest[1], rest[2:]
    elif len(rest) == 2 and rest[0].startswith("--state="):
        state, rest = rest[0].split("=", 1)[1], rest[1:]
    if rest != ["mcp"]:
        return None
    from ..paths import resolve_state_dir

    state_dir = resolve_state_dir(state)
    if state_dir.exists() and not state_dir.is_dir():
        return None
    from .mcp_server import serve

    serve(state_dir)
    return 0
