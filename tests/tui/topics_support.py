"""A small memory workspace for the Topics and Search screens: English and Chinese topics,
block links between them, every block citing archived evidence. Built through the
transaction with fixed record times and fixed git dates, so ids, text and history are
the same on every run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scriptorium.core.memory import Transaction, Workspace, session_record

GIT_DATE = "2026-01-02T10:00:00+00:00"
DAY = 1_767_312_000.0  # 2026-01-02 00:00 UTC

RECORDS = [
    ("d1", "I'm Ada; I run the build platform and I prefer tea to coffee."),
    ("d2", "Size the shared build cache at 50 GB per runner and evict least-recently-used entries."),
    ("d3", "Rust target directories are cached only for main and release branches."),
    ("d4", "Deploys happen Tuesday to Thursday mornings; Friday only for approved hotfixes."),
    ("d5", "周五不做常规部署，只允许经过批准的热修复。"),
    ("d6", "构建缓存按 Cargo.lock 的哈希作为键，缓存命中率提高到百分之九十。"),
]


def _cite(n: int) -> str:
    return f"[^e{n}]: Time: `2026-01-02`; Sources: [conversation](openprogram/demo/d{n})"


TOPICS = {
    "core.md": (
        "# Core\n\n"
        "The user is Ada, who runs the build platform and prefers tea to coffee.[^e1]\n\n"
        "Deploy only Tuesday to Thursday mornings; Friday is for approved hotfixes.[^e4]\n\n"
        + _cite(1) + "\n" + _cite(4) + "\n"
    ),
    "infra/build-cache.md": (
        "# Build cache\n\n"
        "## Sizing\n\n"
        "The shared build cache is 50 GB per runner, evicting least-recently-used entries.[^e2]\n\n"
        "Rust target directories are cached only for main and release branches.[^e3]\n\n"
        "构建缓存以 Cargo.lock 的哈希为键，命中率约百分之九十。[^e6]\n\n"
        + _cite(2) + "\n" + _cite(3) + "\n" + _cite(6) + "\n"
    ),
    "ops/deploys.md": (
        "# Deploys\n\n"
        "周五不做常规部署，只允许经过批准的热修复。[^e5]\n\n"
        + _cite(5) + "\n"
    ),
}


def build_topics(state: Path) -> Workspace:
    """Install the topics above (one write, then one edit adding a block link), with fixed git dates."""
    saved = {key: os.environ.get(key) for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")}
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = GIT_DATE
    try:
        workspace = Workspace.open(state)
        records = [session_record("demo", mid, "user", text, DAY + 60 * n) for n, (mid, text) in enumerate(RECORDS)]
        with Transaction(workspace, "write", "demo topics") as txn:
            txn.archive(records)
            for path, text in TOPICS.items():
                txn.write_topic(path, text)
            result = txn.commit()
        assert result.outcome == "installed", result.diagnostics
        cache = workspace.topic("infra/build-cache.md")
        target = cache.blocks[0].block_id
        core = workspace.read_topic("core.md")
        linked = core.replace("prefers tea to coffee.", f"prefers tea to coffee; see [the cache](infra/build-cache.md#^{target}).")
        with Transaction(workspace, "edit", "link the core to the cache") as txn:
            txn.write_topic("core.md", linked)
            result = txn.commit()
        assert result.outcome == "installed", result.diagnostics
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return workspace


_TEMPLATE: list[Path] = []  # built once per test process, copied for each test


def topics_state_copy(tmp_path_factory, tmp_path: Path) -> Path:
    """A private state directory holding the topics above (the workspace id fixed)."""
    from .conftest import fix_workspace_id

    if not _TEMPLATE:
        template = tmp_path_factory.mktemp("topics-template") / "state"
        fix_workspace_id(template)
        build_topics(template)
        _TEMPLATE.append(template)
    state = tmp_path / "state"
    shutil.copytree(_TEMPLATE[0], state, symlinks=True)
    return state


class Probe:
    """A live-updates subscriber for tests: records every `DiskChanged`; `next()` hands them
    out in order (waiting, without polling, for one to arrive)."""

    def __init__(self) -> None:
        import threading

        self.messages: list = []
        self.read = 0  # messages handed out by next()
        self._event = threading.Event()

    def post_message(self, message) -> bool:
        self.messages.append(message)
        self._event.set()
        return True

    async def next(self, timeout: float = 10.0):
        import asyncio

        while self.read >= len(self.messages):
            self._event.clear()
            if self.read < len(self.messages):
                break
            woke = await asyncio.get_running_loop().run_in_executor(None, self._event.wait, timeout)
            assert woke, "no DiskChanged arrived"
        self.read += 1
        return self.messages[self.read - 1]

    async def until(self, predicate, timeout: float = 10.0):
        """The next message for which `predicate` holds (those before it are passed over)."""
        while not predicate(message := await self.next(timeout)):
            pass
        return message


async def settle_until(pilot, settle, predicate, rounds: int = 50) -> None:
    """Let messages and workers run until `predicate()` holds (a message can start a worker
    whose result starts another); fails after `rounds` settled rounds, never sleeps."""
    for _ in range(rounds):
        if predicate():
            return
        await settle(pilot)
    assert predicate(), "the app never reached the expected state"


def visible_files(state: Path) -> dict[str, bytes]:
    """Every file of the memory workspace except git's and the runtime's own."""
    memory = state / "memory"
    return {path.relative_to(memory).as_posix(): path.read_bytes() for path in sorted(memory.rglob("*"))
            if path.is_file() and not path.relative_to(memory).parts[0].startswith(".")}
