"""`scriptorium serve`: the same app in a browser, through textual-serve (an optional extra).

Each browser tab gets its own app process on this state, as a terminal would. The app can
change memory and wire agents, so whoever reaches the page can too: it listens on loopback
unless told otherwise, and every request must carry a token (generated unless given;
printed in the URL). `--no-token` is for loopback only: bound to any other address the
token is required.
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress

from .common import EXIT_USAGE, CliContext, CliError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8040
MIN_TOKEN = 16  # characters: a token given by hand must not be guessable
INSTALL_LINE = ("`scriptorium serve` needs textual-serve, an optional extra: pip install 'scriptorium-memory[serve]' "
                "(pipx: pipx inject scriptorium-memory textual-serve; uv: uv tool install '.[serve]')")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", description="Serve the app to a browser (textual-serve): open the URL it prints. "
                       "Loopback by default; every request carries the printed token. Ctrl+C stops.")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}; another address requires a token)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    token = p.add_mutually_exclusive_group()
    token.add_argument("--token", help=f"the token to require (at least {MIN_TOKEN} characters; default: a new "
                                       "random one each start)")
    token.add_argument("--no-token", action="store_true", help="no token (loopback only)")
    p.set_defaults(func=cmd_serve)


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number (1-65535): {value}")
    return value


def is_loopback(host: str) -> bool:
    """Only this machine can reach `host`: localhost or a loopback address (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to anything


def cmd_serve(args: argparse.Namespace, ctx: CliContext) -> int:
    if ctx.app_server is None:
        raise CliError("this entry point has no app to serve; run `scriptorium serve`", EXIT_USAGE)
    loopback = is_loopback(args.host)
    if args.no_token and not loopback:
        raise CliError(f"--no-token with --host {args.host}: anyone who reaches that address could read and change "
                       f"your memory; off loopback a token is required (drop --no-token, or use --host "
                       f"{DEFAULT_HOST})", EXIT_USAGE, "TOKEN_REQUIRED")
    if args.token is not None and len(args.token) < MIN_TOKEN:
        raise CliError(f"--token is too short: at least {MIN_TOKEN} characters (or leave it out for a random one)",
                       EXIT_USAGE, "TOKEN_TOO_SHORT")
    if importlib.util.find_spec("textual_serve") is None:
        raise CliError(INSTALL_LINE, code="MISSING_EXTRA")
    token = None
    if not args.no_token:
        import secrets

        token = args.token or secrets.token_urlsafe(24)
    try:
        return ctx.app_server(ctx.state_dir, args.host, args.port, token)
    except OSError as exc:
        import errno

        if exc.errno == errno.EADDRINUSE:
            raise CliError(f"port {args.port} on {args.host} is in use: pick another with --port",
                           code="ADDRESS_IN_USE") from exc
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
                       code="CANNOT_LISTEN") from exc
