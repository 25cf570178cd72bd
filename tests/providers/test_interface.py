"""The nine-method contract: defaults, the registry, and both shipped providers."""

from pathlib import Path

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.providers import MemoryProvider, create_provider, provider_names
from scriptorium.core.providers.trilogy import TrilogyProvider

METHODS = ["name", "is_available", "initialize", "system_prompt", "search", "write", "reorganize",
           "extract_before_discard", "shutdown"]


class Minimal(MemoryProvider):
    @property
    def name(self) -> str:
        return "minimal"


def test_everything_but_name_has_a_default():
    with pytest.raises(TypeError):
        MemoryProvider()  # name is abstract
    p = Minimal()
    assert p.name == "minimal" and p.is_available() is True
    assert p.initialize("s1") is None
    assert p.system_prompt() == "" and p.search("q") == ""
    assert p.write([{"role": "user", "content": "x"}], session_id="s1") is None
    assert p.reorganize() == {"status": "skipped"}
    assert p.extract_before_discard([]) == ""
    assert p.shutdown() is None
    assert all(callable(getattr(MemoryProvider, m)) or isinstance(getattr(MemoryProvider, m), property) for m in METHODS)


def test_registry_selects_by_name_and_by_config(tmp_path: Path):
    assert {"scriptorium", "trilogy"} <= set(provider_names())
    assert create_provider(tmp_path).name == "scriptorium"  # the default
    assert isinstance(create_provider(tmp_path, "trilogy", project_dir=tmp_path), TrilogyProvider)
    set_config_value(tmp_path, "memory.provider", "trilogy")
    assert create_provider(tmp_path, project_dir=tmp_path).name == "trilogy"
    with pytest.raises(ValueError, match="unknown memory provider"):
        create_provider(tmp_path, "mem0")


def test_every_method_callable_on_trilogy(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    p = create_provider(tmp_path / "state", "trilogy", project_dir=project)
    assert p.name == "trilogy" and p.is_available()
    p.initialize("s1", window=100_000)
    assert (project / "memory" / "PROJECT.md").is_file() and (project / "AGENTS.md").is_file()
    block = p.system_prompt()
    assert block.startswith("<memory-context>") and "[trilogy] 本次注入" in block
    assert p.system_prompt() == ""  # deduplicated
    assert isinstance(p.search("anything"), str)
    outcome = p.write([{"role": "user", "content": "fix it"}, {"role": "tool", "content": "ok"}], session_id="s1")
    assert outcome == {"status": "ok", "nudge_owed": True, "archived": 0}
    assert "memory_checkpoint" in p.search("next question")  # the owed nudge, delivered once
    assert p.reorganize()["status"] == "ok"
    assert p.extract_before_discard([{"role": "system", "content": block}]) == ""
    assert p.system_prompt() == block  # the compaction dropped it: sent again
    p.shutdown()


def test_disabled_trilogy_does_nothing(tmp_path: Path):
    set_config_value(tmp_path, "trilogy.enabled", False)
    project = tmp_path / "proj"
    project.mkdir()
    p = create_provider(tmp_path, "trilogy", project_dir=project)
    assert not p.is_available()
    p.initialize("s1")
    assert p.system_prompt() == "" and p.search("x") == ""
    assert not (project / "memory").exists()


def test_every_method_callable_on_scriptorium(tmp_path: Path):
    from scriptorium.core.memory import Workspace, save_topic

    save_topic(Workspace.open(tmp_path), "core.md", "# Core\n\nThe user is called Ada and drinks green tea.\n")
    save_topic(Workspace.open(tmp_path), "infra/deploys.md", "# Deploys\n\nProduction deploys run on Tuesday evenings.\n")
    p = create_provider(tmp_path, "scriptorium")
    assert p.name == "scriptorium" and p.is_available()
    p.initialize("s1")
    core = p.system_prompt()
    assert core.count("<memory-context>") == 1 and "The user is called Ada" in core
    recalled = p.search("when do deploys run")
    assert recalled.count("<memory-context>") == 1 and "--- topics/infra/deploys.md#^" in recalled
    assert p.search("zebra crossing") == ""
    for call in (lambda: p.write([], session_id="s1"), p.reorganize, lambda: p.extract_before_discard([]), p.shutdown):
        call()
