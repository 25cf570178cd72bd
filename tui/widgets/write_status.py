"""One line above the detail pane: a write in progress, how the last one ended, or the
session's standing permanent failure. Hidden when there is nothing to say."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line

from ..session_model import WriteFailure, short_id
from ..write_run import WriteJob, WriteOutcome

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
BAR = 20
MESSAGE_CHARS = 300

# outcome -> (glyph, style, what it means for the turns)
OUTCOMES = {
    "ok": ("●", "$node-written", ""),
    "retryable": ("↻", "$text-warning", " — nothing marked; it heals by itself, try again later"),
    "permanent": ("✗", "$text-error", " — nothing marked; retrying gives the same answer"),
    "error": ("✗", "$text-error", " — the write stopped unexpectedly; nothing marked"),
}


def job_label(job: WriteJob, session_id: str | None = None) -> str:
    """"write branch 4fbda293" / "finish the session", naming the session unless it is `session_id`."""
    label = "finish the session" if job.tip is None else f"write branch {short_id(job.tip)}"
    return label if job.session_id == session_id else f"{label} {sanitize_line(job.session_id)}"


def summary(result: WriteOutcome) -> str:
    """One short line for a notification."""
    if result.outcome == "ok" and result.turns:
        return f"Wrote {result.turns} turn(s) into {len(result.files)} topic file(s)."
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
    """The outcome of a write of the session on screen."""
    glyph, style, note = OUTCOMES.get(result.outcome, OUTCOMES["error"])
    head = f"{job_label(result.job, result.job.session_id).capitalize()}: {result.outcome}"
    message = sanitize_line(result.message)[:MESSAGE_CHARS]
    parts: list[str | tuple[str, str]] = [(glyph + " ", style), (head, f"bold {style}"), " · ", (result.code, "bold"),
                                          " — ", message]
    if result.outcome == "ok" and result.files:
        parts.append((f" ({', '.join(sanitize_line(f) for f in result.files[:4])}"
                      f"{' …' if len(result.files) > 4 else ''})", "$muted-text"))
    parts.append((f"{note}  ({result.elapsed:.1f} s)", "$muted-text"))
    return Content.assemble(*parts)


def standing_failure(failure: WriteFailure) -> Content:
    return Content.assemble(
        ("! ", "$text-error bold"), ("The last write of this session failed permanently", "bold $text-error"),
        " · ", (sanitize_line(failure.code), "bold"), " · ", (sanitize_line(failure.at), "$muted-text"), "\n  ",
        sanitize_line(failure.message)[:MESSAGE_CHARS],
        ("\n  Its turns stay pending; fix the cause, then write the branch (w) or finish the session (f).",
         "$muted-text"))


class WriteStatus(Static):
    DEFAULT_CSS = """
    WriteStatus { height: auto; max-height: 4; padding: 0 1; background: $surface; display: none; }
    WriteStatus.-shown { display: block; }
    """

    def show(self, content: Content | None) -> None:
        """Show `content`, or hide the line (None)."""
        self.set_class(content is not None, "-shown")
        self.update(content if content is not None else "")

    @property
    def plain(self) -> str:
        return str(self.content) if self.has_class("-shown") else ""
