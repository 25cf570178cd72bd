"""The `scriptorium` console command lives on the TUI side: it opens the app for no command and
for `demo`, and hands every other command to the engine's CLI, which cannot open the app itself."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from scriptorium.core.cli import main as engine_main
from scriptorium.tui import app as tui_app
from scriptorium.tui.entry import main


@pytest.fixture()
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The state directories the app was opened on (instead of running it)."""
    calls: list[Path] = []
    monkeypatch.setattr(tui_app, "run_app", lambda state_dir: calls.append(Path(state_dir)) or 0)
    return calls


def test_the_console_script_is_the_tui_entry_point() -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["scriptorium"] == "scriptorium.tui.entry:main"


def test_no_command_opens_the_app_on_the_state(opened: list[Path], tmp_path: Path) -> None:
    assert main(["--state", str(tmp_path / "state")]) == 0
    assert opened == [tmp_path / "state"]


def test_demo_opens_the_app_on_the_demo_and_no_tui_does_not(opened: list[Path], demo_state: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(demo_state), "demo"]) == 0
    assert opened == [demo_state]
    assert main(["--state", str(demo_state), "demo", "--no-tui"]) == 0
    assert opened == [demo_state] and "already built" in capsys.readouterr().out


def test_other_commands_go_to_the_engine(opened: list[Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--state", str(tmp_path / "state"), "session", "new", "--title", "t"]) == 0
    sid = capsys.readouterr().out.strip()
    assert main(["--state", str(tmp_path / "state"), "session", "list"]) == 0
    assert sid in capsys.readouterr().out and opened == []


def test_the_engine_cli_alone_cannot_open_the_app(opened: list[Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert engine_main(["--state", str(tmp_path / "state")]) == 2
    assert "scriptorium: " in capsys.readouterr().err and opened == []


def test_the_entry_module_does_not_load_textual() -> None:
    probe = "import sys, scriptorium.tui.entry; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
