"""The sync commands as a script sees them: one JSON document, documented exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from scriptorium.core.memory import Workspace, save_topic


def cli(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=120)


def test_remote_add_list_sync_and_remove(tmp_path):
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    save_topic(Workspace.open(a), "ada.md", "# Ada\n\nAda likes tea.\n")
    added = cli(a, "remote", "add", "origin", str(bare), "--json")
    assert added.returncode == 0 and json.loads(added.stdout) == {"name": "origin", "url": str(bare)}
    again = cli(a, "remote", "add", "origin", str(bare), "--json")
    assert again.returncode == 1 and json.loads(again.stdout)["outcome"] == "permanent"
    assert len(again.stderr.strip().splitlines()) == 1
    pushed = cli(a, "sync", "--json")
    assert pushed.returncode == 0 and json.loads(pushed.stdout)["code"] == "PUSHED"
    assert cli(b, "remote", "add", "origin", str(bare)).returncode == 0
    adopted = cli(b, "sync")
    assert adopted.returncode == 0, adopted.stderr
    assert "Ada likes tea." in Workspace(b).read_topic("ada.md")
    listed = json.loads(cli(b, "remote", "list", "--json").stdout)
    assert [(r["name"], r["ahead"], r["behind"]) for r in listed["remotes"]] == [("origin", 0, 0)]
    assert listed["last_sync"]["outcome"] == "ok" and listed["conflicts"] == []
    assert cli(b, "remote", "remove", "origin").returncode == 0
    none = cli(b, "sync", "--json")
    assert none.returncode == 1 and json.loads(none.stdout)["outcome"] == "permanent"


def test_an_unreachable_remote_exits_75_with_one_json_document(tmp_path):
    a = tmp_path / "a"
    save_topic(Workspace.open(a), "ada.md", "# Ada\n\nAda likes tea.\n")
    gone = tmp_path / "unmounted.git"  # there when added (remote add refuses a missing path), gone at sync
    subprocess.run(["git", "init", "-q", "--bare", str(gone)], check=True)
    assert cli(a, "remote", "add", "origin", str(gone)).returncode == 0
    shutil.rmtree(gone)
    out = cli(a, "sync", "--json")
    assert out.returncode == 75
    doc = json.loads(out.stdout)
    assert (doc["outcome"], doc["code"]) == ("retryable", "REMOTE_UNREACHABLE")
    assert "Traceback" not in out.stderr


def test_conflicts_are_listed_and_resolved_from_the_command_line(tmp_path):
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    save_topic(Workspace.open(a), "ada.md", "# Ada\n\nAda likes tea.\n")
    for s in (a, b):
        cli(s, "remote", "add", "origin", str(bare))
    cli(a, "sync"), cli(b, "sync"), cli(a, "sync")
    for s, drink in ((a, "green"), (b, "black")):
        ws = Workspace.open(s)
        save_topic(ws, "ada.md", ws.read_topic("ada.md").replace("Ada likes tea.", f"Ada likes {drink} tea."))
    cli(a, "sync")
    merged = json.loads(cli(b, "sync", "--json").stdout)
    assert merged["code"] == "MERGED" and len(merged["conflicts"]) == 1
    bid = merged["conflicts"][0]["block_id"]
    listed = json.loads(cli(b, "conflicts", "--json").stdout)["conflicts"]
    assert [(c["block_id"], c["local"], c["incoming"]) for c in listed] == [(bid, "Ada likes black tea.", "Ada likes green tea.")]
    bad = cli(b, "resolve", "deadbeef", "--keep", "local", "--json")
    assert bad.returncode == 1
    done = cli(b, "resolve", bid, "--text", "Ada likes tea, green or black.", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["outcome"] == "installed"
    text = Workspace(b).read_topic("ada.md")
    assert "Ada likes tea, green or black." in text and "Sync conflict" not in text
    assert json.loads(cli(b, "conflicts", "--json").stdout)["conflicts"] == []
