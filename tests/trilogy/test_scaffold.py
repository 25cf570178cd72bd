from pathlib import Path

from scriptorium.core.config import set_config_value, load_config
from scriptorium.core.trilogy import TrilogySettings, scaffold, trilogy_paths
from scriptorium.core.trilogy.templates import PROJECT_SECTIONS


def test_scaffold_creates_three_files_and_boot_block(tmp_path: Path):
    settings = TrilogySettings()
    paths = trilogy_paths(tmp_path, settings)
    report = scaffold(paths, settings)
    assert sorted(report.created) == ["memory/DECISIONS.md", "memory/PROJECT.md", "memory/SESSIONS.md"]
    project = paths.project.read_text(encoding="utf-8")
    headings = [line[3:] for line in project.splitlines() if line.startswith("## ")]
    assert headings == list(PROJECT_SECTIONS)
    assert report.boot_block == "AGENTS.md"
    assert "## Memory" in (tmp_path / "AGENTS.md").read_text(encoding="utf-8")


def test_scaffold_never_overwrites_and_keeps_agents_content(tmp_path: Path):
    settings = TrilogySettings()
    paths = trilogy_paths(tmp_path, settings)
    paths.memory.mkdir()
    paths.sessions.write_text("# my own log\n\n## 2026-01-01\nDone: kept\n", encoding="utf-8")
    agents = "# Rules\n\nNever push to main.\n"
    (tmp_path / "AGENTS.md").write_text(agents, encoding="utf-8")
    before = paths.sessions.read_bytes()

    report = scaffold(paths, settings)
    assert "memory/SESSIONS.md" not in report.created
    assert paths.sessions.read_bytes() == before
    text = (tmp_path / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(agents)
    assert text.count("## Memory") == 1

    again = scaffold(paths, settings)
    assert again.created == [] and again.boot_block is None
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == text


def test_existing_memory_heading_suppresses_boot_block(tmp_path: Path):
    settings = TrilogySettings()
    agents = "# Rules\n\n### memory\n\nours\n"
    (tmp_path / "AGENTS.md").write_text(agents, encoding="utf-8")
    scaffold(trilogy_paths(tmp_path, settings), settings)
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == agents


def test_legacy_headings_renamed_in_place_only_heading_lines(tmp_path: Path):
    settings = TrilogySettings()
    paths = trilogy_paths(tmp_path, settings)
    paths.memory.mkdir()
    legacy = (
        "# PROJECT\n\n## What this is\n\nA tool.\n\n## How to run and test\n\n`make test`\n\n"
        "## Where things are\n\n- src/\n\n## State\n\nworks\n\n## Gotchas\n\n- the ## in `a ## b` is literal\n"
    )
    paths.project.write_text(legacy, encoding="utf-8")
    report = scaffold(paths, settings)
    assert [new for _, new in report.renamed_headings] == ["这是什么", "怎么跑和怎么测", "东西都在哪", "坑"]
    after = paths.project.read_text(encoding="utf-8")
    old_lines, new_lines = legacy.splitlines(), after.splitlines()
    assert len(old_lines) == len(new_lines)
    changed = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
    assert all(a.startswith("## ") and b.startswith("## ") for a, b in changed) and len(changed) == 4


def test_missing_section_added_in_fixed_order(tmp_path: Path):
    settings = TrilogySettings()
    paths = trilogy_paths(tmp_path, settings)
    paths.memory.mkdir()
    paths.project.write_text("# PROJECT\n\n## 这是什么\n\nA tool.\n\n## 坑\n\n- x\n", encoding="utf-8")
    report = scaffold(paths, settings)
    assert report.added_sections == ["怎么跑和怎么测", "东西都在哪", "State"]
    text = paths.project.read_text(encoding="utf-8")
    assert [l[3:] for l in text.splitlines() if l.startswith("## ")] == list(PROJECT_SECTIONS)
    assert "A tool.\n" in text and "- x\n" in text


def test_heading_inside_fence_is_not_a_section(tmp_path: Path):
    settings = TrilogySettings()
    paths = trilogy_paths(tmp_path, settings)
    scaffold(paths, settings)
    text = paths.project.read_text(encoding="utf-8").replace(
        "## 坑\n\n暂无", "## 坑\n\n```sh\n## What this is\n```"
    )
    paths.project.write_text(text, encoding="utf-8")
    report = scaffold(paths, settings)
    assert report.renamed_headings == [] and report.added_sections == []
    assert paths.project.read_text(encoding="utf-8") == text


def test_marker_strategy_and_config_keys(tmp_path: Path):
    state = tmp_path / "state"
    set_config_value(state, "trilogy.projectRootStrategy", "marker")
    set_config_value(state, "trilogy.projectRootMarkers", ["pyproject.toml"])
    set_config_value(state, "trilogy.memoryDirName", "notes")
    set_config_value(state, "trilogy.bootBlockFile", "CLAUDE.md")
    settings = TrilogySettings.from_config(load_config(state))
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("", encoding="utf-8")
    paths = trilogy_paths(repo / "src" / "pkg", settings)
    assert paths.root == repo.resolve() and paths.memory == repo.resolve() / "notes"
    scaffold(paths, settings)
    assert (repo / "notes" / "PROJECT.md").is_file()
    assert "`notes/PROJECT.md`" in (repo / "CLAUDE.md").read_text(encoding="utf-8")


def test_auto_scaffold_and_boot_block_switches(tmp_path: Path):
    settings = TrilogySettings(autoScaffold=False)
    paths = trilogy_paths(tmp_path, settings)
    assert scaffold(paths, settings, create=settings.autoScaffold).created == []
    assert not paths.memory.exists()
    no_boot = TrilogySettings(writeBootBlock=False)
    scaffold(trilogy_paths(tmp_path, no_boot), no_boot)
    assert not (tmp_path / "AGENTS.md").exists()
