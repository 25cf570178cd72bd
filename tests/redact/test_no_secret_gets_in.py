"""Issue 17's end-to-end check: generated fake secrets of every kind, planted in a Claude
Code, a Codex and a pi transcript, in `session append` text and in a hand edit, never reach
any file of the state directory (git objects included) nor any prompt a model received —
after import, write and sleep. Their placeholders do."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from scriptorium.core.cli import main
from scriptorium.core.writer.model import Reply, register_provider
from scriptorium.core.writer.offline import OfflineModel

from .fakes import fake_secrets, private_span

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
TRANSCRIPTS = {
    "claude-code": FIXTURES / "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl",
    "codex": FIXTURES / "codex__jazzyalex_agent-sessions__small.jsonl",
    "pi": FIXTURES / "pi__jazzyalex_agent-sessions__small.jsonl",
}


def recording_model() -> tuple[list[Any], str]:
    """The offline writer, behind a provider that keeps every request it was sent."""
    offline = OfflineModel()
    requests: list[Any] = []

    class Recording:
        def complete(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                     timeout: float) -> Reply:
            requests.append(copy.deepcopy(messages))
            return offline.complete(model, messages, tools, timeout)

    register_provider("recording", Recording())
    return requests, "recording/offline"


def plant(value: Any, text: str) -> Any:
    """Every message text, tool output and tool result of a transcript, with `text` appended."""
    if isinstance(value, list):
        return [plant(v, text) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: plant(v, text) for k, v in value.items()}
    if isinstance(out.get("text"), str):
        out["text"] += "\n" + text
    if out.get("type") in ("function_call_output", "tool_result") and isinstance(out.get("output"), str):
        out["output"] += "\n" + text
    if out.get("type") == "tool_result" and isinstance(out.get("content"), str):
        out["content"] += "\n" + text
    return out


def everything(state: Path) -> bytes:
    """Every file's bytes and every git object's content, of every repository in `state`."""
    chunks = [p.read_bytes() for p in sorted(state.rglob("*")) if p.is_file() and not p.is_symlink()]
    for git_dir in sorted(state.rglob(".git")):
        done = subprocess.run(["git", "-C", str(git_dir.parent), "cat-file", "--batch-all-objects", "--batch"],
                              capture_output=True, check=True)
        chunks.append(done.stdout)
    return b"\n".join(chunks)


@pytest.fixture()
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    state = tmp_path / "state"

    def run(*args: str) -> tuple[int, dict[str, Any]]:
        code = main(["--state", str(state), *args])
        out = capsys.readouterr().out
        return code, json.loads(out)

    run.state = state  # type: ignore[attr-defined]
    return run


def test_planted_secrets_never_reach_the_state_or_a_model(cli, tmp_path: Path) -> None:
    secrets = fake_secrets(seed=1717)
    planted = "\n".join(text for _kind, text, _secret in secrets)
    private, private_word = private_span(seed=1717)
    requests, model = recording_model()

    sessions: list[str] = []
    for agent, fixture in TRANSCRIPTS.items():
        records = [json.loads(line) for line in fixture.read_text(encoding="utf-8").splitlines() if line.strip()]
        target = tmp_path / "transcripts" / agent / fixture.name
        target.parent.mkdir(parents=True)
        target.write_text("".join(json.dumps(plant(r, planted)) + "\n" for r in records), encoding="utf-8")
        code, report = cli("import", agent, str(target), "--json")
        assert code == 0, report
        assert report["nodes_added"] > 0 and report["sessions_redacted"] >= 1
        for kind, _text, _secret in secrets:
            assert report["redactions"].get(kind, 0) >= 1, (agent, kind, report["redactions"])
        sessions += report["session_ids"]

    code, doc = cli("session", "new", "--json")
    sid = doc["id"]
    code, doc = cli("session", "append", sid, "--role", "user", "--text", f"{private}\n{planted}", "--json")
    assert code == 0, doc
    code, doc = cli("session", "append", sid, "--role", "assistant", "--text", "noted, thanks", "--json")
    sessions.append(sid)

    edit = tmp_path / "ops.md"
    edit.write_text("# Ops\n\nThe staging credentials, pasted by hand:\n\n" + planted.replace("\n", " ") + "\n",
                    encoding="utf-8")
    code, saved = cli("topic", "save", "ops.md", "--from", str(edit), "--json")
    assert code == 0, saved
    assert sum(saved["redactions"].values()) >= len(secrets) - 2  # a few shapes only redact inside a transcript line

    for session in sessions:
        code, written = cli("write", session, "--force", "--model", model, "--json")
        assert code == 0, written
        assert written["outcome"] == "ok"
    assert any(sum(b["redactions"].values()) for b in written["batches"])
    code, slept = cli("sleep", "--model", model, "--json")
    assert code == 0, slept

    state: Path = cli.state
    blob = everything(state)
    for kind, _text, secret in secrets:
        assert secret.encode() not in blob, f"{kind} secret found in the state directory"
    assert private_word.encode() not in blob
    assert b"[REDACTED:" in blob

    prompts = json.dumps(requests)
    assert requests, "no model was called"
    for kind, _text, secret in secrets:
        assert json.dumps(secret)[1:-1] not in prompts, f"{kind} secret reached a model"
    assert private_word not in prompts
    assert "[REDACTED:" in prompts

    topics = "".join(p.read_text() for p in (state / "memory" / "topics").rglob("*.md"))
    sources = "".join(p.read_text() for p in (state / "memory" / "sources").rglob("*.md"))
    assert "[REDACTED:" in topics and "[REDACTED:" in sources
    audit = [json.loads(line) for line in (state / "memory" / ".scriptorium" / "audit.jsonl").read_text().splitlines()]
    assert any(sum(r.get("redactions", {}).values()) for r in audit if r["kind"] == "write")
    assert any(sum(r.get("redactions", {}).values()) for r in audit if r["kind"] == "edit")
