"""`scriptorium` command line.

Each command group lives in its own module under this package. `COMMANDS` below is
the one list of top-level commands: name -> (module, one-line help). A command's
module is imported only when that command runs, so `scriptorium --help` and every
command start without loading what the others need. To add a command:

1. add `"name": ("module", "one-line help")` to `COMMANDS` (help order);
2. in `core/cli/module.py`, `register(sub)` calls `sub.add_parser("name", ...)` (no
   `help=`: the table holds it) for each of the module's commands, with their
   arguments, and `set_defaults(func=handler)`;
3. the module imports only the standard library, `.common` and `..sanitize` at its
   top; a handler imports the engine modules it needs inside its body (litellm, git,
   filelock, the tokenizer and search load only in the command that uses them —
   tests/core/test_cli_startup.py checks `--help` for it).

Handlers take `(args, ctx)` and return an exit code: 0 success, 2 usage error
(argparse), 1 any other failure with a one-line message on stderr, 75 retryable
(`CliError(message, code)`). The engine never imports the TUI: the console entry
point, `scriptorium.tui.entry`, hands `main` an app opener.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .common import (EXIT_USAGE, AppOpener, AppServer, CliContext, CliError, emitted_message, failure_of, report_failure,
                     reset_emitted)


class _Sized(argparse.ArgumentParser):
    """argparse at the terminal's width, measured without shutil (`_help_width`)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=_help_width())  # type: ignore[call-arg]


class Parser(_Sized):
    """argparse whose usage errors go through the one failure path (one stderr line, exit
    2, the JSON failure document under `--json`) instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{_suggest(message)} (see {self.prog} --help)", EXIT_USAGE, "USAGE")


def _suggest(message: str) -> str:
    """argparse's "invalid choice: 'serch' (choose from 28 names)" as "unknown command
    'serch'; did you mean 'search'?" (the closest names by difflib, or none)."""
    import re

    found = re.match(r"argument (\S+): invalid choice: '(.*)' \(choose from (.*)\)$", message)
    if found is None:
        return message
    argument, given, listed = found.groups()
    choices = re.findall(r"'([^']*)'", listed)
    import difflib

    close = difflib.get_close_matches(given, choices, n=3, cutoff=0.6)
    what = "command" if argument in ("COMMAND", "ACTION") else f"choice for {argument}"
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else f"; one of: {', '.join(choices)}"
    return f"unknown {what} {given!r}{hint}"


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, read only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version(DISTRIBUTION)
        except PackageNotFoundError:
            number = "unknown (not installed)"
        print(f"scriptorium {number}")
        parser.exit(0)


DISTRIBUTION = "scriptorium-memory"  # pyproject.toml's [project] name


def _help_width() -> int:
    """The width argparse gives its help: `shutil.get_terminal_size().columns - 2`, without
    importing shutil (and with it zlib, bz2 and lzma): argparse builds a formatter for every
    argument it adds, so every command, not only `--help`, would load it."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns - 2


# name -> (module under this package, one-line help), in help order.
COMMANDS: dict[str, tuple[str, str]] = {
    "session": ("session", "create, extend and inspect sessions"),
    "pending": ("pending", "pending (unwritten) turns of every live branch"),
    "write": ("write", "write a branch's pending turns into memory"),
    "finish": ("write", "session boundary: write the head branch fully, other branches at threshold"),
    "sleep": ("sleep", "reorganize memory (merge duplicates, move blocks) through a transaction"),
    "migrate": ("migrate", "turn OpenProgram's position cursors into node marks (verifiable prefix only)"),
    "backfill": ("migrate", "write archived sources that no topic cites into topics (marks untouched)"),
    "import": ("importers", "import agent transcripts (Claude Code, pi, Codex) as sessions"),
    "watch": ("watch", "keep running and do background duties (finish idle sessions, nightly sleep, "
                       "live import of agent transcripts)"),
    "trilogy": ("trilogy", "per-project memory: PROJECT.md, DECISIONS.md, SESSIONS.md"),
    "search": ("search", "BM25 search over topic blocks"),
    "get": ("search", "one block with its citations"),
    "chat": ("chat", "a plain terminal chat with memory (the reference runtime loop)"),
    "demo": ("demo", "build a demo state (once, offline) and open the app on it"),
    "topic": ("topic", "edit topics through the validated transaction"),
    "core": ("core_cmd", "the rendered core: tokens against the budget, blocks left out"),
    "log": ("log", "installed memory transactions, newest first"),
    "revert": ("revert", "undo a memory commit as a new, validated transaction"),
    "purge": ("purge", "rewrite a secret out of sessions, memory and their git histories"),
    "mcp": ("mcp_cmd", "serve memory tools (search, get, core, remember) over MCP on stdio"),
    "install": ("agents_cmd", "wire memory into an agent: its hooks and the MCP server"),
    "uninstall": ("agents_cmd", "take out exactly what install put into an agent's configuration"),
    "doctor": ("agents_cmd", "is memory wired into the agents and working? (exit 1 when not)"),
    "remote": ("sync", "the git remotes memory syncs with"),
    "sync": ("sync", "fetch, merge by block, validate, install and push memory"),
    "conflicts": ("sync", "blocks two machines edited differently, waiting for a person"),
    "resolve": ("sync", "settle a sync conflict through the transaction"),
    "hook": ("hook", "answer an agent's hook (Claude Code, Codex, pi); always exits 0"),
    "serve": ("serve", "the app in a browser (textual-serve): loopback, behind a token"),
}

# What an interrupted command (Ctrl-C, exit 130) leaves behind, said in one line: an append,
# an install and a mark each complete or leave no trace, so a rerun continues.
INTERRUPTED = {
    "import": "interrupted: the sessions imported so far are kept; run the same import again to bring in the rest",
    "write": "interrupted: nothing half-written was installed; the turns not yet written stay pending",
    "finish": "interrupted: nothing half-written was installed; the turns not yet written stay pending, "
              "run finish again",
    "sleep": "interrupted: nothing half-reorganized was installed; memory is as it was",
    "": "interrupted: what had finished is kept, nothing half-done was installed",
}

REPORTS_STATE = frozenset({"doctor", "hook"})  # commands that handle an unusable --state themselves
NEVER_FAILS = frozenset({"hook"})  # an agent reads a hook's non-zero exit as "block": always 0, one stderr line


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser. With `command`, only that command's module adds its arguments;
    without, every command is a stand-in (name and help: enough for `--help`)."""
    parser = Parser(
        prog="scriptorium",
        description="Branch-aware long-term memory for AI agents. With no command, opens the TUI.",
    )
    parser.add_argument("--state", metavar="DIR", help="state directory (default: $SCRIPTORIUM_STATE or the platform data dir)")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command in COMMANDS:
        importlib.import_module(f"{__name__}.{COMMANDS[command][0]}").register(sub)
    else:
        for name, (_module, help_text) in COMMANDS.items():
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command `argv` names, if any (a cheap first pass: `--state` and the first word)."""
    first = _Sized(add_help=False, exit_on_error=False)
    first.add_argument("--state")
    first.add_argument("words", nargs=argparse.REMAINDER)
    try:
        words = first.parse_known_args(argv)[0].words
    except argparse.ArgumentError:
        return None  # the full parser reports it
    return words[0] if words and words[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None, open_app: AppOpener | None = None,
         serve_app: AppServer | None = None) -> int:
    """Run one command; with no command, open the app through `open_app`.

    The engine never imports the TUI: the console entry point
    (`scriptorium.tui.entry`) passes the opener and the browser server (`serve`), so
    `python -m scriptorium.core.cli` runs every command but cannot open the app.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    from ..agents.hook_entry import main as hook_main

    hooked = hook_main(argv)  # an agent's hook, as install writes it: answered without the parser
    if hooked is not None:
        return hooked
    code = _run(argv, open_app, serve_app)
    return 0 if _command_of(argv) in NEVER_FAILS else code


def _run(argv: list[str], open_app: AppOpener | None, serve_app: AppServer | None = None) -> int:
    reset_emitted()
    as_json = "--json" in argv  # until parsed: a usage error under --json is a JSON document too
    code = 0
    try:
        args = build_parser(_command_of(argv)).parse_args(argv)
        as_json = bool(getattr(args, "json", False))
        ctx = CliContext.from_args(args, app_opener=open_app, app_server=serve_app)
        if args.command not in REPORTS_STATE:
            _check_state_dir(ctx)
        if getattr(args, "func", None) is None:
            return ctx.open_app()
        with _StderrWatch() as watch:
            code = int(args.func(args, ctx) or 0)
        if code != 0 and not watch.wrote:  # a failure says one line on stderr, even after its document
            print(f"scriptorium: {_one_line(emitted_message() or f'failed (exit {code})')}", file=sys.stderr)
        sys.stdout.flush()  # inside the guard: a reader that went away fails here, not at exit
        return code
    except (KeyboardInterrupt, Exception) as exc:
        return failed(exc, _command_of(argv) or "", as_json, code)


def failed(exc: BaseException, command: str, as_json: bool = False, code: int = 0) -> int:
    """The exit code (and the one line, or JSON document) of a command that raised `exc`: the
    one place every failure becomes the contract (also for `scriptorium mcp`'s fast entry)."""
    if isinstance(exc, KeyboardInterrupt):
        with contextlib.suppress(OSError):
            print(f"\nscriptorium: {INTERRUPTED.get(command, INTERRUPTED[''])}", file=sys.stderr)
        return 130
    if isinstance(exc, BrokenPipeError):
        return _reader_gone(code)
    failure = failure_of(exc)
    try:
        return report_failure(failure, as_json)
    except BrokenPipeError:  # `get X --json | true`: the failure's document had no reader
        with contextlib.suppress(OSError):
            print(f"scriptorium: {failure.message}", file=sys.stderr)
        return _reader_gone(failure.exit_code)


class _StderrWatch:
    """Notes whether a handler wrote to stderr (a failing one that did not gets one line)."""

    def __init__(self) -> None:
        self.wrote = False

    def __enter__(self) -> _StderrWatch:
        self._real = sys.stderr
        watch = self

        class Proxy:
            def write(self, text: str) -> int:
                watch.wrote = watch.wrote or bool(text)
                return watch._real.write(text)

            def __getattr__(self, name: str) -> object:
                return getattr(watch._real, name)

        sys.stderr = Proxy()
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stderr = self._real


def _one_line(text: str) -> str:
    from ..sanitize import sanitize_line

    return sanitize_line(" ".join(text.split()))


def _check_state_dir(ctx: CliContext) -> None:
    """`--state` naming something that is not a directory is a usage error, said once here."""
    if ctx.state_dir.exists() and not ctx.state_dir.is_dir():
        raise CliError(f"--state {ctx.state_dir} is not a directory", EXIT_USAGE, "STATE_NOT_A_DIRECTORY")


def _reader_gone(code: int) -> int:
    """`scriptorium … --json | head`: the reader closed the pipe. Nothing more can be said
    on stdout; point it at /dev/null so the interpreter's final flush is silent too. The
    exit code stays the command's own (a failure whose document went unread still failed)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
