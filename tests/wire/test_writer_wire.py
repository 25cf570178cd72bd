"""The writer's whole agent loop against scripted servers speaking each provider's protocol,
through litellm with `api_base` from config.toml: two batches, the first creating a topic
(list_files, write_file, finish), the second changing one of its blocks (read_file,
list_blocks, read_block, edit_block, finish); both installed, the turns marked, and
every request body checked."""

from __future__ import annotations

import json

import pytest

from redact.fakes import fake_secrets
from scriptorium.core.sessions.marker import pending
from scriptorium.core.writer import write
from scriptorium.core.writer.prompts import CONTRACT
from scriptorium.core.writer.tools import ORGANIZER_TOOLS, SCHEMAS, WRITER_TOOLS

from .conftest import KEY, PROVIDERS, Provider, Seen, audit_records, block_ids, configure, refs, topics
from .servers import Request, Response, ScriptedServer, Turn

SECRET = next(secret for kind, _, secret in fake_secrets() if secret.startswith("ghp_"))
TOPIC = "ops/deploys.md"


def organizing(provider: Provider, stream: bool, answer):
    """The daily sleep that follows a first write reaches the same server: it finds nothing to do."""
    def either(request: Request) -> Response:
        if "retire_block" in provider.seen(request.body).tools:
            return provider.answer(Turn("Nothing to reorganize."), stream)
        return answer(request)
    return either


def first_batch(provider: Provider, stream: bool):
    """A model that looks, creates the topic citing the first record, and finishes."""
    def answer(request: Request) -> Response:
        seen = provider.seen(request.body)
        ref = refs(seen.task)[0]
        steps = [Turn(calls=[("list_files", {})]),
                 Turn(calls=[("write_file", {"path": TOPIC, "content": (
                     "# Deploys\n\nThe deploy window is Tuesday.[^e1]\n\n"
                     f"[^e1]: Time: `undated`; Sources: [deploy window]({ref})\n")})]),
                 Turn("Recorded the deploy window.", input_tokens=120, output_tokens=9)]
        return provider.answer(steps[min(seen.rounds, 2)], stream)
    return organizing(provider, stream, answer)


def second_batch(provider: Provider, stream: bool):
    """A model that reads the topic, lists and reads its block, edits it, and finishes."""
    def answer(request: Request) -> Response:
        seen = provider.seen(request.body)
        ref = refs(seen.task)[-1]
        if seen.rounds == 0:
            turn = Turn(calls=[("read_file", {"path": TOPIC})])
        elif seen.rounds == 1:
            turn = Turn(calls=[("list_blocks", {"path": TOPIC})])
        elif seen.rounds == 2:
            turn = Turn(calls=[("read_block", {"path": TOPIC, "block_id": block_ids(seen.results[-1][1])[0]})])
        elif seen.rounds == 3:
            block = block_ids(seen.results[-2][1])[0]
            turn = Turn(text="Moving the window.", calls=[("edit_block", {"path": TOPIC, "block_id": block, "new_text": (
                "The deploy window moved to Thursday.[^e1]\n\n"
                f"[^e1]: Time: `undated`; Sources: [deploy move]({ref})")})])
        else:
            turn = Turn("Updated the deploy window.")
        return provider.answer(turn, stream)
    return organizing(provider, stream, answer)


def check_bodies(provider: Provider, server: ScriptedServer) -> list[Seen]:
    """Every request: the path, the key only in its header, the contract, the writer's tools
    with their schemas, tool results sent back in the provider's format, no secret anywhere."""
    seen = []
    for request in server.requests:
        assert request.path.split("?")[0] == provider.path
        assert KEY not in request.raw.decode() and SECRET not in request.raw.decode()
        assert KEY in request.headers.get(provider.key_header, "")
        view = provider.seen(request.body)
        assert view.system == CONTRACT
        if view.tools == list(ORGANIZER_TOOLS):  # the sleep after the write
            continue
        assert view.tools == list(WRITER_TOOLS)
        assert "[REDACTED:" in view.task  # the secret said in the turn went as its placeholder
        seen.append(view)
        tools = request.body["tools"]
        if provider.name == "anthropic":
            assert [t["input_schema"] for t in tools] == [SCHEMAS[n]["function"]["parameters"] for n in WRITER_TOOLS]
            assert [t["description"] for t in tools] == [SCHEMAS[n]["function"]["description"] for n in WRITER_TOOLS]
        else:
            assert tools == [SCHEMAS[n] for n in WRITER_TOOLS]
    for view in seen:  # each result answers the call before it, by the provider's id
        if provider.name != "ollama":  # Ollama's calls carry no id; results go back in order
            assert [call_id for call_id, _ in view.results] == view.assistant_calls
    return seen


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("name", ["openai", "anthropic", "ollama"])
def test_the_whole_loop_over_the_wire_installs_both_batches(store, name, stream):
    provider = PROVIDERS[name]
    sid = store.create_session("wire")
    store.append(sid, "user", f"Deploys happen on Tuesday. My token is {SECRET}", predecessor="ROOT", node_id="u1")
    store.append(sid, "assistant", "Noted: Tuesday deploys.", predecessor="u1", node_id="a1")

    with ScriptedServer([first_batch(provider, stream)], repeat_last=True, max_requests=10) as server:
        configure(store, provider, server.url, stream=stream)
        first = write(store, sid, force=True)
    assert (first.outcome, first.code) == ("ok", "WRITTEN"), first.message
    views = check_bodies(provider, server)
    assert len(views) == 3 and views[1].results[0][1] == "(no topic files yet)"
    assert topics(store)[TOPIC].startswith("# Deploys\n\nThe deploy window is Tuesday.")

    store.append(sid, "user", f"We moved deploys to Thursday; the token is still {SECRET}", predecessor="a1",
                 node_id="u2")
    with ScriptedServer([second_batch(provider, stream)], repeat_last=True, max_requests=10) as server:
        configure(store, provider, server.url, stream=stream)
        second = write(store, sid, force=True)
    assert (second.outcome, second.code) == ("ok", "WRITTEN"), second.message
    views = check_bodies(provider, server)
    assert len(views) == 5
    assert views[1].results[0][1].startswith("# Deploys")  # read_file's result went back to the model
    assert "moved to Thursday" in topics(store)[TOPIC] and "is Tuesday" not in topics(store)[TOPIC]
    assert not pending(store, sid)

    # tokens and cost: in the result, the batch and the audit record of the install
    usage = second.to_json()["model"]
    assert usage["id"] == provider.model and usage["input_tokens"] == 5 * 11 and usage["output_tokens"] == 5 * 7
    assert second.batches[0].model == usage
    record = audit_records(store)[-1]
    assert record["kind"] == "write" and record["model"] == usage
    if name == "ollama":
        assert usage["cost_usd"] is None  # a local model: litellm has no price for it
    else:
        assert usage["cost_usd"] > 0
        assert first.to_json()["model"]["input_tokens"] == 11 + 11 + 120


def test_the_task_and_results_go_back_as_openai_messages(store):
    """One protocol in detail: the tool call and its result as the OpenAI API defines them."""
    provider = PROVIDERS["openai"]
    sid = store.create_session("wire")
    store.append(sid, "user", "Deploys happen on Tuesday.", predecessor="ROOT", node_id="u1")
    with ScriptedServer([first_batch(provider, False)], repeat_last=True, max_requests=10) as server:
        configure(store, provider, server.url)
        assert write(store, sid, force=True).code == "WRITTEN"
    body = server.requests[1].body
    assert body["model"] == "gpt-4o-mini"
    assistant, result = body["messages"][2], body["messages"][3]
    assert assistant["role"] == "assistant" and assistant["tool_calls"][0]["id"] == "call_0"
    assert assistant["tool_calls"][0]["function"] == {"name": "list_files", "arguments": "{}"}
    assert result == {"role": "tool", "tool_call_id": "call_0", "name": "list_files",
                      "content": "(no topic files yet)"} or (result["role"], result["tool_call_id"]) == ("tool", "call_0")
    assert json.loads(server.requests[2].body["messages"][4]["tool_calls"][0]["function"]["arguments"])["path"] == TOPIC
