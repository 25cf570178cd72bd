"""`scriptorium demo`: build (once) a demo state directory and open the app on it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import CliContext, CliError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo",
                       description="Builds realistic demo sessions in <user data dir>/demo (or in --state DIR) "
                                   "the first time, then opens the app on them.")
    p.add_argument("--no-tui", "--print", dest="no_tui", action="store_true",
                   help="print the branch summary instead of opening the app")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..demo import branch_summary, default_demo_dir, ensure_demo
    from ..sessions.errors import SessionError

    state_dir = ctx.state_dir if getattr(args, "state", None) else default_demo_dir()

    def announce() -> None:
        print(f"Building the demo in {state_dir} (once; part of it is written through the offline model, "
              "which takes a few seconds)…", file=sys.stderr, flush=True)

    try:
        built = ensure_demo(Path(state_dir), announce=announce)
    except (SessionError, OSError, RuntimeError) as exc:
        raise CliError(f"cannot build the demo in {state_dir}: {exc}") from exc
    if args.no_tui:
        if not built:
            print(f"(demo state already built: {state_dir})")
        print("\n".join(branch_summary(Path(state_dir))))
        return 0
    return ctx.open_app(Path(state_dir))
