"""`scriptorium import` and `scriptorium watch --import`: contracts, defaults, live following."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from scriptorium.core.cli import main
from scriptorium.core.watch.follow import ImportFollower
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.paths import SessionPaths
from scriptorium.core.sessions.store import SessionStore

from .conftest import CC_REWIND, CODEX_SMALL, PI_BRANCHING, forks


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture()
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run the CLI in-process (the same `main` the console script calls)."""

    def run(state: Path, *args: str, env: dict[str, str] | None = None) -> Ran:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        try:
            code = main(["--state", str(state), *args])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        out = capsys.readouterr()
        return Ran(code, out.out, out.err)

    return run


def test_import_json_summary_and_exit_codes(cli, tmp_path: Path) -> None:
    state = tmp_path / "state"
    done = cli(state, "import", "claude-code", str(CC_REWIND), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["sessions"] == 1 and doc["sessions_created"] == 1
    assert doc["nodes_added"] > 0 and doc["nodes_unchanged"] == 0
    assert doc["folded"] == {"compact boundary (into its summary node)": 1}
    assert isinstance(doc["seconds"], float) and 0 < doc["seconds"] < 60
    again = json.loads(cli(state, "import", "claude-code", str(CC_REWIND), "--json").stdout)
    assert again["nodes_added"] == 0 and again["nodes_unchanged"] == doc["nodes_added"]

    missing = cli(state, "import", "pi", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr
    assert cli(state, "import", "cursor").returncode == 2

    text = cli(state, "import", "pi", str(PI_BRANCHING))
    assert text.returncode == 0 and "1 session(s) (1 new)" in text.stdout and "future_entry" in text.stdout
    assert " s" in text.stdout.splitlines()[0] and ", in " in text.stdout.splitlines()[0]


def test_a_dry_run_counts_what_an_import_would_add_and_writes_nothing(cli, tmp_path: Path) -> None:
    state = tmp_path / "state"
    source = tmp_path / "s.jsonl"
    lines = CC_REWIND.read_text().splitlines(keepends=True)
    source.write_text("".join(lines[:6]))
    preview = json.loads(cli(state, "import", "claude-code", str(source), "--dry-run", "--json").stdout)
    assert preview["dry_run"] is True and preview["sessions_created"] == 1 and preview["nodes_added"] > 0
    assert not (state / "sessions").exists() or not any((state / "sessions").iterdir())
    done = json.loads(cli(state, "import", "claude-code", str(source), "--json").stdout)
    assert done["dry_run"] is False and done["nodes_added"] == preview["nodes_added"]

    with source.open("a") as fh:
        fh.write("".join(lines[6:]))
    sid = done["session_ids"][0]
    before = {p.name: p.read_bytes() for p in SessionPaths.of(state, sid).history.iterdir()}
    grown = json.loads(cli(state, "import", "claude-code", str(source), "--dry-run", "--json").stdout)
    assert grown["sessions_created"] == 0 and grown["nodes_unchanged"] == done["nodes_added"]
    assert {p.name: p.read_bytes() for p in SessionPaths.of(state, sid).history.iterdir()} == before
    final = json.loads(cli(state, "import", "claude-code", str(source), "--json").stdout)
    assert final["nodes_added"] == grown["nodes_added"] > 0
    text = cli(state, "import", "claude-code", str(source), "--dry-run")
    assert "would be added (dry run: nothing written)" in text.stdout


def test_default_locations_follow_each_agents_environment(cli, tmp_path: Path) -> None:
    (tmp_path / "claude" / "projects" / "p").mkdir(parents=True)
    shutil.copyfile(CC_REWIND, tmp_path / "claude" / "projects" / "p" / "s1.jsonl")
    (tmp_path / "pi" / "sessions" / "--w--").mkdir(parents=True)
    shutil.copyfile(PI_BRANCHING, tmp_path / "pi" / "sessions" / "--w--" / "x.jsonl")
    (tmp_path / "codex" / "sessions" / "2026").mkdir(parents=True)
    shutil.copyfile(CODEX_SMALL, tmp_path / "codex" / "sessions" / "2026" / "rollout.jsonl")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "PI_CODING_AGENT_DIR": str(tmp_path / "pi"),
           "CODEX_HOME": str(tmp_path / "codex")}
    for kind in ("claude-code", "pi", "codex"):
        doc = json.loads(cli(tmp_path / "state", "import", kind, "--json", env=env).stdout)
        assert doc["files"] == 1 and doc["sessions_created"] == 1, (kind, doc)
    empty = json.loads(cli(tmp_path / "state2", "import", "pi", "--json",
                           env={"PI_CODING_AGENT_DIR": str(tmp_path / "none")}).stdout)
    assert empty["files"] == 0 and empty["sessions"] == 0


def test_progress_reports_bytes_up_to_the_total(store: SessionStore) -> None:
    seen: list[tuple[int, int]] = []
    import_sources(store, "claude-code", [CC_REWIND], progress=lambda done, total, label: seen.append((done, total)))
    assert seen and all(total == CC_REWIND.stat().st_size for _, total in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == seen[-1][1]


def wait_for(predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def test_follower_imports_lines_as_they_are_written(tmp_path: Path) -> None:
    project = tmp_path / "projects"
    project.mkdir()
    live = project / "s1.jsonl"
    live.write_text("")
    lines = CC_REWIND.read_text().splitlines(keepends=True)
    reports = []
    follower = ImportFollower(tmp_path / "state", "claude-code", [project], on_report=reports.append)
    follower.start()
    try:
        assert follower.initial_done.wait(20)
        reader = SessionStore(tmp_path / "state")
        with live.open("a") as fh:
            fh.write("".join(lines[:4]) + lines[4][:25])  # the agent is mid-line
            fh.flush()
            wait_for(lambda: reader.has_session("cc-s1") and reader.has_node("cc-s1", "b1a"))
            assert not reader.has_node("cc-s1", "b2u")
            fh.write(lines[4][25:] + "".join(lines[5:]))
            fh.flush()
        wait_for(lambda: reader.has_node("cc-s1", "p1a"))
    finally:
        follower.stop()
    assert forks(reader.nodes("cc-s1")) == {"a1": {"b1u", "b2u"}}
    assert sum(r.nodes_added for r in reports) == len(reader.nodes("cc-s1")) - 1  # all but ROOT
    assert not any(r.errors for r in reports)


def test_following_a_slow_to_import_file_waits_longer(tmp_path: Path) -> None:
    follower = ImportFollower(tmp_path / "state", "claude-code", [tmp_path])
    quick = follower.delays()
    follower.last_import_s = 0.8  # a huge live session: re-reading it took 0.8 s
    quiet, longest = follower.delays()
    assert quick == (0.3, 2.0)
    assert quiet >= 1.6 and longest >= 8.0  # at most about a tenth of the time spent importing


def test_watch_command_streams_imports_and_stops_on_sigterm(tmp_path: Path) -> None:
    project = tmp_path / "projects"
    project.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "scriptorium.core.cli", "--state", str(tmp_path / "state"),
                             "watch", "--import", "claude-code", str(project), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        assert json.loads(lines.get(timeout=30)) == {"event": "started",
                                                     "duties": ["import", "finish idle sessions", "nightly sleep"]}
        shutil.copyfile(CC_REWIND, project / "s1.jsonl")
        event = json.loads(lines.get(timeout=30))
        assert event["event"] == "import" and event["session_ids"] == ["cc-s1"] and event["nodes_added"] > 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert json.loads(lines.get(timeout=5)) == {"event": "stopped"}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_needs_a_duty_and_one_kind_per_path(cli, tmp_path: Path) -> None:
    assert cli(tmp_path, "watch", "--no-finish", "--no-sleep").returncode == 2
    both = cli(tmp_path, "watch", "--import", "pi", "--import", "codex", str(tmp_path))
    assert both.returncode == 2 and "exactly one" in both.stderr
