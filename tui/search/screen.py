"""Search: hybrid search (words and meaning) over the topic blocks, as the agent's recall sees them; enter opens a block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scriptorium.core.sanitize import sanitize_line
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static
from textual.worker import get_current_worker

from .messages import SearchFinished
from ..common.messages import DiskChanged
from ..common.screen_tabs import ScreenTabs
from . import model
from .search_hits import SearchHits

if TYPE_CHECKING:
    from scriptorium.core.search import Hit


TYPE_HINT = ("/ types a query (esc or ↓ leaves it); enter moves to the hits, enter on a hit opens it in "
             "Topics.")


class SearchScreen(Screen):
    CSS_PATH = "search.tcss"
    AUTO_FOCUS = "#hits"  # not the query: number keys keep switching screens until / is pressed

    BINDINGS = [
        Binding("slash", "focus_query", "Search", show=False),
        Binding("ctrl+f", "focus_query", "Search"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield ScreenTabs("search")
        with Vertical(id="search-body"):
            yield Input(placeholder="Search memory by words and meaning — English or 中文", id="query")
            yield Static(id="search-status", markup=False)
            yield SearchHits(id="hits")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#hits").border_title = "Hits"
        self._status(Content.styled(TYPE_HINT, "$muted-text"))
        self.app.live.subscribe(self)

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)

    def _status(self, content: Content) -> None:
        self.query_one("#search-status", Static).update(content)

    def search(self, query: str) -> None:
        """Run `query` (as if typed) — also how other screens and tests start a search."""
        field = self.query_one(Input)
        if field.value != query:
            field.value = query  # Input.Changed runs it
        else:
            self._run(query)

    def _run(self, query: str) -> None:
        self.query_text = query
        if not query.strip():
            self.query_one(SearchHits).show([], "")
            self._status(Content.styled(TYPE_HINT, "$muted-text"))
            return
        self.run_search(query)

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, query: str) -> None:
        hits, error = model.search(self.app.state_dir, query)
        if not get_current_worker().is_cancelled:
            self.post_message(SearchFinished(query, hits, error))

    def on_search_finished(self, message: SearchFinished) -> None:
        if message.query != self.query_text:
            return
        hits = self.query_one(SearchHits)
        hits.show(message.hits, message.query)
        if message.error:
            self._status(Content.styled(message.error, "$text-warning"))
        elif not message.hits:
            self._status(Content.assemble("No block matches ", (sanitize_line(message.query), "bold"), "."))
        else:
            count = len(message.hits)
            self._status(Content.assemble(
                (f"{count} hit{'s' if count != 1 else ''}", "bold"), " for ", (sanitize_line(message.query), "bold"),
                ("  · rank score · block id · file:line", "$muted-text"),
                ("   enter opens the block in Topics", "$muted-text")))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._run(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        hits = self.query_one(SearchHits)
        if hits.hits:
            hits.focus()
            hits.highlighted = 0

    def action_focus_query(self) -> None:
        self.query_one(Input).focus()

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        hit = self.query_one(SearchHits).hit_for(event.option)
        if hit is not None:
            await self.open_hit(hit)

    async def open_hit(self, hit: Hit) -> None:
        """Show `hit` in the Topics screen, at its block."""
        from ..topics.screen import TopicsScreen

        if hit.kind != "block":
            return
        await self.app.switch_mode("topics")
        screen = self.app.screen
        if isinstance(screen, TopicsScreen):
            screen.open_topic(hit.path.removeprefix("topics/"), block_id=hit.block_id)

    def on_disk_changed(self, message: DiskChanged) -> None:
        if (message.topics or message.memory) and self.query_text.strip():
            self.run_search(self.query_text)
