"""The top bar: the app's screens by number key, the current one lit, and the workspace."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class ScreenTabs(Static):
    """Clickable tabs; the numbers are the keys that switch screens."""

    DEFAULT_CSS = """
    ScreenTabs { height: 1; background: $panel; padding: 0 1; text-wrap: nowrap; }
    """

    def __init__(self, current: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.current = current

    _narrow: bool | None = None

    def on_resize(self) -> None:
        """Under 110 columns, compact: no name, short titles, no padding — all nine fit in 80."""
        narrow = self.size.width < 110
        if narrow != self._narrow:
            self._narrow = narrow
            self.refresh_tabs()

    def refresh_tabs(self) -> None:
        narrow = bool(self._narrow)
        tabs = [] if narrow else [Content.styled(" Scriptorium ", "bold $text-primary")]
        for number, (mode, title) in enumerate(self.app.screen_titles(), start=1):
            label = f"{number} {title.split()[0]}" if narrow else f" {number} {title} "
            if mode == self.current:
                tabs.append(Content.styled(label, "bold reverse $text-primary"))
            else:
                tabs.append(Content.from_markup(f"[@click=app.switch_mode('{mode}')]$label[/]", label=label))
            tabs.append(Content(" "))
        self.update(Content("").join(tabs[:-1]))
