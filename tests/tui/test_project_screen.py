"""The Project memory screen: a project's trilogy — the three files, the accounting as meters
(per file and per PROJECT.md section), the area map, the archive — and the empty state."""

from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

import pytest

from scriptorium.core.config import load_config, set_config_value
from scriptorium.core.trilogy import TrilogySettings, archive_overflow, scaffold, trilogy_paths, trilogy_status
from scriptorium.tui.project.screen import ProjectScreen
from scriptorium.tui.project.area_map import AreaMap
from scriptorium.tui.project.injection_meters import InjectionMeters

from .helpers import screen_lines

pytestmark = pytest.mark.anyio

TODAY = date(2026, 1, 1)  # the app's fixed clock (tests/conftest.py FIXED_NOW)
BUDGET = 6000  # small, so that a realistic PROJECT.md section is cut
AREAS = ["ci", "ci", "deploy", "ci", "api", "deploy", "docs", "ci", "api", "ci", "deploy", "ci", "web", "ci",
         "deploy", "ci", "api", "ci", "deploy", "ci", "ci", "api"]  # newest first; a 5th named area ("web")

PROJECT = """# PROJECT

## 这是什么

Checkout service for the web shop: cart, pricing, payment authorization.

## 怎么跑和怎么测

`make dev` starts the stack; `make test` runs the unit tests; `make load` the p95 budget check.

## 东西都在哪

- `cart/` line items and pricing
- `payment/` the provider adapters
- `ops/` deploy scripts and dashboards

## State

{state}
## 坑

The staging database is shared with search: never run migrations there by hand.
"""


def build_project(root: Path) -> Path:
    """A scaffolded project with a full PROJECT.md (one oversized section), decisions, a 22-entry
    log over five areas, and its oldest entries archived. File times are fixed."""
    settings = TrilogySettings()
    root.mkdir(parents=True)
    paths = trilogy_paths(root, settings)
    scaffold(paths, settings)
    state = "".join(f"- week {w}: p95 {300 + w} ms after the cart query fix, tracked on the checkout dashboard\n"
                    for w in range(1, 25))
    paths.project.write_text(PROJECT.format(state=state), encoding="utf-8")
    decisions = "".join(f"## {TODAY - timedelta(days=9 * i)} — choice {i}\nChose: option {i}\nOver: the other one\n"
                        f"Because: measured, see ops/ dashboards\n\n" for i in range(4))
    paths.decisions.write_text("# DECISIONS\n\n" + decisions, encoding="utf-8")
    log = "".join(f"## {TODAY - timedelta(days=3 * i)} · {area}\nDone: step {i} in {area}, verified with make test\n"
                  f"Open: 暂无\nNext: step {i + 1}\n\n" for i, area in enumerate(AREAS))
    paths.sessions.write_text("# SESSIONS\n\n" + log, encoding="utf-8")
    assert archive_overflow(paths, 18) == 4
    for path in (paths.project, paths.decisions, paths.sessions, paths.archive):
        os.utime(path, (1_767_000_000, 1_767_000_000))
    return root


@pytest.fixture()
def project_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state whose config points the screen at `project` (relative to the working directory,
    tmp_path, so that no absolute temp path appears on screen)."""
    monkeypatch.chdir(tmp_path)
    build_project(tmp_path / "project")
    state = tmp_path / "state"
    set_config_value(state, "trilogy.project_dir", "project")
    set_config_value(state, "trilogy.injectBudgetBytes", BUDGET)
    return state


async def open_project_screen(pilot, settle) -> ProjectScreen:
    await settle(pilot)
    await pilot.press("7")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ProjectScreen)
    return screen


def test_project_memory_screen(snap_compare, make_app, settle, terminal_size, project_state: Path) -> None:
    async def run_before(pilot) -> None:
        await open_project_screen(pilot, settle)

    assert snap_compare(make_app(project_state), terminal_size=terminal_size, run_before=run_before)


async def test_the_meters_show_what_the_trilogy_reports_per_file_and_section(make_app, settle,
                                                                            project_state: Path) -> None:
    settings = TrilogySettings.from_config(load_config(project_state))
    status = trilogy_status(Path("project"), settings, today=TODAY)
    assert any(s.cut for s in status.sections) and len(status.areas) == 5  # the fixture shows every case
    app = make_app(project_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_project_screen(pilot, settle)
        meters = str(screen.query_one(InjectionMeters).content).splitlines()
        assert meters[0] == status.accounting_line
        for account in status.files:
            line = next(m for m in meters if m.startswith(account.name))
            assert f"{account.injected_bytes:,} / {account.actual_bytes:,}" in line
        for section in status.sections:
            line = next(m for m in meters if m.strip().startswith(f"§ {section.name}"))
            assert f"{section.injected_bytes:,} / {section.actual_bytes:,}" in line
            assert line.rstrip().endswith("cut") is section.cut
        areas = str(screen.query_one(AreaMap).content)
        assert status.area_line in areas
        for area in status.areas:
            assert any(row.split()[:3] == [area.name, str(area.entries), str(area.injected)]
                       for row in areas.splitlines())
        text = "\n".join(screen_lines(app))
        assert "4 entries archived" in text and "Checkout service for the web shop" in text  # PROJECT.md tab
        await pilot.press("right", "right", "right")  # the file tabs have the focus: on to the archive
        await settle(pilot)
        oldest = f"## {TODAY - timedelta(days=3 * 21)} · api"
        assert oldest in "\n".join(screen_lines(app)) and oldest == "## " + status.archive.headings[-1]


async def test_without_config_the_current_directory_is_shown_and_its_missing_memory_explained(
        make_app, settle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    monkeypatch.chdir(bare)
    app = make_app(tmp_path / "state")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_project_screen(pilot, settle)
        assert screen.query_one("#project-dir").value == os.getcwd()
        text = "\n".join(screen_lines(app))
        assert "No project memory here yet" in text and f"scriptorium trilogy scaffold {bare}" in text
        settings = TrilogySettings()
        scaffold(trilogy_paths(bare, settings), settings)  # the user runs the command shown
        await pilot.press("r")
        await settle(pilot)
        assert screen.view is not None and screen.view.has_memory
        assert "PROJECT.md" in str(screen.query_one(InjectionMeters).content)


async def test_typing_another_directory_opens_that_project(make_app, settle, project_state: Path,
                                                           tmp_path: Path) -> None:
    other = build_project(tmp_path / "other")
    (other / "memory" / "PROJECT.md").write_text("# PROJECT\n\n## 这是什么\n\n[@click=app.quit]other[/] \x1b[2J\n",
                                                  encoding="utf-8")
    app = make_app(project_state)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_project_screen(pilot, settle)
        await pilot.press("d")
        field = screen.query_one("#project-dir")
        assert field.has_focus
        field.value = ""
        await pilot.press(*"nowhere", "enter")
        await settle(pilot)
        assert "Not a directory: nowhere" in "\n".join(screen_lines(app))
        await pilot.press("d")
        field.value = ""
        await pilot.press(*"other", "enter")
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "[@click=app.quit]other[/] ␛[2J" in text  # the file shown as written, inert
        assert app.is_running and screen.view.directory == "other"
        assert load_config(project_state).get("trilogy.project_dir") == "project"  # not remembered


def test_project_memory_screen_at_80x24(snap_compare, make_app, settle, project_state: Path) -> None:
    test_project_memory_screen(snap_compare, make_app, settle, (80, 24), project_state)


def test_project_memory_files_at_80x24(snap_compare, make_app, settle, project_state: Path) -> None:
    """At 80 columns f swaps the accounting for the files."""
    async def run_before(pilot) -> None:
        await open_project_screen(pilot, settle)
        await pilot.press("f")
        await settle(pilot)

    assert snap_compare(make_app(project_state), terminal_size=(80, 24), run_before=run_before)
