"""Project memory: a project's trilogy (memory/PROJECT.md, DECISIONS.md, SESSIONS.md) — what
an agent gets injected at session start from it, against what the files hold.

The project is config `trilogy.project_dir` when set, else the current directory; the input
at the top changes it for this run. Nothing here writes: a project without `memory/` gets the
command that creates it.
"""

from __future__ import annotations

from datetime import date

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Middle, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Input, Label, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from scriptorium.core.sanitize import sanitize_line

from .messages import ProjectLoaded
from .model import ProjectView, default_project_dir, load_project
from .area_map import AreaMap
from .injection_meters import InjectionMeters
from ..common.screen_tabs import ScreenTabs
from ..common.text_panel import TextPanel

FILES = (("PROJECT.md", "project-file"), ("DECISIONS.md", "decisions-file"), ("SESSIONS.md", "sessions-file"))


def scaffold_hint(view: ProjectView) -> Content:
    directory = sanitize_line(view.directory)
    return Content.assemble(
        ("No project memory here yet\n\n", "bold $text-primary"),
        "This project has no memory directory:\n",
        (f"  {sanitize_line(view.memory or '')}\n\n", "$muted-text"),
        ("Create it", "bold"), " — PROJECT.md, DECISIONS.md, SESSIONS.md and a boot block in AGENTS.md;\n",
        "nothing that exists is overwritten:\n",
        (f"  scriptorium trilogy scaffold {directory}\n\n", "$text-accent"),
        ("then press ", "$muted-text"), ("r", "bold"), (" to read it, or type another project directory above.",
                                                        "$muted-text"),
    )


def hints(view: ProjectView) -> Content:
    status = view.status
    assert status is not None
    notes: list[Content] = []
    if not status.enabled:
        notes.append(Content.styled("The trilogy is disabled (trilogy.enabled = false): nothing is injected.",
                                    "$text-warning"))
    if status.bootstrap:
        notes.append(Content.styled("PROJECT.md is still empty: the injection asks the agent to fill it in.",
                                    "$text-warning"))
    if status.stale_days is not None:
        notes.append(Content.styled(f"PROJECT.md is {status.stale_days} days behind the logs: it may be stale.",
                                    "$text-warning"))
    return Content("\n").join(notes)


def archive_summary(view: ProjectView) -> Content:
    archive = view.status.archive if view.status else None
    if archive is None or not archive.entries:
        return Content.styled("Nothing archived: SESSIONS.md holds every entry.", "$muted-text")
    span = f" · {archive.oldest} … {archive.newest}" if archive.oldest else ""
    return Content.assemble((f"{archive.entries} entries archived", "bold"), span, " · newest: ",
                            sanitize_line(archive.headings[0]) if archive.headings else "",
                            ("\nnot injected; the Archive tab lists them, `scriptorium trilogy restore` "
                             "puts them back", "$muted-text"))


class ProjectScreen(Screen):
    CSS_PATH = "project.tcss"
    AUTO_FOCUS = "#project-files Tabs"  # not the input: number keys keep switching screens

    BINDINGS = [
        Binding("d", "edit_directory", "Project dir"),
        Binding("r", "reload", "Reload"),
        Binding("f", "toggle_files", "Files / accounting"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: ProjectView | None = None

    def compose(self) -> ComposeResult:
        yield ScreenTabs("project")
        with Horizontal(id="project-bar"):
            yield Label("Project", id="project-label")
            yield Input(default_project_dir(self.app.state_dir), id="project-dir",
                        placeholder="a project directory (holding memory/)")
        with ContentSwitcher(initial="project-body", id="project-switcher"):
            with Horizontal(id="project-body"):
                with Vertical(id="project-left"):
                    yield InjectionMeters(id="meters")
                    yield Static(id="project-hints")
                    yield AreaMap(id="areas")
                    yield Static(id="archive")
                with TabbedContent(id="project-files"):
                    for name, pane_id in FILES:
                        with TabPane(name, id=pane_id):
                            yield TextPanel()
                    with TabPane("Archive", id="archive-file"):
                        yield TextPanel()
            with Middle(id="project-empty"):
                with Center():
                    yield Static(id="project-message")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#meters").border_title = "Injected at session start · bytes"
        self.query_one("#areas").border_title = "Areas · SESSIONS.md"
        self.query_one("#archive").border_title = "Archive · memory/archive/SESSIONS.md"
        self.load(self.query_one("#project-dir", Input).value)

    @work(thread=True, exclusive=True, group="project")
    def load(self, directory: str) -> None:
        view = load_project(self.app.state_dir, directory, date.fromtimestamp(self.app.clock()))
        if not get_current_worker().is_cancelled:
            self.post_message(ProjectLoaded(view))

    def on_project_loaded(self, message: ProjectLoaded) -> None:
        view = self.view = message.view
        switcher = self.query_one("#project-switcher", ContentSwitcher)
        if view.status is None:
            switcher.current = "project-empty"
            note = (Content.styled(view.problem + "\nType a project directory above.", "$text-warning")
                    if view.problem else scaffold_hint(view))
            self.query_one("#project-message", Static).update(note)
            return
        switcher.current = "project-body"
        self.query_one(InjectionMeters).show(view.status)
        project_hints = hints(view)
        self.query_one("#project-hints", Static).update(project_hints)
        self.query_one("#project-hints").display = bool(project_hints.plain)
        self.query_one(AreaMap).show(view.status)
        self.query_one("#archive", Static).update(archive_summary(view))
        for name, pane_id in FILES:
            text = view.texts.get(name)
            self.query_one(f"#{pane_id} TextPanel", TextPanel).show(
                text or "", f"memory/{name} is missing." if text is None else f"memory/{name} is empty.")
        self.query_one("#archive-file TextPanel", TextPanel).show(
            view.archive_text or "", "Nothing archived: entries move here once SESSIONS.md outgrows "
                                     "trilogy.sessionsMaxEntries.")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "project-dir":
            self.query_one("#project-files Tabs").focus()
            self.load(event.value.strip() or default_project_dir(self.app.state_dir))

    def action_edit_directory(self) -> None:
        self.query_one("#project-dir", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_files":
            return self.has_class("-narrow")  # wide, both are shown side by side
        return True

    def on_resize(self) -> None:
        self.refresh_bindings()  # the breakpoint class may have changed: f comes or goes

    def action_toggle_files(self) -> None:
        """At 80 columns the accounting and the files take turns."""
        self.toggle_class("-files-open")

    def action_reload(self) -> None:
        self.load(self.query_one("#project-dir", Input).value.strip() or default_project_dir(self.app.state_dir))
