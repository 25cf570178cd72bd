"""A transcript of gigabytes without a newline (a sparse file, a runaway writer): the Stop
hook and `scriptorium import` read it a bounded chunk at a time, skip the line that is too
long and say so, and stay far below its size in memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scriptorium.core.agents import hook_log

FIXTURE = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts" / \
    "claude-code__marot_spotter__tool_heavy.jsonl"
GIB = 1024 ** 3

# The command in a fresh interpreter that reports its own peak RSS (KiB) on its last stderr line:
# VmHWM, the high-water mark of its own memory (ru_maxrss would carry over the forking parent's).
RUNNER = """
import sys
from scriptorium.core.cli import main
code = main(sys.argv[1:])
peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM"))
sys.stderr.write("\\nmaxrss=%s\\n" % peak)
sys.exit(code)
"""


def sparse_transcript(path: Path, size: int = 2 * GIB) -> Path:
    """The real transcript's lines, then zeros up to `size` with no newline (sparse: no disk used)."""
    path.write_bytes(FIXTURE.read_bytes())
    with open(path, "r+b") as fh:
        fh.truncate(size)
    return path


def run(state: Path, *args: str, stdin: bytes = b"") -> tuple[int, str, str, float]:
    done = subprocess.run([sys.executable, "-c", RUNNER, "--state", str(state), *args], input=stdin,
                          capture_output=True, timeout=300, check=False)
    err = done.stderr.decode()
    rss_mb = int(err.rsplit("maxrss=", 1)[1]) / 1024
    return done.returncode, done.stdout.decode(), err.rsplit("\nmaxrss=", 1)[0], rss_mb


def test_the_stop_hook_on_a_huge_line_stays_small_and_logs_one_error(tmp_path):
    transcript = sparse_transcript(tmp_path / "cc-huge.jsonl", GIB // 2)  # the bound does not follow the size
    state = tmp_path / "state"
    doc = {"session_id": "huge", "transcript_path": str(transcript), "hook_event_name": "Stop", "cwd": str(tmp_path)}
    code, out, err, rss = run(state, "hook", "claude-code", "stop", "--foreground", stdin=json.dumps(doc).encode())
    assert code == 0 and out == "" and "Traceback" not in err
    assert rss < 200, f"peak RSS {rss:.0f} MB reading a 2 GB line"
    calls = hook_log.recent(state)
    assert len(calls) == 1 and calls[0].outcome == "error"
    assert "line longer than" in (calls[0].error or "") and "skipped" in (calls[0].error or "")
    assert calls[0].detail["steps"][0]["nodes_added"] > 0  # the lines before it were imported


def test_import_of_a_2gb_line_skips_it_reports_it_and_stays_small(tmp_path):
    transcript = sparse_transcript(tmp_path / "cc-huge.jsonl")
    code, out, err, rss = run(tmp_path / "state", "import", "claude-code", str(transcript), "--json")
    assert code == 0, err
    assert rss < 200, f"peak RSS {rss:.0f} MB reading a 2 GB line"
    report = json.loads(out)
    assert report["skipped"]["line longer than 16 MB"] == 1 and report["nodes_added"] > 0


def test_a_follower_inside_an_unfinished_long_line_skips_on_to_its_end(tmp_path, monkeypatch):
    """The line is counted once, while it is still being written, and the turns after it
    are read when they come."""
    from scriptorium.core.importers import jsonl
    from scriptorium.core.importers.plan import SessionPlan
    from scriptorium.core.importers.resume import FileMark

    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 100)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"n": 1}\n' + b"x" * 500)
    mark, plan = FileMark(), SessionPlan(session_id="", kind="claude-code")
    assert [r["n"] for _, r in jsonl.iter_records(path, plan, mark)] == [1]
    assert plan.skipped[jsonl.LONG_LINE] == 1 and mark.in_long_line and mark.offset == path.stat().st_size
    with open(path, "ab") as fh:
        fh.write(b"y" * 300 + b'\n{"n": 2}\n')
    later = SessionPlan(session_id="", kind="claude-code")
    assert [(number, r["n"]) for number, r in jsonl.iter_records(path, later, mark)] == [(3, 2)]
    assert not later.skipped and not mark.in_long_line
