"""Open the Textual app (imported lazily so the CLI never pays for Textual)."""

from __future__ import annotations

from .common import CliContext, CliError


def open_app(ctx: CliContext) -> int:
    try:
        from scriptorium.tui.app import run_app
    except ImportError as exc:  # the TUI package is optional at the engine level
        raise CliError(f"the terminal UI is unavailable: {exc}") from exc
    return run_app(ctx.state_dir) or 0
