"""Command palette provider: jump to a session by its title."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from scriptorium.core.sanitize import sanitize_line


class SessionCommands(Provider):
    """Every listed session as "Open session: <title>"."""

    def _sessions(self) -> list[tuple[str, str]]:
        listing = getattr(self.app, "session_listing", None)
        if listing is None:
            return []
        return [(row.id, f"Open session: {sanitize_line(row.title or row.id)[:80]}") for row in listing.rows]

    async def discover(self) -> Hits:
        for session_id, title in self._sessions()[:10]:
            yield DiscoveryHit(title, partial(self.app.open_session, session_id), help=session_id)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for session_id, title in self._sessions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self.app.open_session, session_id), help=session_id)
