"""Every fixed text the trilogy writes: file templates, the boot block, injected notes.

The spec's fixed vocabulary is kept verbatim (section names, `暂无`, `通用`, the area-map
and cut-note wording) so that files written by the original plugin open unchanged.
"""

from __future__ import annotations

PROJECT = "PROJECT.md"
DECISIONS = "DECISIONS.md"
SESSIONS = "SESSIONS.md"
FILES = (PROJECT, DECISIONS, SESSIONS)
ARCHIVE_DIR = "archive"

# PROJECT.md's five fixed sections, in their fixed order.
PROJECT_SECTIONS = ("这是什么", "怎么跑和怎么测", "东西都在哪", "State", "坑")
EMPTY = "暂无"
GENERAL_AREA = "通用"

# Headings written by earlier, English versions; renamed in place (heading line only).
LEGACY_HEADINGS = {
    "what this is": "这是什么",
    "what it is": "这是什么",
    "how to run and test": "怎么跑和怎么测",
    "how to run & test": "怎么跑和怎么测",
    "how to run / test": "怎么跑和怎么测",
    "how to run and how to test": "怎么跑和怎么测",
    "run and test": "怎么跑和怎么测",
    "where things are": "东西都在哪",
    "where things live": "东西都在哪",
    "where things go": "东西都在哪",
    "status": "State",
    "current state": "State",
    "gotchas": "坑",
    "pitfalls": "坑",
    "traps": "坑",
}


def project_template() -> str:
    parts = [
        "# PROJECT\n\n",
        "<!-- 项目现在是什么。就地编辑，控制在一屏内；与代码冲突时代码赢，并在同一轮修正本文件。空节写「暂无」。 -->\n",
    ]
    for name in PROJECT_SECTIONS:
        parts.append(f"\n## {name}\n\n{EMPTY}\n")
    return "".join(parts)


DECISIONS_TEMPLATE = (
    "# DECISIONS\n\n"
    "<!-- 为什么是这样。只追加，最新在最上。条目：标题行 `## YYYY-MM-DD — 选择`，"
    "然后 Chose / Over / Because 三行。 -->\n"
)

SESSIONS_TEMPLATE = (
    "# SESSIONS\n\n"
    "<!-- 发生了什么、什么时候。只追加，最新在最上。条目：标题行 `## YYYY-MM-DD · 区域`，"
    "然后 Done（含怎么验证的）/ Open / Next 三行。 -->\n"
)

ARCHIVE_TEMPLATE = (
    "# SESSIONS archive\n\n"
    "<!-- SESSIONS.md 超出条数上限后搬来的最旧条目，最新在最上；可以恢复。 -->\n"
)


def boot_block(memory_dir: str) -> str:
    return (
        "## Memory\n\n"
        f"本项目的跨会话记忆在 `{memory_dir}/`，会话开始时自动注入：\n\n"
        f"- `{memory_dir}/PROJECT.md` — 项目现在是什么（五节，就地编辑，控制在一屏内；与代码冲突时代码赢，同一轮修正）\n"
        f"- `{memory_dir}/DECISIONS.md` — 为什么是这样（只追加，最新在最上）\n"
        f"- `{memory_dir}/SESSIONS.md` — 发生了什么、什么时候（只追加，最新在最上）\n\n"
        "只记没有它未来的会话就会浪费时间或重犯错误的东西；不合格的候选是丢弃，不是删短。"
        "用 `memory_checkpoint` 分类写入，用 `memory_read` 读取。删除只允许配对替换，"
        "其他看着陈旧的内容写进报告交给用户决定。\n"
    )


def cut_note(actual_bytes: int, cap_bytes: int) -> str:
    return f"> （本节 {kb(actual_bytes)}，已超出注入上限 {kb(cap_bytes)}，请就地精简）\n"


def omitted_decisions_note(count: int) -> str:
    return f"> （另有 {count} 条较早的决定未注入，需要时用 memory_read 读取 DECISIONS.md）\n"


def area_map_line(counts: list[tuple[str, int]]) -> str:
    if not counts:
        return f"区域：（暂无，新条目归入 {GENERAL_AREA}）"
    return "区域：" + " · ".join(f"{name}({count})" for name, count in counts)


BOOTSTRAP_NOTE = (
    "[trilogy] PROJECT.md 还是空的：先调研这个项目（README、构建与测试命令、目录结构、已知的坑），"
    "再用 memory_checkpoint 把五节填上。"
)

NUDGE = (
    "[trilogy] 上一轮做了实事，但没有记录记忆。若有未来会话需要的东西（踩出来的约束、按成因的修复、"
    "有意为之的怪处、停在哪和下一步），用 memory_checkpoint 记下；没有就忽略，不必回复。"
)


def stale_note(days: int) -> str:
    return f"[trilogy] PROJECT.md 已落后其余记忆文件 {days} 天：请核对它是否仍是项目现状，并就地更新。"


def updated_notice(changed: list[str]) -> str:
    return (
        f"[trilogy] 记忆已更新：{'、'.join(changed)}。上面的注入不再重发；"
        "需要最新内容时用 memory_read 读取。"
    )


def kb(size: int) -> str:
    return f"{size / 1000:.1f} KB"
