"""`purge` on a state that already holds a secret everywhere (it got in before redaction):
sessions and their histories, sources, topics, derived views, runtime logs, the memory
history. Afterwards none is left, the workspace validates, and ids, marks and citations
are as they were."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

import pytest

from scriptorium.core.cli import main
from scriptorium.core.memory import Workspace
from scriptorium.core.memory.check import workspace_problems
from scriptorium.core.memory.sources import scan_archive
from scriptorium.core.redact import Redactor
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore

from .test_no_secret_gets_in import TRANSCRIPTS, everything, plant


class NoRedaction(Redactor):
    """What a state written before redaction existed looks like."""

    def text(self, text: str, counts: Any = None) -> str:
        return text

    def value(self, value: Any, counts: Any = None) -> Any:
        return value


def fake_token(rng: random.Random) -> str:
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.fixture()
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    state = tmp_path / "state"

    def cli(*args: str) -> tuple[int, Any, str]:
        code = main(["--state", str(state), *args])
        captured = capsys.readouterr()
        try:
            doc = json.loads(captured.out)
        except ValueError:
            doc = None
        return code, doc, captured.out + captured.err

    cli.state = state  # type: ignore[attr-defined]
    return cli


def leaky_state(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secrets: list[str]) -> list[str]:
    """Import, append, hand-edit, write and sleep with redaction off; returns the session ids."""
    import scriptorium.core.memory.transaction.lifecycle as lifecycle
    import scriptorium.core.sessions.writing as store_module
    import scriptorium.core.writer.editing as editing

    planted = "deploy with " + " and ".join(secrets)
    sids: list[str] = []
    with monkeypatch.context() as m:
        for module in (store_module, lifecycle, editing):
            m.setattr(module, "redactor_for", lambda d: NoRedaction(Path(d)))
        fixture = TRANSCRIPTS["claude-code"]
        records = [json.loads(line) for line in fixture.read_text(encoding="utf-8").splitlines() if line.strip()]
        target = tmp_path / "cc" / fixture.name
        target.parent.mkdir()
        target.write_text("".join(json.dumps(plant(r, planted)) + "\n" for r in records), encoding="utf-8")
        code, report, _ = run("import", "claude-code", str(target), "--json")
        assert code == 0
        sids += report["session_ids"]
        code, doc, _ = run("session", "new", "--title", f"about {secrets[0]}", "--json")
        sid = doc["id"]
        run("session", "append", sid, "--role", "user", "--text", planted, "--json")
        run("session", "append", sid, "--role", "assistant", "--text", f"ok: {secrets[0]}", "--json")
        sids.append(sid)
        edit = tmp_path / "ops.md"
        edit.write_text(f"# Ops\n\nThe token is {secrets[0]} for now.\n", encoding="utf-8")
        code, saved, _ = run("topic", "save", "ops.md", "--from", str(edit), "--json")
        assert code == 0, saved
        for s in sids:
            code, written, _ = run("write", s, "--force", "--json")
            assert code == 0, written
        code, _slept, _ = run("sleep", "--json")
    return sids


def ids_of(state: Path, sids: list[str]) -> dict[str, Any]:
    """Everything purge must keep: block ids, evidence record ids, node ids, marks."""
    ws = Workspace(state)
    blocks = {rel: sorted(b for b, _line in ws.topic(rel).block_ids) for rel in ws.topic_paths()}
    evidence = {p.name: sorted(scan_archive(p.read_bytes(), p.name).by_id) for p in sorted(ws.sources.rglob("*.md"))}
    store = SessionStore(state)
    nodes = {sid: sorted(store.index(sid).entries) for sid in sids}
    waiting = {sid: [t.id for t in pending(store, sid, None, ws.id)] for sid in sids}
    return {"blocks": blocks, "evidence": evidence, "nodes": nodes, "pending": waiting}


def test_purge_takes_a_secret_out_of_everything_and_keeps_the_workspace_valid(run, tmp_path, monkeypatch) -> None:
    rng = random.Random(99)
    secret, other = fake_token(rng), fake_token(rng)
    sids = leaky_state(run, tmp_path, monkeypatch, [secret, other])
    state: Path = run.state
    kept = ids_of(state, sids)
    before = everything(state)
    assert secret.encode() in before and other.encode() in before
    assert kept["evidence"] and any(kept["blocks"].values())

    code, found, _ = run("purge", "--text", secret, "--dry-run", "--json")
    assert code == 0 and found["found"] and not found["done"] and found["dry_run"]
    where = {f["path"] for f in found["files"]}
    assert any(p.startswith("sessions/") and "/history/" in p for p in where)
    assert any(p.startswith("memory/topics/") for p in where)
    assert any(p.startswith("memory/sources/") for p in where)
    assert {"memory"} <= {r["path"] for r in found["repositories"]}
    assert any(r["path"].startswith("sessions/") for r in found["repositories"])
    assert everything(state) == before  # a dry run changes nothing

    code, doc, out = run("purge", "--text", secret)  # stdin is no terminal and no --yes
    assert code == 2 and "--yes" in out
    assert secret.encode() in everything(state)

    code, done, _ = run("purge", "--text", secret, "--yes", "--json")
    assert code == 0, done
    assert done["done"] and done["problems"] == []
    backup = Path(done["backup"])
    assert backup.is_file() and state not in backup.parents
    after = everything(state)
    assert secret.encode() not in after
    assert b"[REDACTED:purged:" in after
    assert other.encode() in after  # only what was asked for
    assert workspace_problems(state) == []
    assert ids_of(state, sids) == kept

    code, done, _ = run("purge", "--pattern", r"ghp_[A-Za-z0-9]{36}", "--yes", "--json")
    assert code == 0 and done["done"] and done["problems"] == []
    assert other.encode() not in everything(state)
    assert ids_of(state, sids) == kept
    code, again, _ = run("purge", "--text", other, "--json")
    assert code == 0 and not again["found"]

    log = [json.loads(line) for line in (state / "memory" / ".scriptorium" / "audit.jsonl").read_text().splitlines()]
    purges = [r for r in log if r["kind"] == "purge"]
    assert len(purges) == 2 and all(secret not in json.dumps(r) for r in purges)
    edit = tmp_path / "later.md"
    edit.write_text("# Later\n\nA plain note after the purge.\n", encoding="utf-8")
    code, saved, _ = run("topic", "save", "later.md", "--from", str(edit), "--json")
    assert code == 0 and saved["outcome"] == "installed"  # the workspace takes transactions as before


def test_purge_refuses_bad_input(run) -> None:
    code, _doc, out = run("purge", "--pattern", "(unclosed", "--json")
    assert code == 2 and "bad --pattern" in out
    code, _doc, out = run("purge", "--pattern", "x*")
    assert code == 2 and "empty string" in out
    code, doc, _ = run("purge", "--text", "nothing-like-this-anywhere", "--json")
    assert code == 0 and doc["found"] is False


@pytest.mark.parametrize("n", [1, 3])
def test_a_purge_of_sessions_only_audits_each_session_once(run, n: int) -> None:
    """The secret is in N sessions and nowhere in memory: the audit record names N session
    histories rewritten and counts every file and occurrence the report found."""
    secret = "zorbleflux-" + "q" * 12
    for i in range(n):
        code, doc, _ = run("session", "new", "--title", f"about {secret} {i}", "--json")
        assert code == 0
        run("session", "append", doc["id"], "--role", "user", "--text", f"{secret} and {secret}", "--json")
    code, done, _ = run("purge", "--text", secret, "--yes", "--json")
    assert code == 0 and done["done"], done
    sessions = {f["path"].split("/")[1] for f in done["files"] if f["path"].count("/") >= 2}
    assert len(sessions) == n and len(done["repositories"]) == n
    log = [json.loads(line) for line in (run.state / "memory" / ".scriptorium" / "audit.jsonl").read_text().splitlines()]
    purges = [r for r in log if r["kind"] == "purge"]
    assert len(purges) == 1
    record = purges[0]
    assert sorted(record["repositories"]) == sorted(r["path"] for r in done["repositories"])
    assert len(record["changed_files"]) == len(done["files"]) and record["redactions"] == {"purged": done["matches"]}
    assert f"in {len(done['files'])} file(s), {n} repository history(ies) rewritten" in record["summary"]
    assert record["commit"] is None  # memory has no history to point at
