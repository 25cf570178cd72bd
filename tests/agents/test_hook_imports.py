"""What a hook costs its agent (issue 27: a hook ≤ 3× a bare interpreter's CPU): its imports, and its job's priority.

Every event of every agent, through the console command's entry in a fresh interpreter, the
way an agent runs it (the warm recall process up, as after a session start): none loads
`dataclasses` (which pulls in inspect, ast, dis and tokenize), `typing`, threading, the CLI's
parser, Hyperscan (a log line without a secret's literal never builds the redactor) or
anything recall's warm process keeps loaded. Modules on this path use core/values.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scriptorium.core.agents.hooks import adapter

from .conftest import CC_TOOL_HEAVY, CODEX_SMALL, PI_SMALL, last, wait_for_job
from .test_recall_warm import PROMPTS, warm, warm_up  # noqa: F401  (warm: the fixture)

NEVER = {"dataclasses", "typing", "inspect", "ast", "dis", "tokenize", "threading", "argparse", "subprocess",
         "socket", "hyperscan", "tomllib", "numpy", "tokenizers", "scriptorium.core.cli", "scriptorium.core.search"}
PROBE = """
import json, sys
from scriptorium.tui.entry import main
code = main(sys.argv[1:])
sys.stderr.write(json.dumps({"code": code, "modules": sorted(sys.modules)}) + "\\n")
"""
TRANSCRIPT = {"claude-code": ("transcript_path", CC_TOOL_HEAVY), "codex": ("transcript_path", CODEX_SMALL),
              "pi": ("session_file", PI_SMALL)}
CALLS = [(agent, name) for agent in ("claude-code", "codex", "pi")
         for event, name in {e: n for n, e in reversed(adapter(agent).EVENTS.items())}.items()]  # one name per event


@pytest.mark.parametrize(("agent", "event"), CALLS)
def test_no_hook_event_imports_dataclasses_typing_or_the_redactor(state, warm, agent, event):  # noqa: F811
    warm.append(state)
    if adapter(agent).EVENTS[event] in ("user-prompt-submit", "before-agent-start"):
        warm_up(state)  # as after a session start: recall goes to it
    field, transcript = TRANSCRIPT[agent]
    doc = {"session_id": f"probe-{agent}", "cwd": str(state), "prompt": PROMPTS[0], "source": "startup",
           "reason": "quit", "agent_id": "a1", field: str(transcript)}
    done = subprocess.run([sys.executable, "-c", PROBE, "--state", str(state), "hook", agent, event],
                          input=json.dumps(doc).encode(), capture_output=True, timeout=120, check=False)
    report = json.loads(done.stderr.decode().strip().splitlines()[-1])
    assert report["code"] == 0
    assert last(state).outcome != "error", last(state).error
    assert sorted(NEVER & set(report["modules"])) == []
    if last(state).detail.get("phase") == "queued":
        assert wait_for_job(state).outcome != "error"  # its job ran (and loads what it needs there)


def test_the_detached_job_runs_at_a_lower_priority_than_the_agent(state):
    """A Stop's job (import, write) must not take the CPU the agent it came from waits on."""
    import os
    import time

    from .conftest import cli, payload

    doc = payload("claude-code", "stop", session_id="nice-job", transcript_path=str(CC_TOOL_HEAVY))
    assert cli(state, "claude-code", "stop", doc).returncode == 0
    job = last(state).detail["pid"]
    seen = set()
    deadline = time.time() + 30
    while time.time() < deadline and 10 not in seen:
        try:
            seen.add(os.getpriority(os.PRIO_PROCESS, job) - os.getpriority(os.PRIO_PROCESS, 0))
        except OSError:
            break  # it ended
        time.sleep(0.002)
    assert 10 in seen, seen
    assert wait_for_job(state).outcome != "error"
