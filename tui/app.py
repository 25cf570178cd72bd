"""The Scriptorium terminal app: screens switched by number keys, one state directory.

`scriptorium` with no command (and `scriptorium demo`) calls `run_app`. Each
screen reads and changes the engine only through its feature's model
(`tui/<feature>/model.py`, no Textual), in worker threads; the app never imports
litellm (nothing it shows needs a model).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.notifications import SeverityLevel
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from scriptorium.core.config import load_config, set_config_value
from scriptorium.core.sanitize import sanitize
from scriptorium.themes import DARK_NAME, DEFAULT_THEME, LIGHT_NAME, THEMES, VARIABLE_DEFAULTS, for_256_colours

from .live import LiveUpdates
from .common.help import HelpScreen
from .sessions.screen import SessionsScreen

if TYPE_CHECKING:
    from textual.command import Provider

    from .sessions.model import SessionListing

THEME_KEY = "tui.theme"
NARROW = 110  # columns: narrower is the -narrow layout


def _core_screen() -> Screen:
    from .core.screen import CoreScreen

    return CoreScreen()


def _topics_screen() -> Screen:
    from .topics.screen import TopicsScreen

    return TopicsScreen()


def _search_screen() -> Screen:
    from .search.screen import SearchScreen

    return SearchScreen()


def _sleep_screen() -> Screen:
    from .sleep.screen import SleepScreen

    return SleepScreen()


def _history_screen() -> Screen:
    from .history.screen import HistoryScreen

    return HistoryScreen()


def _project_screen() -> Screen:
    from .project.screen import ProjectScreen

    return ProjectScreen()


def _sync_screen() -> Screen:
    from .sync.screen import SyncScreen

    return SyncScreen()


def _agents_screen() -> Screen:
    from .agents.screen import AgentsScreen

    return AgentsScreen()


def _session_commands() -> type[Provider]:
    from .commands import SessionCommands

    return SessionCommands


# (mode, title, screen factory) in number-key order. The first screen is imported with the
# app; the others, like the command palette, when first used, so the first paint is sooner.
SCREENS: list[tuple[str, str, Callable[[], Screen]]] = [
    ("sessions", "Sessions", SessionsScreen),
    ("core", "Core", _core_screen),
    ("topics", "Topics", _topics_screen),
    ("search", "Search", _search_screen),
    ("sleep", "Sleep", _sleep_screen),
    ("history", "History", _history_screen),
    ("project", "Project memory", _project_screen),
    ("sync", "Sync", _sync_screen),
    ("agents", "Agents", _agents_screen),
]


class ScriptoriumApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "Scriptorium"
    COMMANDS = App.COMMANDS | {_session_commands}
    MODES = {mode: screen for mode, _, screen in SCREENS}
    # Below NARROW columns (an 80×24 terminal) every screen has the class -narrow: panels
    # collapse, stack or toggle (each screen's .tcss), the top bar and the footer go compact.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]
    DEFAULT_MODE = SCREENS[0][0]

    BINDINGS = [
        *(Binding(str(n), f"switch_mode('{mode}')", title, show=False)
          for n, (mode, title, _) in enumerate(SCREENS, start=1)),
        Binding("question_mark", "help", "Help"),
        Binding("t", "toggle_theme", "Light / dark"),
        Binding("q", "quit", "Quit"),
        # An input keeps printable keys; Esc or ↓ hands the keyboard back to the screen
        # (number keys, q, ?), and / returns to the screen's input.
        Binding("escape,down", "leave_input", "Leave the input", show=False),
        Binding("slash", "focus_input", "Type in the input", show=False),
    ]

    def __init__(self, state_dir: str | Path, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.session_listing: SessionListing | None = None
        self.live = LiveUpdates(self.state_dir)  # screens subscribe to files changed on disk
        self.quit_guards: list[Callable[[], bool]] = []  # "may the app quit now?" (a screen with a draft asks)
        for theme in THEMES:
            self.register_theme(theme)
        configured = load_config(self.state_dir).get(THEME_KEY, DEFAULT_THEME)
        self._saved_theme = configured if configured in self.available_themes else DEFAULT_THEME
        self.theme = self._saved_theme

    def on_mount(self) -> None:
        self.call_after_refresh(self.live.start)  # after the first paint

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast of every screen passes here (Widget.notify calls it): message and
        title go through the sanitizer, so a name or an error quoting one (a topic file's
        name, a path, a model's words) cannot put an escape sequence on the terminal."""
        super().notify(sanitize(str(message)), title=sanitize(str(title)), severity=severity, timeout=timeout,
                       markup=markup)

    def on_unmount(self) -> None:
        self.live.stop()

    async def action_quit(self) -> None:
        """Quit, unless a screen holds work the user has not decided about yet."""
        if all(guard() for guard in list(self.quit_guards)):
            self.exit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_input":
            return isinstance(self.focused, Input)
        if action == "focus_input":
            return self._screen_input() is not None
        return True

    def _screen_input(self) -> Input | None:
        inputs = [w for w in self.screen.query(Input) if w.focusable and w.display]
        return inputs[0] if inputs else None

    def action_leave_input(self) -> None:
        """Move to the next widget that is not an input, or to none (the screen's keys)."""
        screen = self.screen
        widgets = screen.focus_chain
        start = widgets.index(self.focused) if self.focused in widgets else -1
        for widget in widgets[start + 1:] + widgets[:start]:
            if not isinstance(widget, Input):
                widget.focus()
                return
        screen.set_focus(None)

    def action_focus_input(self) -> None:
        if (field := self._screen_input()) is not None:
            field.focus()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def get_css_variables(self) -> dict[str, str]:
        """The theme's colours; on a 256-colour terminal its greys as that terminal's greys
        (Rich would send the warm ones to olive, pink or yellow: `for_256_colours`)."""
        variables = super().get_css_variables()
        if self.console.color_system == "256":
            variables = self.theme_variables = for_256_colours(variables)
        return variables

    def screen_titles(self) -> list[tuple[str, str]]:
        return [(mode, title) for mode, title, _ in SCREENS]

    def watch_theme(self, name: str) -> None:
        """Remember a theme the user picked (by key or from the palette) in config.toml."""
        if name == self._saved_theme:
            return
        try:
            set_config_value(self.state_dir, THEME_KEY, name)
        except (OSError, ValueError) as exc:
            self.notify(f"Theme not saved: {exc}", severity="warning", markup=False)
            return
        self._saved_theme = name

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT_NAME if self.theme == DARK_NAME else DARK_NAME

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            # Screens built only to read their bindings: cheap, and never mounted. The screen
            # the user is on comes first.
            current = self.current_mode
            screens = [(mode, title, factory()) for mode, title, factory in SCREENS]
            screens.sort(key=lambda item: item[0] != current)
            self.push_screen(HelpScreen(screens))

    async def open_session(self, session_id: str) -> None:
        await self.switch_mode("sessions")
        screen = self.screen
        if isinstance(screen, SessionsScreen):
            screen.show_session(session_id)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own commands, every screen by name, every key binding in reach (app,
        screen, focused widget), and every other screen's actions as "Screen: action" —
        so each action of the app can be found by name from anywhere."""
        builtin = list(super().get_system_commands(screen))
        yield from builtin
        titles = {command.title for command in builtin}
        for number, (mode, title, _) in enumerate(SCREENS, start=1):
            yield SystemCommand(f"{title} screen", f"Switch to the {title} screen  ( {number} )",
                                partial(self.switch_mode, mode))
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.show or not binding.description or binding.description in titles:
                continue
            titles.add(binding.description)
            yield SystemCommand(binding.description, f"key: {self.get_key_display(binding)}",
                                partial(self.run_action, binding.action, active.node))
        for binding in screen.BINDINGS:  # the screen's actions not offered right now say why when run
            if isinstance(binding, Binding) and binding.show and binding.description not in titles:
                titles.add(binding.description)
                yield SystemCommand(binding.description, f"key: {self.get_key_display(binding)}",
                                    partial(self.run_action, binding.action, screen))
        for number, (mode, title, factory) in enumerate(SCREENS, start=1):
            if mode == self.current_mode:
                continue
            for binding in factory().BINDINGS:
                if isinstance(binding, Binding) and binding.show and binding.description:
                    yield SystemCommand(f"{title}: {binding.description}",
                                        f"on the {title} screen ( {number} ), key: {self.get_key_display(binding)}",
                                        partial(self.run_on_screen, mode, binding.action))

    async def run_on_screen(self, mode: str, action: str) -> None:
        """Switch to screen `mode`, then run one of its actions there (from the palette)."""
        await self.switch_mode(mode)
        await self.run_action(action, self.screen)


def run_app(state_dir: str | Path) -> int:
    """Run the app on `state_dir` until the user quits; the process exit code."""
    app = ScriptoriumApp(state_dir)
    app.run()
    return app.return_code or 0
