from pathlib import Path

from scriptorium.core.trilogy import TrilogySession, TrilogySettings

from .conftest import TODAY, sessions_log


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _session(project: Path, clock: Clock | None = None, **settings) -> TrilogySession:
    session = TrilogySession(project, TrilogySettings(**settings), clock=clock or Clock(), today=lambda: TODAY)
    session.open()
    return session


def test_unchanged_files_are_not_reinjected(project: Path):
    first = _session(project)
    block = first.inject()
    assert block.startswith("<memory-context>")
    assert first.inject() == ""  # the session already holds it

    resumed = _session(project)  # e.g. the host restarted; the conversation still has the block
    assert resumed.inject(held=["earlier text", block]) == ""
    assert resumed.pre_step() == ""  # no false "updated" notice after a restart


def test_changed_files_reinjected_for_a_new_conversation(project: Path):
    block = _session(project).inject()
    _session(project).checkpoint([{"kind": "session", "done": "x"}])
    assert _session(project).inject(held=[block]) not in ("", block)


def test_write_during_session_gives_a_short_notice_not_a_reinjection(project: Path):
    session = _session(project)
    session.inject()
    session.checkpoint([{"kind": "session", "done": "fixed the proxy, verified with curl"}])
    notice = session.pre_step()
    assert "记忆已更新" in notice and "SESSIONS.md" in notice
    assert "<memory-context>" not in notice
    assert len(notice.encode("utf-8")) <= 250
    assert session.inject() == ""
    assert session.pre_step() == ""  # announced once


def test_compaction_that_drops_the_block_allows_reinjection(project: Path):
    session = _session(project)
    block = session.inject()
    assert not session.forget_injection(["unrelated"])
    assert session.forget_injection([f"system: {block}"])
    assert session.inject() == block


def test_nudge_is_owed_then_delivered_with_the_next_step(project: Path):
    clock = Clock()
    session = _session(project, clock)
    session.inject()
    assert session.turn_ended(did_work=True) is True
    clock.now += 5
    assert "memory_checkpoint" in session.pre_step()
    assert session.pre_step() == ""  # delivered once


def test_no_nudge_for_idle_turns_or_turns_that_wrote(project: Path):
    session = _session(project)
    assert session.turn_ended(did_work=False) is False
    session.checkpoint([{"kind": "session", "done": "x"}])
    assert session.turn_ended(did_work=True) is False
    assert _session(project, nudgeOnTurnEnd=False).turn_ended(did_work=True) is False


def test_nudge_cooldown_and_per_session_cap(project: Path):
    clock = Clock()
    session = _session(project, clock, nudgeCooldownMs=600_000, nudgeMaxPerSession=3)
    delivered_at = []
    for _ in range(40):  # a working turn every two minutes for 80 minutes
        session.turn_ended(did_work=True)
        if "memory_checkpoint" in session.pre_step():
            delivered_at.append(clock.now)
        clock.now += 120
    assert len(delivered_at) == 3
    gaps = [b - a for a, b in zip(delivered_at, delivered_at[1:])]
    assert all(gap >= 600 for gap in gaps)


def test_successful_write_resets_the_cap(project: Path):
    clock = Clock()
    session = _session(project, clock, nudgeCooldownMs=0, nudgeMaxPerSession=1)
    session.turn_ended(did_work=True)
    assert session.pre_step()
    session.turn_ended(did_work=True)
    assert session.pre_step() == ""  # cap reached
    session.checkpoint([{"kind": "session", "done": "x"}])
    session.turn_ended(did_work=True)  # the writing turn: nothing owed
    session.pre_step()
    assert session.turn_ended(did_work=True) is True


def test_recall_finds_entries_the_injection_left_out(project: Path):
    path = project / "memory" / "SESSIONS.md"
    text = sessions_log([(age, "") for age in range(1, 40)])
    text = text.replace("Done: entry 38 in general", "Done: entry 38 moved the squid proxy to port 3129")
    path.write_text(text, encoding="utf-8")
    session = _session(project, sessionEntriesInjected=5)
    block = session.inject()
    assert "squid" not in block
    recalled = session.pre_step("squid proxy port")
    assert "squid proxy to port 3129" in recalled and recalled.count("<memory-context>") == 1
    assert "Done: entry 1 in general" not in session.pre_step("entry general")  # injected already
