"""A placeholder is never a secret: what was redacted once is never redacted again (no
`password=(REDACTED:password:(REDACTED:…))` nesting), and the counts are exact."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scriptorium.core.cli import main

NESTED = re.compile(r"REDACTED:[a-z0-9-]+:[\[(]|[\[(]REDACTED:[a-z0-9-]+:[0-9a-f]{8}[\])][\])]")
PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9-]+):[0-9a-f]{8}\]")


def run(state: Path, capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(["--state", str(state), *args]) == 0
    return capsys.readouterr().out


def test_a_topic_written_from_a_session_holding_passwords_keeps_each_placeholder_once(tmp_path, capsys):
    state = tmp_path / "state"
    sid = run(state, capsys, "session", "new", "--title", "staging").strip()
    run(state, capsys, "session", "append", sid, "--role", "user", "--text",
        "For the staging database I set password=Hunter2xyz9 and the admin password=Zq8pLm3nRt; "
        "the db host is db.staging.internal.")
    run(state, capsys, "session", "append", sid, "--role", "assistant", "--text",
        "Noted. The read replica db-replica.staging.internal takes the same password=Hunter2xyz9, "
        "and its backups run nightly at 02:00.")
    out = run(state, capsys, "finish", sid)
    assert "3 secret(s) redacted (password 3)" in out  # three occurrences, of two secrets
    topics = "".join(p.read_text() for p in (state / "memory" / "topics").rglob("*.md"))
    assert "Hunter2xyz9" not in topics and "Zq8pLm3nRt" not in topics
    assert not NESTED.search(topics), topics
    assert PLACEHOLDER.findall(topics) == ["password", "password", "password"]
    writes = [entry for entry in json.loads(run(state, capsys, "log", "--json")) if entry["kind"] == "write"]
    assert sum((w.get("redactions") or {}).get("password", 0) for w in writes) == 3


def test_a_hand_edit_carrying_placeholders_is_not_redacted_again(tmp_path, capsys):
    state = tmp_path / "state"
    text = ("# Vault\n\nThe vault password=[REDACTED:password:4e135bca] and my password: [REDACTED:password:370ad77b]; "
            "token=(REDACTED:secret:0a1b2c3d) as an older writer left it.\n")
    source = tmp_path / "vault.md"
    source.write_text(text)
    run(state, capsys, "topic", "save", "vault.md", "--from", str(source))
    saved = (state / "memory" / "topics" / "vault.md").read_text()
    assert "password=[REDACTED:password:4e135bca] and my password: [REDACTED:password:370ad77b]" in saved
    assert "token=(REDACTED:secret:0a1b2c3d)" in saved and not NESTED.search(saved)
    [edit] = [entry for entry in json.loads(run(state, capsys, "log", "--json")) if entry["kind"] == "edit"]
    assert not edit.get("redactions")
