import os
from datetime import timedelta
from pathlib import Path

import pytest

from scriptorium.core.trilogy import TrilogySettings, build_injection, effective_budget, read_snapshot, trilogy_paths
from scriptorium.core.fence import NOTE
from scriptorium.core.trilogy.templates import GENERAL_AREA

from .conftest import TODAY, project_with_sections, sessions_log

KB = 1000


def _inject(project: Path, settings: TrilogySettings = TrilogySettings(), window: int | None = None):
    return build_injection(read_snapshot(trilogy_paths(project, settings)), settings, window=window, today=TODAY)


def _write(project: Path, name: str, text: str) -> None:
    (project / "memory" / name).write_text(text, encoding="utf-8")


def test_budget_is_min_of_config_and_window_share():
    settings = TrilogySettings(injectBudgetBytes=160_000)
    assert effective_budget(settings, None) == 160_000
    assert effective_budget(settings, 200_000) == 32_000
    assert effective_budget(settings, 2_000_000) == 160_000


def test_accounting_and_area_lines_are_always_present(project: Path):
    injection = _inject(project)
    lines = injection.text.splitlines()
    assert injection.accounting_line in lines and injection.area_line in lines
    assert injection.accounting_line.startswith("[trilogy] 本次注入")
    assert injection.area_line.startswith("区域：")
    assert injection.text.startswith("<memory-context>") and injection.text.count("<memory-context>") == 1


def test_57kb_project_with_30kb_section_is_cut_per_section(project: Path):
    sizes = {"这是什么": 2 * KB, "怎么跑和怎么测": 8 * KB, "东西都在哪": 9 * KB, "State": 30 * KB, "坑": 8 * KB}
    text = project_with_sections(sizes)
    assert 55 * KB < len(text.encode()) < 58 * KB
    _write(project, "PROJECT.md", text)
    settings = TrilogySettings()
    injection = _inject(project, settings)
    share = int(settings.injectBudgetBytes * 0.35)
    whole_file_cap_result = min(len(text.encode()), share)  # what capping the file as a whole gives
    project_bytes = injection.files[0].injected_bytes

    assert project_bytes < 0.75 * whole_file_cap_result
    cut = {s.name: s for s in injection.sections}
    assert cut["State"].cut and cut["State"].injected_bytes <= share // 5
    assert [name for name, s in cut.items() if s.cut] == ["State"]
    for name in ("这是什么", "怎么跑和怎么测", "东西都在哪", "坑"):
        assert cut[name].injected_bytes == cut[name].actual_bytes  # small sections kept verbatim
    assert "本节" in injection.text and "已超出注入上限" in injection.text
    assert len(injection.text.encode()) <= injection.budget + 400  # fence overhead only


def test_decisions_capped_and_spare_flows_to_sessions(project: Path):
    settings = TrilogySettings(injectBudgetBytes=20_000, sessionEntriesInjected=200)
    decisions = "# DECISIONS\n\n" + "".join(
        f"## {TODAY - timedelta(days=d)} — choice {d}\nChose: a\nOver: b, because it was slower in every measurement we made\nBecause: c\n\n"
        for d in range(80)
    )
    _write(project, "DECISIONS.md", decisions)
    _write(project, "SESSIONS.md", sessions_log([(d, "") for d in range(150)]))
    injection = _inject(project, settings)
    project_acc, decisions_acc, sessions_acc = injection.files
    assert decisions_acc.injected_bytes <= 0.20 * 20_000
    assert 0 < decisions_acc.entries_injected < decisions_acc.entries
    assert "较早的决定未注入" in injection.text
    # PROJECT uses far less than its 35%: what it leaves goes to SESSIONS, not to waste.
    assert project_acc.injected_bytes < 0.1 * 20_000
    assert sessions_acc.injected_bytes > 20_000 - 0.35 * 20_000 - 0.20 * 20_000
    assert injection.injected_bytes <= injection.budget


@pytest.mark.parametrize("slots", [15, 6])
def test_every_area_gets_an_entry_when_the_newest_are_from_two(project: Path, slots: int):
    # 15 newest entries: only "插件" and "部署"; then the quiet areas, older.
    entries = [(age, "插件" if age % 2 else "部署") for age in range(15)]
    entries += [(60 + age, "网络") for age in range(6)] + [(300, "搜索"), (320, "")]
    _write(project, "SESSIONS.md", sessions_log(entries))
    injection = _inject(project, TrilogySettings(sessionEntriesInjected=slots))
    assert sorted(name for name, _ in injection.area_counts) == sorted(["插件", "部署", "网络", "搜索", GENERAL_AREA])
    injected = dict(injection.area_injected)
    for area in ("插件", "部署", "网络", "搜索", GENERAL_AREA):
        assert injected.get(area, 0) >= 1, area
    fair = slots / 5
    assert all(count <= max(1, 2 * fair) for count in injected.values())
    assert sum(injected.values()) <= slots
    # newest-15 would have held only the two hot areas
    assert {area for _, area in entries[:15]} == {"插件", "部署"}


def test_attention_weight_gives_recent_areas_more(project: Path):
    entries = [(age, "hot") for age in range(10)] + [(200 + age, "cold") for age in range(10)]
    _write(project, "SESSIONS.md", sessions_log(entries))
    shares = {s.name: s for s in _inject(project, TrilogySettings(sessionEntriesInjected=8)).areas}
    assert shares["cold"].slots >= 1
    assert shares["hot"].slots > shares["cold"].slots
    assert shares["hot"].weight > shares["cold"].weight


def test_sixth_area_in_file_counts_as_general(project: Path):
    entries = [(1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "c"), (6, "c"), (7, "d"), (8, "d"), (9, "e"), (10, "")]
    _write(project, "SESSIONS.md", sessions_log(entries))
    counts = dict(_inject(project).area_counts)
    assert set(counts) == {"a", "b", "c", "d", GENERAL_AREA}
    assert counts[GENERAL_AREA] == 2
    assert _inject(project).area_line.endswith(f"{GENERAL_AREA}(2)")


@pytest.mark.parametrize("window", [40_000, 100_000, 400_000])
def test_everything_inside_the_fence_fits_the_budget(project: Path, window: int):
    sizes = {"这是什么": 3 * KB, "怎么跑和怎么测": 5 * KB, "东西都在哪": 3 * KB, "State": 12 * KB, "坑": 3 * KB}
    _write(project, "PROJECT.md", project_with_sections(sizes))
    _write(project, "DECISIONS.md", "# DECISIONS\n\n" + "".join(
        f"## {TODAY - timedelta(days=d)} — choice {d}\nChose: a\nOver: b\nBecause: c\n\n" for d in range(300)))
    _write(project, "SESSIONS.md", sessions_log([(d, "x" if d % 3 else "y") for d in range(200)]))
    injection = _inject(project, window=window)
    assert injection.budget == min(160_000, int(window * 0.16))
    inner = injection.text.split(NOTE + "\n\n", 1)[1].removesuffix("\n</memory-context>")
    assert len(inner.encode()) <= injection.budget
    assert injection.files[2].entries_injected > 0  # the log is never crowded out entirely


def test_bootstrap_note_only_while_project_is_empty(project: Path):
    assert _inject(project).bootstrap and "PROJECT.md 还是空的" in _inject(project).text
    assert not _inject(project, TrilogySettings(bootstrapWhenEmpty=False)).bootstrap
    path = project / "memory" / "PROJECT.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## State\n\n暂无", "## State\n\nworks"), encoding="utf-8")
    assert not _inject(project).bootstrap


@pytest.mark.parametrize("lag_days, stale_days, hinted", [(20, 14, True), (10, 14, False), (20, 0, False)])
def test_staleness_hint(project: Path, lag_days: int, stale_days: int, hinted: bool):
    memory = project / "memory"
    now = 1_800_000_000
    os.utime(memory / "PROJECT.md", (now - lag_days * 86_400, now - lag_days * 86_400))
    os.utime(memory / "SESSIONS.md", (now, now))
    os.utime(memory / "DECISIONS.md", (now - 40 * 86_400, now - 40 * 86_400))
    injection = _inject(project, TrilogySettings(projectStaleDays=stale_days))
    assert (injection.stale_days == lag_days) is hinted
    assert ("PROJECT.md 已落后" in injection.text) is hinted
