"""Textual's Footer, rebuilt only when the keys it shows change.

The footer recomposes (every key a new widget, restyled) each time the screen announces
that its bindings changed, whether or not they did; a screen opening announces it three
times before its first frame (stack, focus, focus again after a refresh). Here a burst of
announcements shares one look at the bindings, and the keys are rebuilt only if what
they would show differs from what they show.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    _rebuild_pending = False
    _shown: tuple | None = None  # what the keys were last built from

    def on_resize(self) -> None:
        self.compact = self.size.width < 110  # an 80-column footer keeps more of its keys

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_after_refresh(self._rebuild)

    def _bindings_shown(self) -> tuple:
        return tuple((binding.key, binding.action, binding.description, binding.key_display, binding.group,
                      enabled, tooltip)
                     for _node, binding, enabled, tooltip in self.screen.active_bindings.values() if binding.show)

    async def _rebuild(self) -> None:
        self._rebuild_pending = False
        if not self.is_attached:
            return
        shown = self._bindings_shown()
        if shown != self._shown:
            self._shown = shown
            await self.recompose()
