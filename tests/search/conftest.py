"""A small memory workspace in the strict topic syntax, with its evidence archive."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory.sources import MARKER, SourceRecord, anchor_for

RECORDS = {
    "openprogram/s1/m1": "How big should the build cache be? Maybe talk to zanzibar about it.",
    "openprogram/s1/m2": "Deploys happen on Tuesday evenings.",
    "openprogram/s1/m3": "Ada prefers green tea in the afternoon.",
    "openprogram/s1/m4": "部署窗口在每周二晚上，回滚需要值班负责人批准。",
    "openprogram/s1/m5": "缓存目录是共享的，这是有意为之。",
}
ARCHIVE = "sources/openprogram/_v2/s1.md"

# (topic path, heading, [(block id, text, source id)])
TOPICS = [
    ("infra/build_cache.md", "Build cache", [
        ("a1b2c3d4", "Each CI runner gets a 50 GB build cache, evicted least recently used.", "openprogram/s1/m1"),
        ("a1b2c3d5", "The cache directory is shared between jobs on purpose.", "openprogram/s1/m5"),
    ]),
    ("infra/deploys.md", "Deploys", [
        ("d1e2f3a4", "Production deploys run on Tuesday evenings only.", "openprogram/s1/m2"),
    ]),
    ("people/ada.md", "Ada", [
        ("0a0b0c0d", "Ada likes green tea in the afternoon.", "openprogram/s1/m3"),
    ]),
    ("项目/部署.md", "部署", [
        ("5e6f7a8b", "部署窗口在每周二晚上，回滚需要值班负责人批准。", "openprogram/s1/m4"),
        ("5e6f7a8c", "缓存目录在多个作业之间共享，这是有意为之，不要修。", "openprogram/s1/m5"),
    ]),
]


def topic_text(path: str, heading: str, blocks: list[tuple[str, str, str]]) -> str:
    depth = path.count("/") + 1
    up = "../" * depth
    parts = [f"# {heading}\n"]
    definitions = []
    for number, (block_id, text, source_id) in enumerate(blocks):
        evidence = f"e-{block_id}{number:02d}"[:12]
        parts.append(f"\n{text}[^{evidence}] ^{block_id}\n")
        definitions.append(
            f"[^{evidence}]: Time: `2026-01-02`; Sources: [evidence]({up}{ARCHIVE}#{anchor_for(source_id)})"
        )
    return "".join(parts) + "\n" + "\n".join(definitions) + "\n"


def write_workspace(memory: Path) -> Path:
    archive = memory / ARCHIVE
    archive.parent.mkdir(parents=True)
    frames = [
        SourceRecord(source_id=sid, timestamp="2026-01-02T10:00:00+00:00", content=text).render()
        for sid, text in RECORDS.items()
    ]
    archive.write_text(MARKER + "\n\n" + "\n".join(frames), encoding="utf-8")
    for path, heading, blocks in TOPICS:
        target = memory / "topics" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(topic_text(path, heading, blocks), encoding="utf-8")
    return memory


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return write_workspace(tmp_path / "state" / "memory")
