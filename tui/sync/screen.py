"""Sync: memory against its remote, and the conflicts a person settles (DESIGN §17).

`s` syncs now, `a` adds a remote; on a selected conflict `l` keeps the local text, `n` the incoming one,
`b` both (two blocks), `e` replaces both with your text. Every choice goes through the
transaction, so a rejected resolution changes nothing.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from scriptorium.core.sanitize import sanitize_line
from scriptorium.core.wording import count

from ..common.messages import DiskChanged
from ..common.screen_tabs import ScreenTabs
from ..common.text_panel import TextPanel
from ..common.word_diff import word_diff
from .dialogs import AddRemoteDialog, EditDialog
from .messages import SyncFinished, SyncStatusLoaded
from .model import SyncConflict, SyncStatus, add_remote, load_status, resolve, sync_now


def _state_text(status: SyncStatus) -> Content:
    if not status.remotes:
        return Content.assemble(("No remote. ", "bold"), (
            "Memory stays on this machine. Add one with a (or `scriptorium remote add origin URL`): "
            "any git host, or a bare repository on a shared drive.", "$muted-text"))
    lines = []
    for r in status.remotes:
        where = ("never fetched", "$muted-text") if r.ahead is None else (
            f"{r.ahead} ahead · {r.behind} behind", "$node-pending" if r.ahead or r.behind else "$node-written")
        lines.append(Content.assemble((r.name, "bold"), "  ", (sanitize_line(r.url), "$muted-text"), "  ", where))
    last = status.last
    if last:
        style = "$node-written" if last.get("outcome") == "ok" else "$node-rewound"
        lines.append(Content.assemble("last sync ", (sanitize_line(str(last.get("at", "?"))), "bold"), " · ",
                                      (sanitize_line(str(last.get("code", ""))), style), " · ",
                                      sanitize_line(str(last.get("message", "")))))
    else:
        lines.append(Content.styled("not synced yet · s syncs now", "$muted-text"))
    return Content("\n").join(lines)


class SyncScreen(Screen):
    CSS_PATH = "sync.tcss"

    BINDINGS = [
        Binding("s", "sync", "Sync now"),
        Binding("a", "add_remote", "Add remote"),
        Binding("l", "keep('local')", "Keep local"),
        Binding("n", "keep('incoming')", "Keep incoming"),
        Binding("b", "keep('both')", "Keep both"),
        Binding("e", "edit", "Edit"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.status: SyncStatus | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        yield ScreenTabs("sync")
        yield Static(id="sync-state", markup=False)
        with Horizontal(id="sync-conflicts"):
            yield OptionList(id="conflict-list")
            yield TextPanel(id="local")
            yield TextPanel(id="incoming")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sync-state").border_title = "Remote"
        self.query_one("#conflict-list").border_title = "Conflicts"
        self.query_one("#local").border_title = "Local version"
        self.query_one("#incoming").border_title = "Incoming version"
        self.query_one("#sync-state", Static).update(Content.styled("Reading…", "$muted-text"))
        self.app.live.subscribe(self)
        self.load()

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)

    def on_disk_changed(self, message: DiskChanged) -> None:
        if message.topics or message.memory:
            self.load()

    @work(thread=True, exclusive=True, group="sync-load")
    def load(self) -> None:
        self.post_message(SyncStatusLoaded(load_status(self.app.state_dir)))

    def on_sync_status_loaded(self, message: SyncStatusLoaded) -> None:
        self.status = message.status
        self.query_one("#sync-state", Static).update(_state_text(message.status))
        options = self.query_one("#conflict-list", OptionList)
        keep = options.highlighted
        options.clear_options()
        for c in message.status.conflicts:
            options.add_option(Option(Content.assemble((f"^{c.block_id}", "$node-pending"), " ",
                                                       sanitize_line(c.topic)), id=c.block_id))
        if message.status.conflicts:
            options.highlighted = min(keep or 0, len(message.status.conflicts) - 1)
        self._show(self._selected())

    def _selected(self) -> SyncConflict | None:
        if self.status is None or not self.status.conflicts:
            return None
        index = self.query_one("#conflict-list", OptionList).highlighted
        return self.status.conflicts[index] if index is not None else None

    def _show(self, conflict: SyncConflict | None) -> None:
        """Both texts of the highlighted conflict, the words that differ lit."""
        local, incoming = self.query_one("#local", TextPanel), self.query_one("#incoming", TextPanel)
        if conflict is None:
            none = "No conflict is waiting." if self.status and self.status.remotes else "—"
            local.show_body(None, none)
            incoming.show_body(None, "")
            return
        ours, theirs = word_diff(conflict.local, conflict.incoming)
        local.show_body(ours, "")
        incoming.show_body(theirs, f"from {conflict.remote}")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(self._selected())

    def action_reload(self) -> None:
        self.load()

    def action_sync(self) -> None:
        if self.status is not None and not self.status.remotes:
            self.notify("No remote set: scriptorium remote add origin URL", severity="warning", markup=False)
            return
        if self.busy:
            return
        self.busy = True
        self.query_one("#sync-state", Static).update(Content.styled("Syncing…", "$muted-text"))
        self._sync()

    @work(thread=True, exclusive=True, group="sync-run")
    def _sync(self) -> None:
        result = sync_now(self.app.state_dir)
        conflicts = f"; {count(len(result.conflicts), 'conflict')} to settle" if result.conflicts else ""
        self.post_message(SyncFinished(f"{result.message}{conflicts}", result.outcome != "ok", result))

    def action_add_remote(self) -> None:
        """The add-remote dialog; the engine refuses a bad name or a path that does not exist."""
        def added(name: str | None) -> None:
            if name:
                self.notify(f"Added remote {name}: s syncs with it now.", markup=False)
                self.load()

        self.app.push_screen(AddRemoteDialog(lambda name, url: add_remote(self.app.state_dir, name, url)), added)

    def action_keep(self, which: str) -> None:
        conflict = self._selected()
        if conflict is None or self.busy:
            return
        self.busy = True
        self._resolve(conflict.block_id, which, None)

    def action_edit(self) -> None:
        conflict = self._selected()
        if conflict is None or self.busy:
            return

        def done(text: str | None) -> None:
            if text:
                self.busy = True
                self._resolve(conflict.block_id, None, text)

        self.app.push_screen(EditDialog(conflict), done)

    @work(thread=True, exclusive=True, group="sync-run")
    def _resolve(self, block_id: str, keep: str | None, text: str | None) -> None:
        try:
            result = resolve(self.app.state_dir, block_id, keep=keep, text=text)
        except Exception as exc:  # a busy lock, a conflict settled elsewhere meanwhile
            self.post_message(SyncFinished(f"Not settled: {exc}", True))
            return
        if result.outcome == "installed":
            self.post_message(SyncFinished(f"Settled ^{block_id}", False, result))
        else:
            first = result.diagnostics[0].message if result.diagnostics else result.outcome
            self.post_message(SyncFinished(f"Rejected, nothing changed: {first}", True, result))

    def on_sync_finished(self, message: SyncFinished) -> None:
        self.busy = False
        self.notify(sanitize_line(message.text), severity="error" if message.error else "information", markup=False)
        self.load()
