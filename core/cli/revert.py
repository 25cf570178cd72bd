"""`scriptorium revert SHA`: undo a commit of the memory history as a new, validated
`revert` transaction (`scriptorium log` lists the commits).

Output and exit codes as `topic save`: 0 installed, 1 rejected (diagnostics) or not
revertable, 75 the workspace lock is busy (retry later).
"""

from __future__ import annotations

import argparse

from .common import CliContext, add_json_flag
from .topic import report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("revert")
    p.add_argument("sha", metavar="SHA", help="the commit to undo (as `scriptorium log` shows it)")
    add_json_flag(p)
    p.set_defaults(func=cmd_revert)


def cmd_revert(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..memory import Workspace
    from ..memory.revert import revert_commit

    # not revertable ends with 1, a busy lock with 75: their WorkspaceError reaches cli.main
    return report(revert_commit(Workspace.open(ctx.state_dir), args.sha), args.json)
