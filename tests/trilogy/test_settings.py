from dataclasses import fields
from pathlib import Path

import tomlkit

from scriptorium.core.config import load_config
from scriptorium.core.trilogy import TrilogySettings

# Every key of the spec's configuration table (dsh-trilogy §5).
SPEC_KEYS = {
    "enabled", "memoryDirName", "projectRootStrategy", "projectRootMarkers", "autoScaffold",
    "writeBootBlock", "bootBlockFile", "injectOnSessionStart", "bootstrapWhenEmpty",
    "injectBudgetBytes", "sessionEntriesInjected", "nudgeOnTurnEnd", "nudgeCooldownMs",
    "nudgeMaxPerSession", "sessionsMaxEntries", "projectStaleDays",
}


def _other_value(default):
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 7
    if isinstance(default, tuple):
        return ["package.json", ".hg"]
    if default == "workspace":
        return "marker"
    return default + "-x"


def test_every_spec_key_is_read_from_config_toml(tmp_path: Path):
    defaults = TrilogySettings()
    assert {f.name for f in fields(TrilogySettings)} == SPEC_KEYS
    wanted = {f.name: _other_value(getattr(defaults, f.name)) for f in fields(TrilogySettings)}
    (tmp_path / "config.toml").write_text(tomlkit.dumps({"trilogy": wanted}), encoding="utf-8")
    settings = TrilogySettings.from_config(load_config(tmp_path))
    for name, value in wanted.items():
        got = getattr(settings, name)
        assert (list(got) if isinstance(got, tuple) else got) == value, name


def test_invalid_values_fall_back_to_defaults(tmp_path: Path):
    bad = {
        "enabled": "yes",
        "injectBudgetBytes": -5,
        "projectRootStrategy": "nearest",
        "memoryDirName": "../outside",
        "projectRootMarkers": [],
        "nudgeMaxPerSession": True,
    }
    (tmp_path / "config.toml").write_text(tomlkit.dumps({"trilogy": bad}), encoding="utf-8")
    assert TrilogySettings.from_config(load_config(tmp_path)) == TrilogySettings()


def test_texts_read_through_the_typed_accessor_are_stripped(tmp_path: Path):
    (tmp_path / "config.toml").write_text(
        tomlkit.dumps({"trilogy": {"memoryDirName": "  notes ", "bootBlockFile": "   ", "projectRootStrategy": " marker"}}),
        encoding="utf-8")
    settings = TrilogySettings.from_config(load_config(tmp_path))
    assert settings.memoryDirName == "notes" and settings.projectRootStrategy == "marker"
    assert settings.bootBlockFile == TrilogySettings().bootBlockFile  # blank: the default
