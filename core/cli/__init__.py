"""`scriptorium` command line.

Each command group lives in its own module under this package and exposes
`register(subparsers)`; handlers take `(args, ctx)` and return an exit code.
Exit codes: 0 success, 2 usage error (argparse), 1 any other failure with a
one-line message on stderr; commands may define more (e.g. 75 = retryable).
Heavy imports (litellm) happen inside handlers, never here; the engine never
imports the TUI (the console entry point, `scriptorium.tui.entry`, hands it an
app opener).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .common import AppOpener, CliContext, CliError

# Modules that register subcommands, in help order.
COMMAND_MODULES: list[str] = [
    "session",
    "pending",
    "write",
    "sleep",
    "migrate",
    "importers",
    "watch",
    "trilogy",
    "search",
    "chat",
    "demo",
    "topic",
    "core_cmd",
    "log",
    "revert",
    "mcp_cmd",
    "agents_cmd",
    "sync",
    "hook",
]


# Commands an agent waits on: only their own module is loaded (see `main`).
LEAN_COMMANDS = {"hook": "hook"}


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scriptorium",
        description="Branch-aware long-term memory for AI agents. With no command, opens the TUI.",
    )
    parser.add_argument("--state", metavar="DIR", help="state directory (default: $SCRIPTORIUM_STATE or the platform data dir)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        module = importlib.import_module(f"{__name__}.{name}")
        module.register(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named in `argv` (skipping `--state DIR`), without parsing."""
    args = list(argv)
    while args:
        head = args.pop(0)
        if head == "--state":
            args = args[1:]
        elif not head.startswith("-"):
            return head
        elif not head.startswith("--state="):
            return None
    return None


def main(argv: Sequence[str] | None = None, open_app: AppOpener | None = None) -> int:
    """Run one command; with no command, open the app through `open_app`.

    The engine never imports the TUI: the console entry point
    (`scriptorium.tui.entry`) passes the opener, so `python -m scriptorium.core.cli`
    runs every command but cannot open the app. A command an agent waits on
    (`LEAN_COMMANDS`) loads only its own module.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    lean = LEAN_COMMANDS.get(_command(argv) or "")
    parser = build_parser([lean] if lean else COMMAND_MODULES)
    args = parser.parse_args(argv)
    ctx = CliContext.from_args(args, app_opener=open_app)
    try:
        if getattr(args, "func", None) is None:
            return ctx.open_app()
        code = int(args.func(args, ctx) or 0)
        sys.stdout.flush()  # inside the guard: a reader that went away fails here, not at exit
        return code
    except CliError as exc:
        print(f"scriptorium: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """`scriptorium … --json | head`: the reader closed the pipe. Nothing more can be said
    on stdout; point it at /dev/null so the interpreter's final flush is silent too."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
