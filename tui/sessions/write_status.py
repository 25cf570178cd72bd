"""A few lines above the detail pane: a write in progress, how the last one ended, or the
session's standing permanent failure. Hidden when there is nothing to say."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line
from scriptorium.core.wording import count

from ..common.formatting import stamp
from .states import short_id

if TYPE_CHECKING:
    from .model import WriteFailure, WriteJob, WriteOutcome

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
BAR = 20
MESSAGE_CHARS = 240

# outcome -> (glyph, style, what it means for the turns)
OUTCOMES = {
    "ok": ("●", "$node-written", ""),
    "retryable": ("↻", "$text-warning", " — the unwritten turns stay pending; it heals by itself, try again later"),
    "permanent": ("✗", "$text-error", " — the unwritten turns stay pending; retrying fails the same way until the "
                                      "cause is fixed"),
    "error": ("✗", "$text-error", " — the write stopped unexpectedly; the unwritten turns stay pending"),
}


def job_label(job: WriteJob, session_id: str | None = None) -> str:
    """E.g. `write branch 4fbda293`, `finish the session`; the session is named unless it is `session_id`."""
    label = "finish the session" if job.tip is None else f"write branch {short_id(job.tip)}"
    return label if job.session_id == session_id else f"{label} {sanitize_line(job.session_id)}"


def summary(result: WriteOutcome) -> str:
    """One short line for a notification."""
    if result.outcome == "ok" and result.turns:
        return f"Wrote {count(result.turns, 'turn')} into {count(len(result.files), 'topic file')}."
    return f"{result.code}: {sanitize_line(result.message)[:160]}"


def running(job: WriteJob, owed: int | None, written: int, elapsed: float, session_id: str | None) -> Content:
    frame = SPINNER[int(elapsed * 10) % len(SPINNER)]
    parts: list[str | tuple[str, str]] = [(frame + " ", "$text-accent bold"),
                                          (job_label(job, session_id).capitalize(), "bold")]
    if owed is None:
        parts.append(("  counting the pending turns…", "$muted-text"))
    elif job.tip is not None and owed:  # a forced branch write takes every pending turn: a real bar
        filled = round(BAR * written / owed)
        parts += ["  ", ("█" * filled, "$meter-fill"), ("░" * (BAR - filled), "$faint-text"),
                  f" {written}/{owed} turns"]
    else:
        parts.append(f"  {written} of {owed} pending turns written so far")
    parts.append((f"  {elapsed:.0f} s · the app stays usable meanwhile", "$muted-text"))
    return Content.assemble(*parts)


def finished(result: WriteOutcome) -> Content:
    """The outcome of a write of the session on screen: what it means first, the pipeline's message below."""
    glyph, style, note = OUTCOMES.get(result.outcome, OUTCOMES["error"])
    head = f"{job_label(result.job, result.job.session_id).capitalize()}: {result.outcome}"
    files = ""
    if result.outcome == "ok" and result.files:
        files = f" ({', '.join(sanitize_line(f) for f in result.files[:4])}{' …' if len(result.files) > 4 else ''})"
    return Content.assemble(
        (glyph + " ", style), (head, f"bold {style}"), " · ", (result.code, "bold"),
        (f"{note}  ({result.elapsed:.1f} s)", "$muted-text"), "\n  ",
        sanitize_line(result.message)[:MESSAGE_CHARS], (files, "$muted-text"),
        (f"\n  {sanitize_line(result.usage_line)}" if result.usage_line else "", "$muted-text"))


def standing_failure(failure: WriteFailure) -> Content:
    return Content.assemble(
        ("! ", "$text-error bold"), ("The last write of this session failed permanently", "bold $text-error"),
        " · ", (sanitize_line(failure.code), "bold"), " · ", (_when(failure.at), "$muted-text"), "\n  ",
        sanitize_line(failure.message)[:160],
        ("\n  Its turns stay pending: fix the cause, then write the branch (w) or finish the session (f).",
         "$muted-text"))


def _when(at: str) -> str:
    """The writer records UTC ISO times; shown in local time like every other time on screen."""
    try:
        return stamp(datetime.fromisoformat(at).timestamp())
    except ValueError:
        return sanitize_line(at)


class WriteStatus(Static):
    DEFAULT_CSS = """
    WriteStatus { height: auto; max-height: 5; padding: 0 1; background: $surface; display: none; }
    WriteStatus.-shown { display: block; }
    """

    def show(self, content: Content | None) -> None:
        """Show `content`, or hide the line (None)."""
        self.set_class(content is not None, "-shown")
        self.update(content if content is not None else "")

    @property
    def plain(self) -> str:
        return str(self.content) if self.has_class("-shown") else ""
