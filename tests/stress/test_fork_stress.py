"""Fork stress in CI (issue 9): a hypothesis state machine over the stress world, a
short seeded run of bench/stress.py, and the baselines pinned on a known case. The
long run (10,000 operations, hundreds of crashes) is a benchmark: bench/stress.py."""

from __future__ import annotations

import importlib.util
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from .world import CRASH_POINTS, CrashPlan, World

BENCH = Path(__file__).resolve().parents[2] / "bench" / "stress.py"

picks = st.integers(0, 1 << 16)
# one rule drawing the operation (not a rule per operation): hypothesis' swarm testing
# would switch whole rules off per example, and a run without writes proves little
OPERATIONS = ("append", "append", "append", "tool", "retry", "reask", "rewind", "compact", "spawn",
              "write", "write", "finish", "finish", "sleep")


class ForkStress(RuleBasedStateMachine):
    """Random operations with crashes; the invariants after every step, and at the end
    (a finish of every session): missed = 0 and duplicates only where a crash fell
    between an install and its marks."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="fork-stress-"))
        self.world = World(self.tmp / "state", threshold=40)

    @initialize()
    def two_sessions_under_way(self) -> None:
        for pick in (0, 1):
            self.world.new_session()
            for _ in range(4):
                self.world.append(pick)

    @rule(op=st.sampled_from(OPERATIONS), pick=picks, a=picks, b=picks,
          crash=st.sampled_from((None, *CRASH_POINTS)), nth=st.integers(1, 2))
    def step(self, op: str, pick: int, a: int, b: int, crash: str | None, nth: int) -> None:
        """One operation; a write, finish or sleep may crash at `crash` (its nth time)."""
        plan = CrashPlan(crash, nth) if crash else None
        if op == "spawn":
            self.world.spawn(pick, a, b)
        elif op in ("reask", "rewind", "compact"):
            getattr(self.world, op)(pick, a)
        elif op == "sleep":
            self.world.sleep(plan)
        elif op in ("write", "finish"):
            getattr(self.world, op)(pick, plan)
        else:
            getattr(self.world, op)(pick)

    @invariant()
    def invariants_hold(self) -> None:
        assert self.world.check() == []

    def teardown(self) -> None:
        try:
            figures = self.world.final()
            assert figures.violations == []
            assert figures.missed == 0
            assert figures.duplicates <= figures.exposed and figures.bound_violations == 0
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


ForkStress.TestCase.settings = settings(max_examples=6, stateful_step_count=25, deadline=None, derandomize=True,
                                        database=None, suppress_health_check=list(HealthCheck))
test_fork_stress_state_machine = ForkStress.TestCase


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_stress", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_seeded_bench_run_prints_its_figures_and_keeps_the_promise(capsys: pytest.CaptureFixture[str]) -> None:
    status = load_bench().main(["--operations", "70", "--seed", "3"])
    out = capsys.readouterr().out.strip().splitlines()
    line = json.loads(out[-1])
    assert list(line)[:5] == ["operations", "crashes", "missed", "duplicates", "baselines"]  # extended by issue 19
    assert list(line["baselines"]) == ["cursor", "watermark"]
    assert all(set(b) == {"missed", "duplicates"} for b in line["baselines"].values())
    assert status == 0 and line["operations"] == 70 and line["crashes"] > 0
    assert line["missed"] == 0
    assert line["baselines"]["cursor"]["missed"] > 0  # abandoned branches and forks behind the cursor
    assert "invariant violations: 0" in out


def test_baselines_reproduce_their_known_failures_on_a_fork(tmp_path: Path) -> None:
    """Main branch written, then a re-ask from an early message: the cursor reads the
    fork as already written (missed), the watermark extracts it from scratch (the shared
    prefix again); the marker writes exactly the fork's own turns."""
    world = World(tmp_path / "state", threshold=10_000)
    sid = world.new_session()
    for _ in range(12):
        world.append(0)
    world.finish(0)
    mirror = world.mirrors[sid]
    early_user = [n for n in mirror.branch(mirror.head) if n.kind == "user"][2]  # the 5th turn: 4 turns shared
    world.reask(0, 2)
    assert mirror.nodes[mirror.head].pred == early_user.pred
    for _ in range(3):
        world.append(0)
    world.finish(0)
    figures = world.final()
    assert figures.violations == [] and (figures.missed, figures.duplicates) == (0, 0)
    assert figures.cursor == {"missed": 4, "duplicates": 0}  # the fork's 4 turns sit at ordinals the cursor passed
    assert figures.watermark == {"missed": 0, "duplicates": 4}  # the 4 shared turns, extracted again
