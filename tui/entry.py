"""The `scriptorium` console command: the engine's CLI with the app plugged in.

The engine's CLI (`scriptorium.core.cli`) never imports the TUI: it is handed an
app opener for the two cases that open the app (no command, and `demo` without
`--no-tui`), and a server for `serve` (the app in a browser). Each imports Textual
or textual-serve only when it is called, so a command such as `scriptorium session
list` never pays for it.
An agent's hook call (`--state DIR hook AGENT EVENT`, as install writes it) and its MCP
server (`--state DIR mcp`) go in even more directly, without the CLI's parser
(`core.agents.hook_entry`, `core.agents.mcp_entry`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's flag without importing typing: an agent's hook starts here

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


def open_app(state_dir: Path) -> int:
    """Run the app on `state_dir` until the user quits; its exit code."""
    from .app import run_app

    return run_app(state_dir)


def serve_app(state_dir: Path, host: str, port: int, token: str | None) -> int:
    """Serve the app to browsers until stopped; its exit code."""
    from .serve import serve_app as serve

    return serve(state_dir, host, port, token)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    from scriptorium.core.agents.hook_entry import main as hook_main

    code = hook_main(argv)  # an agent's hook: straight in, without the CLI around it
    if code is None and "mcp" in argv:
        from scriptorium.core.agents.mcp_entry import main as mcp_main

        try:
            code = mcp_main(argv)  # and its MCP server
        except (KeyboardInterrupt, Exception) as exc:  # noqa: BLE001 - the CLI's contract for every failure
            from scriptorium.core.cli import failed

            return failed(exc, "mcp")
    if code is not None:
        return code
    from scriptorium.core.cli import main as cli_main

    return cli_main(argv, open_app=open_app, serve_app=serve_app)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
