"""Agents: is memory wired into Claude Code, Codex and pi, and is it working?

The doctor's facts (installed where, the last hook call of each kind, errors; state, git,
model), what the last session start injected, the last recalls with their hits; `i` / `u`
install or uninstall the highlighted agent after showing the configuration diff, `p`
switches between the user's and this project's configuration.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from scriptorium.core.sanitize import sanitize_line

from ..common.formatting import ago, stamp
from .messages import AgentsChanged, AgentsLoaded
from ..common.screen_tabs import ScreenTabs
from ..common.text_panel import TextPanel
from .dialogs import ConfirmChange
from .model import AgentsView, ChangeRefused, DemoState, apply_plan, load_agents, plan_change, short_path

# Table columns: which hook events each one reports (newest of them).
COLUMNS = {
    "Session start": ("session-start", "before-agent-start"),
    "Recall": ("user-prompt-submit", "before-agent-start"),
    "Write": ("stop", "pre-compact", "session-end"),
}
_OUTCOME_STYLE = {"ok": "$node-written", "skipped": "$muted-text", "error": "$text-error bold"}


class AgentsScreen(Screen):
    CSS_PATH = "agents.tcss"

    BINDINGS = [
        Binding("i", "install", "Install"),
        Binding("u", "uninstall", "Uninstall"),
        Binding("p", "toggle_scope", "User / project"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: AgentsView | None = None
        self.scope = "user"

    def compose(self) -> ComposeResult:
        yield ScreenTabs("agents")
        with Vertical(id="agents-body"):
            yield Static(id="health")
            yield DataTable(id="agents-table", cursor_type="row", zebra_stripes=False)
            with Horizontal(id="details"):
                yield TextPanel(id="injection")
                with VerticalScroll(id="recalls"):
                    yield Static(id="recalls-list", markup=False)
            with VerticalScroll(id="problems"):
                yield Static(id="problems-list", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Agent", key="agent", width=12)
        table.add_column("Installed", key="installed", width=18)
        for title in COLUMNS:
            table.add_column(title, key=title, width=20)
        table.add_column("Errors", key="errors", width=8)
        table.border_title = "Agents"
        self.query_one("#injection").border_title = "Last session start injected"
        self.query_one("#recalls").border_title = "Last recalls"
        self.query_one("#problems").border_title = "Problems and recent hook errors"
        self.query_one("#health", Static).update(Content.styled("Checking…", "$muted-text"))
        self.load()

    def on_screen_resume(self) -> None:
        if self.view is not None:
            self.load()

    @work(thread=True, exclusive=True, group="agents")
    def load(self) -> None:
        view = load_agents(self.app.state_dir)
        if not get_current_worker().is_cancelled:
            self.post_message(AgentsLoaded(view))

    def on_agents_loaded(self, message: AgentsLoaded) -> None:
        self.view = message.view
        self._show_health()
        self._show_table()
        self._show_injection()
        self._show_recalls()
        self._show_problems()

    # -- the parts ----------------------------------------------------------------------------

    def _show_health(self) -> None:
        report = self.view.report
        verdict = (("● healthy", "$node-written bold") if report.healthy else
                   (f"✗ {len(report.problems)} problem{'s' if len(report.problems) != 1 else ''}", "$text-error bold"))
        parts: list[Content | str | tuple[str, str]] = [verdict]
        for check in report.checks:
            parts += ["   ", (check.name, "bold"), " ", ("ok", "$node-written") if check.ok else ("FAIL", "$text-error bold")]
        parts += ["   ", ("scope ", "$muted-text"), (self.scope, "bold"), ("  (p switches)", "$muted-text")]
        self.query_one("#health", Static).update(Content.assemble(*parts))

    def _show_table(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        now = self.app.clock()
        for agent in self.view.report.agents:
            scope = next(s for s in agent.scopes if s.scope == self.scope)
            installed = (Content.styled(f"yes ({scope.scope})", "$node-written") if scope.installed else
                         Content.styled("partly", "$text-warning") if scope.partial else
                         Content.styled("no", "$muted-text"))
            cells: list[Content] = [Content.styled(agent.agent, "bold"), installed]
            for events in COLUMNS.values():
                calls = [agent.last_calls[e] for e in events if e in agent.last_calls]
                if not calls:
                    cells.append(Content.styled("—", "$muted-text"))
                    continue
                call = max(calls, key=lambda c: c.time)
                cells.append(Content.assemble((sanitize_line(call.outcome), _OUTCOME_STYLE.get(call.outcome, "")),
                                              (f" · {ago(call.time, now)}", "$muted-text")))
            cells.append(Content.styled(str(len(agent.errors)), "$text-error bold") if agent.errors
                         else Content.styled("0", "$muted-text"))
            table.add_row(*cells, key=agent.agent)
        if table.row_count:
            table.move_cursor(row=min(max(row, 0), table.row_count - 1))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.view is not None:
            self._show_injection()
            self._show_recalls()

    def _show_injection(self) -> None:
        panel = self.query_one("#injection", TextPanel)
        agent = self._selected() or ""
        injection = self.view.injections.get(agent)
        if injection is None:
            panel.border_title = f"Last session start · {agent}"
            installed = any(s.installed for a in self.view.report.agents if a.agent == agent for s in a.scopes)
            panel.show("", f"No session start from {agent} yet: " + (
                "start a session in it." if installed else "install it (i) and start a session."))
            return
        tokens = f"{injection.tokens:,} tokens" if injection.tokens is not None else "tokens not counted"
        panel.border_title = f"Last session start · {agent} · {stamp(injection.time)} · {tokens}"
        panel.show(injection.text, f"Nothing injected ({sanitize_line(injection.reason)}).")

    def _show_recalls(self) -> None:
        agent = self._selected() or ""
        self.query_one("#recalls").border_title = f"Last recalls · {agent}"
        lines: list[Content] = []
        for recall in self.view.recalls.get(agent, []):
            lines.append(Content.assemble((stamp(recall.time), "$muted-text"), "  ", (recall.event, "bold"), "  ",
                                          sanitize_line(recall.reason), f"  {len(recall.hits)} hits"))
            for hit in recall.hits:
                lines.append(Content.assemble(("  ^" + sanitize_line(hit.block_id).ljust(10), "$node-pending"),
                                              f"{hit.score:6.2f}  ", sanitize_line(hit.path)))
        if not lines:
            lines = [Content.styled(f"No recall from {agent} yet: its prompts bring them.", "italic $muted-text")]
        self.query_one("#recalls-list", Static).update(Content("\n").join(lines))

    def _show_problems(self) -> None:
        report = self.view.report
        lines = [Content.styled(f"✗ {sanitize_line(p)}", "$text-error") for p in report.problems]
        lines += [Content.styled(f"⚠ skipped {sanitize_line(w)}", "$text-warning") for w in report.warnings]
        for check in report.checks:
            if check.ok and check.name == "git":
                continue  # its version line says nothing useful here
            lines.append(Content.assemble((f"{check.name}: ", "$muted-text"), sanitize_line(check.detail)))
        for agent in report.agents:
            scope = next(s for s in agent.scopes if s.scope == self.scope)
            if scope.where:
                lines.append(Content.assemble((f"{agent.agent}: ", "$muted-text"),
                                              ", ".join(short_path(w) for w in scope.where)))
            for call in agent.errors:
                lines.append(Content.assemble((f"{stamp(call.time)}  ", "$muted-text"), (agent.agent, "bold"),
                                              f" {sanitize_line(call.event)}: ",
                                              (sanitize_line(call.error or "error"), "$text-error")))
        self.query_one("#problems-list", Static).update(Content("\n").join(lines))

    # -- actions ------------------------------------------------------------------------------

    def _selected(self) -> str | None:
        table = self.query_one(DataTable)
        if self.view is None or not table.row_count:
            return None
        return self.view.report.agents[table.cursor_row].agent

    def action_install(self) -> None:
        self._change("install")

    def action_uninstall(self) -> None:
        self._change("uninstall")

    def _change(self, action: str) -> None:
        agent = self._selected()
        if agent is None:
            return
        title = f"{action.capitalize()} {agent} ({self.scope})?"
        confirm, warning = action.capitalize(), ""
        try:
            try:
                plan = plan_change(self.app.state_dir, agent, action, self.scope)
            except DemoState:  # ask, saying what it means, instead of only refusing
                plan = plan_change(self.app.state_dir, agent, action, self.scope, force=True)
                title = f"Install {agent} ({self.scope}) into the demo state?"
                confirm = "Install anyway"
                warning = (f"This is the demo state ({short_path(str(self.app.state_dir.absolute()))}): {agent}'s real sessions "
                           f"would be written into the demo's memory, and the demo's made-up memory would be "
                           f"injected into {agent}. To keep your own memory, install from your own state "
                           f"(scriptorium --state DIR). ")
        except ChangeRefused as exc:
            self.notify(str(exc), title=f"{action.capitalize()} {agent}", severity="error", markup=False)
            return
        if not plan.changed:
            state = "already installed" if action == "install" else "not installed"
            self.notify(f"{agent} is {state} ({self.scope}): nothing to change.", markup=False)
            return
        files = ", ".join(short_path(str(c.path)) for c in plan.changes if c.kind != "unchanged")
        note = f"{warning}These files change: {files}." + "".join(f" {n}" for n in plan.notes)

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self._apply(plan, f"{agent} {action}ed ({self.scope})")

        self.app.push_screen(ConfirmChange(title, note, plan.diff(), confirm, warn=bool(warning)), done)

    @work(thread=True, exclusive=True, group="agents-change")
    def _apply(self, plan, summary: str) -> None:
        try:
            apply_plan(plan)
        except ChangeRefused as exc:
            self.post_message(AgentsChanged(summary, str(exc)))
            return
        self.post_message(AgentsChanged(summary))

    def on_agents_changed(self, message: AgentsChanged) -> None:
        if message.error:
            self.notify(message.error, severity="error", markup=False)
        else:
            self.notify(message.summary, markup=False)
        self.load()

    def action_toggle_scope(self) -> None:
        self.scope = "project" if self.scope == "user" else "user"
        if self.view is not None:
            self._show_health()
            self._show_table()
            self._show_problems()

    def action_reload(self) -> None:
        self.load()
