"""`scriptorium hook AGENT EVENT`: answer an agent's hook (Claude Code, Codex, pi).

Reads the hook's JSON from stdin, prints the agent's answer on stdout, always exits 0
(a hook must never break its agent; failures go to the hook log, see `doctor`).
"""

from __future__ import annotations

import argparse

from .common import CliContext

EVENTS_HELP = {
    "claude-code": "session-start, user-prompt-submit, stop, pre-compact, session-end (or Claude Code's names: "
                   "SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd)",
    "codex": "SessionStart, UserPromptSubmit, PreCompact, Stop (or session-start, user-prompt-submit, "
             "pre-compact, stop)",
    "pi": "before-agent-start, session-shutdown",
}
DESCRIPTION = """\
Answer one hook call of an agent. The hook's JSON comes on stdin; the answer goes to
stdout in the agent's own format; the exit code is always 0, and every call (its
outcome, time, what was injected, recall hits, any error) is recorded in the hook log
under the state's runtime folder.

  session start       the effective core (nothing when core.inject is off or memory is empty)
  before a prompt     recall: the best blocks and evidence records for the prompt, above a
                      floor, within [recall] budget_tokens, never one this session already has
  stop                import the transcript, one write pass (at the threshold)    } in a detached
  pre-compact         import, write the head branch with force                    } process: the
  session end         import, finish the session                                  } hook returns at once

pi (its extension calls this command), stdin and stdout are one JSON object each:
  before-agent-start  in:  {"session_id": ID, "session_file": PATH, "cwd": DIR, "prompt": TEXT}
                      out: {"core": FENCED_CORE_OR_EMPTY, "recall": FENCED_RECALL_OR_EMPTY}
  session-shutdown    in:  {"session_id": ID, "session_file": PATH, "cwd": DIR, "reason": WHY}
                      out: {}   (finished on quit, new, resume; reload and fork only write at the
                      threshold: the conversation goes on)
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    # No `choices` and both optional: a usage error would exit 2, which Claude Code reads as
    # "block this prompt". A wrong agent or event is logged instead, like any failure.
    p.add_argument("agent", nargs="?", default="", help="which agent calls: " + ", ".join(sorted(EVENTS_HELP)))
    p.add_argument("event", nargs="?", default="", help="; ".join(f"{agent}: {names}" for agent, names in EVENTS_HELP.items()))
    p.add_argument("--foreground", action="store_true",
                   help="do the import and write in this process instead of a detached one "
                        "(what the detached process itself runs; also $SCRIPTORIUM_HOOK_FOREGROUND=1)")
    p.set_defaults(func=cmd_hook)


def cmd_hook(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..agents.hook_output import answer
    from ..agents.hooks import read_stdin, run

    answer(run(args.agent, args.event, read_stdin(), ctx.state_dir, foreground=args.foreground))
    return 0
