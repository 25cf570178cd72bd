"""Shared setup for the hook tests: payloads copied from the agents' docs, states with memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scriptorium.core.agents import hook_log
from scriptorium.core.agents.hooks import FOREGROUND_ENV, run
from scriptorium.core.memory import Workspace, save_topic

PAYLOADS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
TRANSCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
CC_TOOL_HEAVY = TRANSCRIPTS / "claude-code__marot_spotter__tool_heavy.jsonl"
CODEX_SMALL = TRANSCRIPTS / "codex__jazzyalex_agent-sessions__small.jsonl"
PI_SMALL = TRANSCRIPTS / "pi__jazzyalex_agent-sessions__small.jsonl"

CORE = "# Core\n\nThe user is called Ada and drinks green tea.\n"
DEPLOYS = "# Deploys\n\nProduction deploys run on Tuesday evenings, never on Fridays.\n"
CACHE = "# Cache\n\nThe sccache bucket is per region; objects expire fourteen days after their last access.\n"


def payload(agent: str, event: str, **override: Any) -> dict[str, Any]:
    """The documented payload of `event`, with the fields a test needs replaced."""
    doc = json.loads((PAYLOADS / f"{agent}.{event}.json").read_text(encoding="utf-8"))
    doc.update(override)
    return doc


def call(state: Path, agent: str, event: str, doc: dict[str, Any] | bytes | None = None, **kw: Any) -> str:
    raw = doc if isinstance(doc, bytes) else json.dumps(doc or {}).encode("utf-8")
    return run(agent, event, raw, state, **kw)


def cli(state: Path, agent: str, event: str, doc: dict[str, Any] | bytes, *, foreground: bool = False,
        timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """The real command in a fresh process, as the agent runs it."""
    raw = doc if isinstance(doc, bytes) else json.dumps(doc).encode("utf-8")
    env = {**__import__("os").environ}
    env.pop(FOREGROUND_ENV, None)
    argv = [sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "hook", agent, event]
    return subprocess.run(argv + (["--foreground"] if foreground else []), input=raw, capture_output=True,
                          timeout=timeout, env=env, check=False)


def last(state: Path) -> hook_log.HookCall:
    return hook_log.recent(state, limit=1)[0]


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    """A state whose memory has a core and two topics, installed through transactions."""
    root = tmp_path / "state"
    ws = Workspace.open(root)
    for topic, text in (("core.md", CORE), ("infra/deploys.md", DEPLOYS), ("infra/cache.md", CACHE)):
        result = save_topic(ws, topic, text)
        assert result.outcome == "installed", result.diagnostics
    return root


def set_config(state: Path, text: str) -> None:
    (state / "config.toml").write_text(text, encoding="utf-8")


def wait_for_job(state: Path, timeout: float = 120) -> hook_log.HookCall:
    """The log entry of the detached job (it runs `--foreground`), once it has written one."""
    import time

    deadline = time.time() + timeout
    while time.time() < deadline:
        done = [c for c in hook_log.recent(state) if c.detail.get("phase") == "foreground"]
        if done:
            return done[0]
        time.sleep(0.2)
    raise AssertionError("the detached job never logged its work")
