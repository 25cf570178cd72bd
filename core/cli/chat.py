"""`scriptorium chat`: a plain terminal chat whose memory is a provider (the reference loop).

Type a message and press Enter. `/compact` folds older messages into a summary (asking
memory what to keep first), `/sleep` reorganizes memory, `/exit` (or end of input)
ends the session — which, for Scriptorium, writes everything still pending.
The model is `--model`, else `$SCRIPTORIUM_MODEL`, else config `writer.model`, else
the built-in offline model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..sanitize import sanitize
from .common import CliContext, CliError, session_cli_error, positive_int


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat")
    p.add_argument("--session", metavar="SID", help="resume this session instead of starting a new one")
    p.add_argument("--model", help="litellm model name (default: the configured or offline model)")
    p.add_argument("--provider", help="memory provider (default: config memory.provider, else scriptorium)")
    p.add_argument("--project", type=Path, metavar="DIR", help="project directory for the trilogy provider (default: cwd)")
    p.add_argument("--window", type=positive_int, metavar="N", help="the model's context window in tokens")
    p.set_defaults(func=cmd_chat)


def cmd_chat(args: argparse.Namespace, ctx: CliContext) -> int:
    from ..providers import create_provider
    from ..providers.runtime import ChatRuntime
    from ..sessions.errors import SessionError
    from ..writer.model import completion, model_endpoint, model_timeout, resolve_model

    try:
        provider = create_provider(ctx.state_dir, args.provider)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    model = resolve_model(ctx.state_dir, args.model)
    timeout = model_timeout(ctx.state_dir)
    endpoint = model_endpoint(ctx.state_dir)  # [model] api_base, key, streaming: as the writer reaches it

    from ..redact import for_state as redactor_for

    redactor = redactor_for(ctx.state_dir)

    def complete(messages: list[dict]) -> str:
        return completion(model, redactor.messages(messages), [], timeout, endpoint).content or ""

    options = {key: value for key, value in (("project_dir", args.project), ("window", args.window)) if value}
    runtime = ChatRuntime(provider, complete, ctx.store, session_id=args.session, options=options)
    try:
        sid = runtime.start()
    except SessionError as exc:
        raise session_cli_error(exc) from exc
    memory = provider.name if runtime.memory_enabled else f"{provider.name} (unavailable: running without memory)"
    print(f"session {sid} · model {model} · memory {memory} · /compact /sleep /exit")
    try:
        for line in sys.stdin if not sys.stdin.isatty() else _prompted():
            text = line.strip()
            if not text:
                continue
            if text == "/exit":
                break
            if text == "/sleep":
                print(json.dumps(runtime.reorganize(), ensure_ascii=False, default=str))
            elif text == "/compact":
                print("compacted" if runtime.compact() else "nothing to compact")
            else:
                result = runtime.turn(text)
                print(sanitize(result.reply))
                if result.compacted:
                    print("(older messages compacted)")
    except KeyboardInterrupt:
        print()
    finally:
        runtime.end()
    return 0


def _prompted():
    while True:
        try:
            yield input("> ")
        except EOFError:
            return
