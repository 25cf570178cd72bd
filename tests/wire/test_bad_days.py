"""A real model's bad days, on the wire. Each ends in a clear outcome — retryable with the
wait the provider asked for, or permanent saying what the model did — with nothing of the
run installed, the batch's turns still pending, and the writer's status and run history
saying which."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.marker import pending
from scriptorium.core.writer import write

from .conftest import PROVIDERS, Provider, audit_records, configure, refs, topics
from .servers import Cut, Request, Response, ScriptedServer, Stall, Turn, error

NAMES = ["openai", "anthropic", "ollama"]


@pytest.fixture()
def sid(store):
    sid = store.create_session("bad day")
    store.append(sid, "user", "The build cache lives on the shared runners.", predecessor="ROOT", node_id="u1")
    store.append(sid, "assistant", "Noted: shared runners.", predecessor="u1", node_id="a1")
    return sid


def run(store, sid, provider: Provider, script, *, stream=False, repeat_last=True, max_requests=30, **config):
    """One `write --force` against a server playing `script`: the result, the server, and
    whether memory's topics and audit log stayed as they were."""
    before, audited = topics(store), len(audit_records(store))
    with ScriptedServer(script, repeat_last=repeat_last, max_requests=max_requests) as server:
        configure(store, provider, server.url, stream=stream, **config)
        result = write(store, sid, force=True)
    changed = [r for r in audit_records(store)[audited:] if r.get("changed_files") and
               any(f.startswith("topics/") for f in r["changed_files"])]
    return result, server, topics(store) == before and not changed


def settled(store, sid, result, outcome: str, code: str) -> None:
    """The outcome, and everything that must hold after a failed batch."""
    assert (result.outcome, result.code) == (outcome, code), result.message
    assert result.batches == []
    assert [t.id for t in pending(store, sid)] == ["u1", "a1"]
    status = json.loads((StatePaths(store.state_dir).runtime / "writer-status.json").read_text())
    assert status["last_failure"]["reason_code"] == code
    assert status["last_failure"]["retryable"] is (outcome == "retryable")


def last_run(store) -> dict:
    lines = (StatePaths(store.state_dir).runtime / "agent-history.jsonl").read_text().splitlines()
    return json.loads(lines[-1])


# -- the provider's trouble: retryable --------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_429_with_retry_after_is_retryable_with_its_wait(store, sid, name):
    provider = PROVIDERS[name]
    result, server, untouched = run(store, sid, provider, [error(429, "slow down", protocol=name,
                                                                 headers={"retry-after": "7"})])
    settled(store, sid, result, "retryable", "MODEL_RATE_LIMIT")
    assert untouched and len(server.requests) == 1  # no hidden retry inside the SDK
    assert result.retry_after_s == 7 and result.to_json()["retry_after_s"] == 7
    assert "wait 7 s" in result.message
    status = json.loads((StatePaths(store.state_dir).runtime / "writer-status.json").read_text())
    assert status["last_failure"]["retry_after_s"] == 7


def test_the_cli_exits_75_and_says_the_wait(store, sid):
    provider = PROVIDERS["openai"]
    with ScriptedServer([error(429, "slow down", headers={"retry-after-ms": "2500"})], repeat_last=True) as server:
        configure(store, provider, server.url)
        done = subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(store.state_dir),
                               "write", sid, "--force", "--json"], capture_output=True, text=True, timeout=120)
    doc = json.loads(done.stdout)
    assert done.returncode == 75 and doc["code"] == "MODEL_RATE_LIMIT" and doc["retry_after_s"] == 2.5


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("status", [500, 503])
def test_a_5xx_is_retryable(store, sid, name, status):
    result, _server, untouched = run(store, sid, PROVIDERS[name], [error(status, "upstream trouble", protocol=name)])
    settled(store, sid, result, "retryable", "MODEL_PROVIDER_INTERNAL")
    assert untouched and result.retry_after_s is None


@pytest.mark.parametrize("name", NAMES)
def test_a_connection_cut_mid_stream_after_a_good_round_installs_nothing(store, sid, name):
    provider = PROVIDERS[name]
    good = provider.answer(Turn(calls=[("list_files", {})]), True)
    cut = provider.build(Turn("I will now write the topic about the build cache runners."), stream=True, cut_after=2)
    result, server, untouched = run(store, sid, provider, [good, cut], stream=True)
    settled(store, sid, result, "retryable", "MODEL_TRANSPORT")
    assert untouched and len(server.requests) == 2
    assert last_run(store)["stage"] == "write" and last_run(store)["error"]


@pytest.mark.parametrize("name", NAMES)
def test_a_connection_closed_before_any_answer_is_transport_trouble(store, sid, name):
    result, _server, untouched = run(store, sid, PROVIDERS[name], [Cut()])
    settled(store, sid, result, "retryable", "MODEL_TRANSPORT")
    assert untouched


@pytest.mark.parametrize("name", NAMES)
def test_a_server_that_stalls_times_out_at_writer_timeout(store, sid, name):
    started = time.monotonic()
    result, _server, untouched = run(store, sid, PROVIDERS[name], [Stall(30)], writer__timeout_s=0.5)
    settled(store, sid, result, "retryable", "MODEL_TIMEOUT")
    assert untouched and time.monotonic() - started < 15


# -- the model's own doings: told back to it, or permanent saying what it did -------------------


def write_citing(request_body, provider: Provider) -> Turn:
    ref = refs(provider.seen(request_body).task)[0]
    return Turn(calls=[("write_file", {"path": "infra/cache.md", "content": (
        "# Build cache\n\nThe build cache lives on the shared runners.[^e1]\n\n"
        f"[^e1]: Time: `undated`; Sources: [cache runners]({ref})\n")})])


def recovering(provider: Provider, bad: Turn):
    """A model whose first call is bad; it reads the refusal, then does it right and finishes."""
    def answer(request: Request) -> Response:
        seen = provider.seen(request.body)
        if "retire_block" in seen.tools:
            return provider.answer(Turn("Nothing to reorganize."), False)
        turn = [bad, write_citing(request.body, provider), Turn("Done.")][min(seen.rounds, 2)]
        return provider.answer(turn, False)
    return answer


@pytest.mark.parametrize("bad, told", [
    (Turn(calls=[("write_file", '{"path": "infra/cache.md", "content": "# Build')]), "not valid JSON"),
    (Turn(calls=[("edit_block", {"path": "infra/cache.md", "block_id": "abc"})]), "required new_text missing"),
    (Turn(calls=[("delete_everything", {"path": "."})]), "unknown tool 'delete_everything'"),
], ids=["invalid-json", "missing-field", "unknown-tool"])
def test_a_bad_call_is_refused_back_to_the_model_which_can_recover(store, sid, bad, told):
    provider = PROVIDERS["openai"]
    result, server, _ = run(store, sid, provider, [recovering(provider, bad)])
    assert (result.outcome, result.code) == ("ok", "WRITTEN"), result.message
    refusal = provider.seen(server.requests[1].body).results[0][1]
    assert refusal.startswith("error: ") and told in refusal
    assert "infra/cache.md" in topics(store) and not pending(store, sid)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad, told", [
    (Turn(calls=[("edit_block", {"path": "infra/cache.md", "block_id": "abc"})]), "required new_text missing"),
    (Turn(calls=[("delete_everything", {"path": "."})]), "unknown tool 'delete_everything'"),
], ids=["missing-field", "unknown-tool"])
def test_a_model_that_repeats_a_refused_call_is_stopped_and_named(store, sid, name, bad, told):
    result, server, untouched = run(store, sid, PROVIDERS[name], [PROVIDERS[name].answer(bad, False)])
    settled(store, sid, result, "permanent", "WRITER_NO_PROGRESS")
    assert untouched and len(server.requests) == 3  # three identical rounds, then no more tokens spent
    assert "same call 3 rounds in a row" in result.message and bad.calls[0][0] in result.message
    assert told in result.message and "stay pending" in result.message


def test_arguments_that_never_parse_end_permanent_saying_so(store, sid):
    provider = PROVIDERS["openai"]

    def broken(request: Request) -> Response:  # a new broken attempt each round: not a loop, never done
        n = provider.seen(request.body).rounds
        return provider.answer(Turn(calls=[("write_file", '{"path": "infra/cache.md", "content": "# B' + "x" * n)]),
                               False)

    result, server, untouched = run(store, sid, provider, [broken])
    settled(store, sid, result, "permanent", "WRITER_NO_PROGRESS")
    assert untouched and len(server.requests) == 20
    assert "never finished: 20 rounds" in result.message and "write_file refused x20" in result.message
    assert "not valid JSON" in result.message


def test_a_model_that_finishes_without_a_working_edit_is_told_what_it_did(store, sid):
    provider = PROVIDERS["openai"]
    script = [provider.answer(Turn(calls=[("write_file", '{"path": "infra/cache.md"')]), False),
              provider.answer(Turn("All done, memory updated."), False)]
    result, _server, untouched = run(store, sid, provider, script, repeat_last=False)
    settled(store, sid, result, "permanent", "WRITER_NO_PROGRESS")
    assert untouched and "write_file refused x1" in result.message and "not valid JSON" in result.message


def test_a_model_that_never_finishes_is_stopped_after_the_rounds(store, sid):
    provider = PROVIDERS["anthropic"]

    def wandering(request: Request) -> Response:
        return provider.answer(Turn(calls=[("read_file", {"path": f"notes/{provider.seen(request.body).rounds}.md"})]),
                               True)

    result, server, untouched = run(store, sid, provider, [wandering], stream=True)
    settled(store, sid, result, "permanent", "WRITER_NO_PROGRESS")
    assert untouched and len(server.requests) == 20
    assert "never finished: 20 rounds of tool calls without a final answer" in result.message
    entry = last_run(store)
    assert entry["rounds"] == 20 and entry["stop_reason"] == "max_rounds" and "WRITER_NO_PROGRESS" in entry["error"]
    assert result.to_json()["model"]["input_tokens"] == 20 * 11  # what the failed run cost is reported too


def test_edits_of_a_run_that_never_finishes_are_not_installed(store, sid):
    provider = PROVIDERS["openai"]

    def edits_then_wanders(request: Request) -> Response:
        seen = provider.seen(request.body)
        if seen.rounds == 0:
            return provider.answer(write_citing(request.body, provider), False)
        return provider.answer(Turn(calls=[("read_file", {"path": f"infra/{seen.rounds}.md"})]), False)

    result, _server, untouched = run(store, sid, provider, [edits_then_wanders])
    settled(store, sid, result, "permanent", "WRITER_NO_PROGRESS")
    assert untouched and "infra/cache.md" not in topics(store)  # its good first edit went with the run


# -- the context window --------------------------------------------------------------------------


def test_an_answer_far_over_the_context_window_is_never_sent_back(store, sid):
    provider = PROVIDERS["openai"]
    huge = Turn(calls=[("write_file", {"path": "infra/cache.md", "content": "# Cache\n\n" + "word " * 60_000})])
    result, server, untouched = run(store, sid, provider, [provider.answer(huge, False)],
                                    model__context_tokens=6000)
    settled(store, sid, result, "permanent", "MODEL_CONTEXT_LENGTH")
    assert untouched and len(server.requests) == 1  # the oversized conversation never went out
    assert "past its context window of 6000" in result.message and "last answer" in result.message


@pytest.mark.parametrize("name", NAMES)
def test_the_provider_refusing_the_context_is_permanent(store, sid, name):
    refusal = error(400, "This model's maximum context length is 8192 tokens. However, your messages resulted in "
                         "20000 tokens.", protocol=name, code="context_length_exceeded")
    result, _server, untouched = run(store, sid, PROVIDERS[name], [refusal])
    settled(store, sid, result, "permanent", "MODEL_CONTEXT_LENGTH")
    assert untouched


def test_a_missing_key_for_an_openai_compatible_server_is_permanent(store, sid, monkeypatch):
    provider = PROVIDERS["openai"]
    with ScriptedServer([], max_requests=1) as server:
        configure(store, provider, server.url, model__api_key_env="SCRIPTORIUM_WIRE_NO_SUCH_KEY")
        result = write(store, sid, force=True)
    settled(store, sid, result, "permanent", "MODEL_AUTHENTICATION")
    assert server.requests == []
