"""The end-of-turn nudge: an owed flag, delivered with the next step, never a new turn.

When a turn that did real work ends without any memory written, nothing is sent at
once (that would either extend the turn or start a new one, and the reminder's reply
would become the turn's last message). A flag is set instead, and the short reminder
rides along with the user's next message, where the model decides whether to write.
Guards: a cooldown between reminders, a cap per session, and a successful write resets
the count.
"""

from __future__ import annotations

from dataclasses import dataclass

from .settings import TrilogySettings


@dataclass
class Nudge:
    settings: TrilogySettings
    owed: bool = False
    delivered: int = 0
    last_delivered_at: float | None = None

    def turn_ended(self, *, did_work: bool, wrote: bool, now: float) -> bool:
        """Record the end of a turn; True if a reminder is now owed."""
        if wrote:
            self.wrote()
            return False
        if not (self.settings.nudgeOnTurnEnd and did_work) or self.owed:
            return self.owed
        if self.delivered >= self.settings.nudgeMaxPerSession:
            return False
        cooldown = self.settings.nudgeCooldownMs / 1000
        if self.last_delivered_at is not None and now - self.last_delivered_at < cooldown:
            return False
        self.owed = True
        return True

    def take(self, now: float) -> bool:
        """At the next step: True (once) if the reminder is to be delivered now."""
        if not self.owed:
            return False
        self.owed = False
        self.delivered += 1
        self.last_delivered_at = now
        return True

    def wrote(self) -> None:
        """A successful memory write: nothing is owed and the per-session count starts over."""
        self.owed = False
        self.delivered = 0
