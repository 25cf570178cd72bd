"""Core: what the always-on core actually injects (the session-start hook's text), against its
token budget."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from scriptorium.core.sanitize import sanitize_line

from .model import CoreView, load_core, set_inject
from .messages import CoreLoaded
from ..common.messages import DiskChanged
from ..common.screen_tabs import ScreenTabs
from ..common.text_panel import TextPanel
from .token_meter import TokenMeter


def _left_out(view: CoreView) -> Content:
    if not view.left_out:
        return Content.styled("Every block of the canonical core fits in the budget.", "$node-written")
    lines = [Content.assemble((f"{len(view.left_out)} blocks left out", "bold"),
                              (" — still in topics/core.md and searchable; move a block up to keep it in view",
                               "$muted-text"))]
    for item in view.left_out:
        lines.append(Content.assemble(("  ^" + item.block_id.ljust(10), "$node-pending"),
                                      sanitize_line(item.first_words) + " …"))
    return Content("\n").join(lines)


class CoreScreen(Screen):
    CSS_PATH = "core.tcss"

    BINDINGS = [
        Binding("i", "toggle_inject", "Injection on/off"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: CoreView | None = None

    def compose(self) -> ComposeResult:
        yield ScreenTabs("core")
        with Vertical(id="core-body"):
            yield TokenMeter(id="meter")
            yield Static(id="inject-state")
            with Horizontal(id="columns"):
                yield TextPanel(id="canonical")
                yield TextPanel(id="rendered")
                yield TextPanel(id="effective")
            with VerticalScroll(id="left-out"):
                yield Static(id="left-out-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#canonical").border_title = "Canonical · topics/core.md"
        self.query_one("#rendered").border_title = "Rendered · core.md"
        self.query_one("#effective").border_title = "Injected at session start"
        self.query_one("#meter").border_title = "Token budget"
        self.query_one("#inject-state", Static).update(Content.styled("Reading the core…", "$muted-text"))
        self.app.live.subscribe(self)
        self.load()

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)

    def on_disk_changed(self, message: DiskChanged) -> None:
        """A write, an edit or a sleep changed memory: the core may have changed with it."""
        if message.topics or message.memory:
            self.load()

    @work(thread=True, exclusive=True, group="core")
    def load(self) -> None:
        view = load_core(self.app.state_dir)
        if not get_current_worker().is_cancelled:
            self.post_message(CoreLoaded(view))

    def on_core_loaded(self, message: CoreLoaded) -> None:
        view = self.view = message.view
        injected = view.effective_tokens if view.status.inject else None
        self.query_one(TokenMeter).show(view.status.rendered_tokens, view.status.canonical_tokens, view.status.budget,
                                        injected)
        state = ("on", "$node-written bold") if view.status.inject else ("off", "$node-rewound bold")
        self.query_one("#inject-state", Static).update(Content.assemble(
            "injection ", state, f" · agents get {view.effective_tokens:,} tokens at session start",
            ("   i toggles", "$muted-text")))
        if not view.exists:
            self.query_one("#canonical", TextPanel).show("", "No canonical core yet: the first write creates "
                                                             "topics/core.md, or write it by hand with "
                                                             "`scriptorium topic save core.md --from FILE`.")
        else:
            self.query_one("#canonical", TextPanel).show(view.canonical, "topics/core.md is empty.")
        self.query_one("#rendered", TextPanel).show(view.rendered, "Nothing rendered.")
        off = "Injection is off: nothing is injected." if not view.status.inject else "Nothing to inject."
        self.query_one("#effective", TextPanel).show(view.effective, off)
        self.query_one("#left-out-list", Static).update(_left_out(view))

    def action_toggle_inject(self) -> None:
        if self.view is None:
            return
        try:
            set_inject(self.app.state_dir, not self.view.status.inject)
        except (OSError, ValueError) as exc:
            self.notify(f"Injection setting not saved: {exc}", severity="error", markup=False)
            return
        self.load()

    def action_reload(self) -> None:
        self.load()
