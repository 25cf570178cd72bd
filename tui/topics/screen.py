"""Topics: read and hand-edit memory without ever breaking it.

Every save goes through the workspace transaction in a worker. A rejection leaves the
disk untouched and the draft in the editor; its diagnostics are listed beside the
editor, the offending lines are marked and the cursor jumps to the first one. The
inspector follows the block under the cursor (or selected in the rendered view).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING

from scriptorium.core.sanitize import sanitize_line
from scriptorium.core.wording import count
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Static, TextArea
from textual.worker import get_current_worker

from .editing import TopicEditing
from .messages import BlockInspected, TopicChanged, TopicRead, TopicsListed
from ..common.messages import DiskChanged
from .model import (
    TopicListing,
    block_paragraph,
    first_words,
    inspect_block,
    list_topics,
    name_problem,
    paragraph_at,
    parse,
    read_topic,
    retire,
    save,
)
from .block_inspector import BlockInspector
from ..common.diagnostics_panel import DiagnosticsPanel
from ..common.screen_tabs import ScreenTabs
from .topic_editor import TopicEditor
from .topic_tree import TopicTree
from .topic_view import BlockCard, TopicView
from .dialogs import RetireDialog, SourceDialog, conflict_choice, unsaved_choice

if TYPE_CHECKING:
    from scriptorium.core.memory import Diagnostic, TopicDoc, TransactionResult
    from scriptorium.core.memory.topics import Paragraph

class TopicsScreen(Screen):
    CSS_PATH = "topics.tcss"

    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("e", "edit", "Edit"),
        Binding("escape", "view", "Rendered view"),
        Binding("ctrl+o", "open_sources", "Open cited records"),
        Binding("x", "retire", "Retire block"),
        Binding("f8", "next_problem", "Next problem"),
        Binding("r", "reload", "Reload"),
        Binding("b", "toggle_side", "Block panel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.listing: TopicListing | None = None
        self.editing_state = TopicEditing()  # the open topic, its text on disk, and the decisions about a draft
        self.inspected: tuple[str, int, str] | None = None  # the block the inspector shows (or is reading)
        self._next_inspection: tuple[tuple[str, int, str], TopicDoc, Paragraph] | None = None
        self._inspecting = False
        self.requested: str | None = None  # the topic being read, until it is shown
        self.focus_on_read = False  # move the focus to the topic once it is shown

    # --- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Kept as attributes: a large topic puts hundreds of blocks in the DOM, and
        # every event here would otherwise search it for these widgets.
        self.topic_tree = TopicTree(id="topic-tree")
        self.header = Static(id="topic-header", markup=False)
        self.modes = ContentSwitcher(initial="view", id="modes")
        self.view = TopicView(id="view")
        self.editor = TopicEditor(id="editor")
        self.problems = DiagnosticsPanel(id="diagnostics")
        self.inspector_scroll = VerticalScroll(id="inspector-scroll")
        self.inspector = BlockInspector(id="inspector")
        yield ScreenTabs("topics")
        with Horizontal(id="topics-body"):
            yield self.topic_tree
            with Vertical(id="center"):
                yield self.header
                with self.modes:
                    yield self.view
                    yield self.editor
            with Vertical(id="side"):
                yield self.problems
                with self.inspector_scroll:
                    yield self.inspector
        yield Footer()

    @property
    def editing(self) -> bool:
        return self.modes.current == "editor"

    @property
    def path(self) -> str | None:
        """The open topic, relative to topics/."""
        return self.editing_state.path

    @property
    def dirty(self) -> bool:
        return self.editing_state.dirty(self.editor.text)

    def on_mount(self) -> None:
        self.topic_tree.border_title = "Topics"
        self.problems.border_title = "Rejected"
        self.inspector_scroll.border_title = "Block"
        self.inspector.show(None, "Select a block to see its citations, backlinks and history.")
        self._header()
        self.app.live.subscribe(self)
        self.app.quit_guards.append(self.may_quit)
        self.load_listing()

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)
        if self.may_quit in self.app.quit_guards:
            self.app.quit_guards.remove(self.may_quit)

    def _header(self) -> None:
        header = self.header
        if self.path is None:
            listing = self.listing
            note = ("Reading topics…" if listing is None else
                    "No topics yet: the writer creates them from sessions, or write one with "
                    "`scriptorium topic save NAME.md --from FILE`." if not listing.topics else
                    "Choose a topic on the left.")
            header.update(Content.styled(note, "$muted-text"))
            return
        doc = parse(self.path, self.editor.text)
        parts: list[tuple[str, str] | str] = [(f"topics/{sanitize_line(self.path)}", "bold")]
        state = self.editing_state
        if state.saving:
            parts.append(("  saving…", "$text-warning"))
        elif self.dirty:
            parts.append(("  ● unsaved", "bold $text-warning"))
        if state.changed_on_disk:
            parts.append(("  ⚠ changed on disk", "bold $text-error"))
        if state.diagnostics:
            parts.append((f"  ✗ {count(len(state.diagnostics), 'problem')}", "bold $text-error"))
        parts += [(f"  {count(len(doc.blocks), 'block')}", "$muted-text"),
                  ("  editing" if self.editing else "", "$text-accent")]
        header.update(Content.assemble(*parts))

    # --- reading (workers) ----------------------------------------------------------

    @work(thread=True, exclusive=True, group="topics-list")
    def load_listing(self) -> None:
        listing = list_topics(self.app.state_dir)
        if not get_current_worker().is_cancelled:
            self.post_message(TopicsListed(listing))

    @work(thread=True, exclusive=True, group="topic-read")
    def _read(self, path: str, line: int | None, block_id: str | None) -> None:
        text = read_topic(self.app.state_dir, path)
        if text is not None and block_id is not None:
            paragraph = block_paragraph(parse(path, text), block_id)
            line = paragraph.line if paragraph is not None else line
        if not get_current_worker().is_cancelled:
            self.post_message(TopicRead(path, text, line))

    @work(thread=True, group="inspect")
    def _inspect(self, key: tuple[str, int, str], doc: TopicDoc, paragraph: Paragraph) -> None:
        """One inspection at a time (git runs here); the screen asks for the latest block next."""
        backlinks = self.listing.backlinks if self.listing is not None else {}
        inspection, error = inspect_block(self.app.state_dir, doc, paragraph, backlinks)
        self.post_message(BlockInspected(key, inspection, error))

    def on_topics_listed(self, message: TopicsListed) -> None:
        skipped = message.listing.skipped
        if skipped and (self.listing is None or self.listing.skipped != skipped):  # said once, not on every reload
            shown = "; ".join(sanitize_line(s) for s in skipped[:3]) + ("; …" if len(skipped) > 3 else "")
            self.notify(f"{count(len(skipped), 'file')} skipped for their names (rename to read them): {shown}",
                        title="Topics skipped", severity="warning", markup=False)
        self.topic_tree.border_subtitle = f"{len(skipped)} skipped" if skipped else ""
        self.listing = message.listing
        self.topic_tree.show(message.listing, self.path)
        if self.path is None and self.requested is None and message.listing.topics:
            first = next((t for t in message.listing.topics if t.is_core), message.listing.topics[0])
            self.open_topic(first.path)
        self._header()

    # --- opening ---------------------------------------------------------------

    def open_topic(self, path: str, *, line: int | None = None, block_id: str | None = None) -> None:
        """Show `path` (at `line` or at block `block_id`); a draft of another topic is not dropped silently."""
        if problem := name_problem(path):  # a link can name anything: not a topic, so nothing to open or create
            self.notify(f"topics/{sanitize_line(path)} is not a topic memory reads: {problem}.", severity="warning",
                        markup=False)
            return
        jump = line is not None or block_id is not None  # from a search hit or a link: look at the block
        decision = self.editing_state.open(path, self.editor.text, jump=jump)
        if decision == "go-to":
            target = line
            if block_id is not None and (p := block_paragraph(parse(path, self.editor.text), block_id)):
                target = p.line
            self._go_to(target or 1)
        elif decision == "ask":
            self.ask_unsaved("opening another topic", lambda: self._request(path, line, block_id, focus=jump))
        else:
            self._request(path, line, block_id, focus=jump)

    def _request(self, path: str, line: int | None = None, block_id: str | None = None, *,
                 focus: bool = False) -> None:
        self.requested = path
        self.focus_on_read = focus
        self._read(path, line, block_id)

    async def on_topic_read(self, message: TopicRead) -> None:
        if not self.editing_state.accepts(message.path, self.editor.text):
            return  # a draft was started meanwhile: keep it
        self.requested = None
        self.editing_state.opened(message.path, message.text)
        self.editor.load_text(message.text or "")
        self.editor.mark(set())
        await self.problems.show([], None)
        self.topic_tree.select_path(message.path)
        line = message.line
        if line is None:  # the first block, else the top
            doc = parse(message.path, message.text or "")
            line = doc.blocks[0].line if doc.blocks else 1
        self.editor.go_to_line(line)
        await self._render_view(line)
        if message.text is None:
            self.notify(f"topics/{sanitize_line(message.path)} no longer exists.", severity="warning", markup=False)
        self._header()
        self._follow_cursor(line)
        if self.focus_on_read:
            (self.editor if self.editing else self.view).focus()

    async def _render_view(self, line: int) -> None:
        doc = parse(self.path, self.editor.text) if self.path is not None else None
        await self.view.show(doc, line, "Choose a topic on the left.")

    # --- the block under the cursor ----------------------------------------------------

    def _follow_cursor(self, line: int) -> None:
        if self.path is None:
            return
        doc = parse(self.path, self.editor.text)
        paragraph = paragraph_at(doc, line - 1)
        self._inspect_paragraph(doc, paragraph)

    def _inspect_paragraph(self, doc: TopicDoc, paragraph: Paragraph | None) -> None:
        if paragraph is None:
            if self.inspected is not None:
                self.inspected = None
                self.inspector_scroll.border_title = "Block"
                self.inspector.show(None, "The cursor is not on a block (a heading, a footnote "
                                                          "definition or a blank line).")
            return
        key = (doc.path, paragraph.start, paragraph.block_id or "")
        if key == self.inspected:
            return
        self.inspected = key
        self._next_inspection = (key, doc, paragraph)
        if not self._inspecting:
            self._start_inspection()

    def _start_inspection(self) -> None:
        """Holding ↓ in a long topic asks for many blocks: only the last one is inspected."""
        if self._next_inspection is not None:
            self._inspecting = True
            self._inspect(*self._next_inspection)
            self._next_inspection = None

    def on_block_inspected(self, message: BlockInspected) -> None:
        self._inspecting = False
        if message.key == self.inspected:
            view = message.inspection
            if view is None:
                self.inspector.show(None, f"This block cannot be inspected: {sanitize_line(message.error)}")
            else:
                self.inspector.show(view)
            self.inspector_scroll.border_title = (f"Block ^{view.block_id}" if view and view.block_id else
                                                  "New paragraph" if view else "Block")
        self._start_inspection()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if self.editing:
            self._follow_cursor(event.selection.end[0] + 1)

    async def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self.editing_state.diagnostics and not self.dirty:
            # undone back to the text on disk: the rejected draft's problems are gone with it
            self.editing_state.diagnostics = []
            self.editor.mark(set())
            await self.problems.show([], None)
        self._header()
        self.refresh_bindings()

    def on_topic_view_selected(self, message: TopicView.Selected) -> None:
        if self.path is not None:
            self._inspect_paragraph(parse(self.path, self.editor.text), message.paragraph)

    # --- modes ---------------------------------------------------------------------------

    def _go_to(self, line: int) -> None:
        self.modes.current = "editor"
        self.editor.go_to_line(line)
        self.editor.focus()
        self._follow_cursor(line)
        self._header()
        self.refresh_bindings()

    def action_edit(self) -> None:
        if self.path is None:
            return
        paragraph = self.view.paragraph
        self._go_to(paragraph.line if paragraph is not None else self.editor.cursor_location[0] + 1)

    def on_topic_view_edit_at(self, message: TopicView.EditAt) -> None:
        self._go_to(message.line)

    async def action_view(self) -> None:
        if not self.editing:
            return
        line = self.editor.cursor_location[0] + 1
        self.modes.current = "view"
        await self._render_view(line)
        self.view.focus()
        self._header()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edit":
            return not self.editing
        if action == "view":
            return self.editing
        if action == "save":
            return True if self.dirty else None
        if action == "next_problem":
            return bool(self.editing_state.diagnostics)
        if action == "toggle_side":
            return self.has_class("-narrow")  # wide, both panels are always shown
        return True

    def on_resize(self) -> None:
        self.refresh_bindings()  # the breakpoint class may have changed: b comes or goes

    # --- saving ----------------------------------------------------------------------

    def action_save(self) -> None:
        state = self.editing_state
        decision = state.begin_save(self.editor.text)
        if decision == "clean":
            self.notify("Nothing to save: the editor matches the file.", markup=False)
            self._run_after_save()
        elif decision == "save" and state.path is not None:
            self._header()
            self._save(state.path, self.editor.text, state.base)

    @work(thread=True, group="save")
    def _save(self, path: str, draft: str, base: str | None) -> None:
        with self.app.live.own_change(self) as acknowledge:  # the files it installs are this screen's own
            result, error = save(self.app.state_dir, path, draft, base, acknowledge)
        self.post_message(TopicChanged(path, draft, result, error, "save"))

    @work(thread=True, group="save")
    def _retire(self, path: str, block_id: str, reason: str) -> None:
        draft = self.editor.text
        with self.app.live.own_change(self) as acknowledge:
            result, error = retire(self.app.state_dir, path, block_id, reason, acknowledge)
        self.post_message(TopicChanged(path, draft, result, error, "retire"))

    async def on_topic_changed(self, message: TopicChanged) -> None:
        result = message.result
        outcome = self.editing_state.finished(message.path, message.draft, result, message.action)
        if result is None:
            self.notify(f"Not saved: {sanitize_line(message.error or '')}", severity="error", markup=False)
        elif outcome in ("rejected", "conflict"):
            await self._rejected(message.path, result.diagnostics, outcome == "conflict")
        else:
            await self._installed(message, result)
        self._header()
        self.refresh_bindings()

    async def _rejected(self, path: str, diagnostics: list[Diagnostic], conflict: bool) -> None:
        here = f"topics/{path}"
        lines = {d.line for d in diagnostics if d.file == here and d.line}
        self.editor.mark(lines)
        await self.problems.show(
            diagnostics, here, f"{count(len(diagnostics), 'problem')} — nothing was written; your draft is kept")
        self.add_class("-side-open")  # at 80 columns the rejection is in the side panel: show it
        if conflict:
            self.app.push_screen(conflict_choice(path), self._resolve_conflict)
            return
        first = min(lines) if lines else None
        moved = ""
        if first is not None:
            self._go_to(first)
            moved = f" The cursor is on line {first}" + (" (f8: the next problem)." if len(lines) > 1 else ".")
        self.notify(f"Rejected: {sanitize_line(diagnostics[0].rule)} — {sanitize_line(diagnostics[0].message)}.{moved}",
                    severity="error", markup=False)

    async def _installed(self, message: TopicChanged, result: TransactionResult) -> None:
        row = self.editor.cursor_location[0]
        if message.path == self.path:
            self.editor.load_text(self.editing_state.base or "")
            self.editor.move_cursor((min(row, self.editor.document.line_count - 1), 0))
        self.editor.mark(set())
        await self.problems.show([], None)
        await self._render_view(row + 1)
        self.inspected = None
        self._follow_cursor(row + 1)
        self.notify(_installed_note(message.action, message.path, result), markup=False)
        self.load_listing()
        self._run_after_save()

    def _run_after_save(self) -> None:
        then = self.editing_state.take_after_save()
        if then is not None:
            then()

    def action_toggle_side(self) -> None:
        """At 80 columns the side panel (rejections, the block) takes the tree's place, or gives it back."""
        self.toggle_class("-side-open")

    def action_next_problem(self) -> None:
        line = self.editing_state.next_problem(self.editor.cursor_location[0] + 1)
        if line is not None:
            self._go_to(line)

    def on_diagnostics_panel_chosen(self, message: DiagnosticsPanel.Chosen) -> None:
        diagnostic = message.diagnostic
        if diagnostic.file == f"topics/{self.path}" and diagnostic.line:
            self._go_to(diagnostic.line)
        elif diagnostic.file:
            self.notify(f"In {sanitize_line(diagnostic.file)}" + (f", line {diagnostic.line}" if diagnostic.line else ""),
                        markup=False)

    # --- conflicts and unsaved drafts --------------------------------------------------

    def _resolve_conflict(self, answer: str | None) -> None:
        if self.path is None:
            return
        if answer == "reload":
            self._request(self.path, self.editor.cursor_location[0] + 1)
        else:
            self._rebase(self.path)

    @work(thread=True, group="topic-read")
    def _rebase(self, path: str) -> None:
        """Keep the draft; from now on it replaces what is on disk (validated against it)."""
        text = read_topic(self.app.state_dir, path)
        self.app.call_from_thread(self._rebased, path, text)

    def _rebased(self, path: str, text: str | None) -> None:
        if self.editing_state.kept_over(path, text):
            self._header()
            self.notify("Draft kept: saving now replaces the version on disk.", markup=False)

    def ask_unsaved(self, leaving: str, then: Callable[[], None]) -> None:
        def answered(answer: str | None) -> None:
            if answer == "save":
                self.editing_state.after_save = then
                self.action_save()
            elif answer == "discard":
                self.editor.load_text(self.editing_state.discarded())
                then()
            elif self.path is not None:
                self.topic_tree.select_path(self.path)

        self.app.push_screen(unsaved_choice(self.path or "", leaving), answered)

    def may_quit(self) -> bool:
        """The app asks before quitting: a draft is never dropped without the user's word."""
        if not self.dirty:
            return True
        self.app.switch_mode("topics")
        self.ask_unsaved("quitting", self.app.exit)
        return False

    async def on_disk_changed(self, message: DiskChanged) -> None:
        if not message.topics:
            return
        self.load_listing()
        decision = self.editing_state.disk_changed(message.topics, self.editor.text)
        if decision == "elsewhere":
            self.inspected = None  # backlinks may have changed
            self._follow_cursor(self.editor.cursor_location[0] + 1)
            return
        if decision == "keep-draft":
            self._header()
            self.notify(f"topics/{sanitize_line(self.path or '')} changed on disk. Your draft is kept; saving asks "
                        "what to do.",
                        severity="warning", markup=False)
        else:
            self._request(self.path, self.editor.cursor_location[0] + 1)

    # --- the topic tree, links, sources ------------------------------------------------

    def on_topic_tree_chosen(self, message: TopicTree.Chosen) -> None:
        if message.path != self.path:
            self.open_topic(message.path)

    def on_block_card_follow(self, message: BlockCard.Follow) -> None:
        if self.path is not None:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(self.path), message.path)) \
                if message.path else self.path
            self.open_topic(target, block_id=message.block_id)

    def on_block_inspector_jump(self, message: BlockInspector.Jump) -> None:
        self.open_topic(message.path, line=message.line)

    def on_block_inspector_open_source(self, message: BlockInspector.OpenSource) -> None:
        view = self.inspector.view
        if view is not None and view.citations:
            self.app.push_screen(SourceDialog(view.block_id, view.citations, message.index))

    def on_block_card_cite(self, message: BlockCard.Cite) -> None:
        if self.path is not None:
            self._open_cited(parse(self.path, self.editor.text), message.paragraph, message.footnote)

    @work(thread=True, group="sources")
    def _open_cited(self, doc: TopicDoc, paragraph: Paragraph, footnote: str | None) -> None:
        from .model import cited_sources

        sources = cited_sources(self.app.state_dir, doc, paragraph)
        first = next((i for i, s in enumerate(sources) if s.footnote == footnote), 0)
        self.app.call_from_thread(self.app.push_screen, SourceDialog(paragraph.block_id, sources, first))

    def action_open_sources(self) -> None:
        view = self.inspector.view
        if view is None:
            self.notify("No block under the cursor.", markup=False)
        elif not view.citations:
            self.notify("This paragraph cites nothing yet: saving cites it to a manual note.", markup=False)
        else:
            self.app.push_screen(SourceDialog(view.block_id, view.citations))

    # --- retiring --------------------------------------------------------------------

    def _current_paragraph(self) -> Paragraph | None:
        if self.path is None:
            return None
        if not self.editing:
            return self.view.paragraph
        return paragraph_at(parse(self.path, self.editor.text), self.editor.cursor_location[0])

    def action_retire(self) -> None:
        paragraph = self._current_paragraph()
        if self.path is None or paragraph is None or not paragraph.ids:
            self.notify("Put the cursor on a saved block to retire it.", markup=False)
            return
        if self.dirty:
            self.notify("Save or discard your draft first: a retirement changes the file on disk.",
                        severity="warning", markup=False)
            return
        path, block_id = self.path, paragraph.ids[-1]

        def answered(reason: str | None) -> None:
            if reason and self.editing_state.begin_retire(self.editor.text):
                self._header()
                self._retire(path, block_id, reason)

        self.app.push_screen(RetireDialog(path, block_id, first_words(paragraph.content, 16)), answered)

    def action_reload(self) -> None:
        if self.dirty:
            self.ask_unsaved("reloading", self.action_reload)
            return
        self.load_listing()
        if self.path is not None:
            self._request(self.path, self.editor.cursor_location[0] + 1)


def _installed_note(action: str, path: str, result: TransactionResult) -> str:
    path = sanitize_line(path)  # a name is data: never raw to the terminal
    if result.commit is None:
        return f"topics/{path}: nothing changed."
    parts = [f"{'Retired' if action == 'retire' else 'Saved'} topics/{path} · commit {result.commit[:7]}"]
    if result.created_blocks:
        parts.append(f"{count(len(result.created_blocks), 'new block')}")
    manual = [s for s in result.archived if s.startswith("manual/")]
    if manual:
        parts.append(f"{count(len(manual), 'paragraph')} cited to a manual note")
    return " · ".join(parts)
