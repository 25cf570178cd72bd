"""`scriptorium core`: the always-on core against its budget, and what was left out."""

from __future__ import annotations

import argparse

from .common import CliContext, add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("core", description="The rendered core (topics/core.md as agents get it at session start): "
                       "its tokens against core.budget (config.toml) and the blocks left out to fit.")
    add_json_flag(p)
    p.set_defaults(func=cmd_core)


def cmd_core(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import Workspace, read_consistent

    status = read_consistent(ctx.state_dir, lambda state: Workspace(state).core_status())
    if args.json:
        emit_json(status.to_json())
        return 0
    print(f"rendered {status.rendered_tokens} / {status.budget} tokens "
          f"(canonical {status.canonical_tokens}, injected {status.effective_tokens}, "
          f"inject {'on' if status.inject else 'off'})")
    if status.omitted_blocks:
        print("left out: " + " ".join(f"^{b}" for b in status.omitted_blocks))
    return 0
