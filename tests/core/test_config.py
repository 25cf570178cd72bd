"""config.toml is the user's file: a setting changed by the app (theme, injection toggle)
changes that one line; comments, order and formatting stay as the user wrote them."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from scriptorium.core.config import load_config, set_config_value

USER_FILE = """\
# My Scriptorium settings: hand-written, keep the notes.
[writer]
model   = "scriptorium/offline"   # offline until the key arrives
threshold = 1200

# --- the terminal app ---
[tui]
theme = "scriptorium-dark"  # t toggles it

[core]
budget = 2000   # tokens
"""


def changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    (tmp_path / "config.toml").write_text(USER_FILE, encoding="utf-8")
    return tmp_path


def test_changing_a_value_changes_only_its_line(state: Path) -> None:
    set_config_value(state, "tui.theme", "scriptorium-light")
    after = (state / "config.toml").read_text(encoding="utf-8")
    assert changed_lines(USER_FILE, after) == ['-theme = "scriptorium-dark"  # t toggles it',
                                               '+theme = "scriptorium-light"  # t toggles it']
    assert load_config(state).get("tui.theme") == "scriptorium-light"


def test_a_new_key_joins_its_table_and_a_new_table_goes_last(state: Path) -> None:
    set_config_value(state, "core.inject", False)
    set_config_value(state, "watch.idle_minutes", 45)
    after = (state / "config.toml").read_text(encoding="utf-8")
    assert changed_lines(USER_FILE, after) == ["+inject = false", "+", "+[watch]", "+idle_minutes = 45"]
    assert after.index("inject = false") > after.index("budget = 2000")
    config = load_config(state)
    assert config.get("core.inject") is False and config.get("watch.idle_minutes") == 45
    assert config.get("core.budget") == 2000 and config.get("writer.threshold") == 1200


def test_dotted_keys_are_edited_where_they_are(state: Path) -> None:
    (state / "config.toml").write_text("core.inject = true  # on by default\n", encoding="utf-8")
    set_config_value(state, "core.inject", False)
    assert (state / "config.toml").read_text(encoding="utf-8") == "core.inject = false  # on by default\n"


def test_a_broken_file_is_never_overwritten(state: Path) -> None:
    broken = USER_FILE + "[tui\n"
    (state / "config.toml").write_text(broken, encoding="utf-8")
    with pytest.raises(ValueError):
        set_config_value(state, "tui.theme", "nord")
    assert (state / "config.toml").read_text(encoding="utf-8") == broken


def test_a_key_under_a_value_is_refused(state: Path) -> None:
    with pytest.raises(ValueError):
        set_config_value(state, "core.budget.max", 3)
    assert (state / "config.toml").read_text(encoding="utf-8") == USER_FILE


def test_the_first_setting_creates_the_file(tmp_path: Path) -> None:
    set_config_value(tmp_path / "fresh", "tui.theme", "nord")
    assert load_config(tmp_path / "fresh").get("tui.theme") == "nord"
    assert (tmp_path / "fresh" / "config.toml").stat().st_mode & 0o777 == 0o600
