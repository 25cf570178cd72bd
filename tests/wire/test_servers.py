"""The scripted servers keep their bounds: a test using them cannot hang or leak a listener."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from .servers import Cut, Json, ScriptedServer, Stall, Turn, anthropic_messages, error, openai_chat


def test_requests_are_recorded_and_answered_in_script_order_then_refused_past_the_script():
    with ScriptedServer([Json({"n": 1}), lambda r: Json({"echo": r.body})]) as server:
        assert httpx.post(server.url + "/a", json={"x": 1}).json() == {"n": 1}
        assert httpx.post(server.url + "/b", json={"y": 2}).json() == {"echo": {"y": 2}}
        late = httpx.post(server.url + "/c", json={})
        assert late.status_code == 500 and "exhausted" in late.text
    assert [r.path for r in server.requests] == ["/a", "/b", "/c"]
    assert server.bodies("/b") == [{"y": 2}]


def test_max_requests_bounds_a_looping_client():
    with ScriptedServer([Json({})], repeat_last=True, max_requests=3) as server:
        codes = [httpx.get(server.url).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 500, 500]


def test_the_lifetime_closes_the_listener_and_close_wakes_a_stall():
    server = ScriptedServer([Stall(60)], lifetime_s=0.5).start()
    started = time.monotonic()
    with pytest.raises(httpx.TransportError):
        httpx.get(server.url, timeout=10)
    assert time.monotonic() - started < 5
    assert server.closed.wait(5)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()


def test_a_cut_is_a_transport_error_and_a_cut_stream_ends_early():
    with ScriptedServer([Cut(), openai_chat(Turn("hello there, world"), stream=True, cut_after=2)]) as server:
        with pytest.raises(httpx.TransportError):
            httpx.get(server.url)
        with pytest.raises(httpx.TransportError), httpx.stream("POST", server.url) as answer:
            list(answer.iter_bytes())


def test_streams_are_complete_server_sent_events():
    with ScriptedServer([anthropic_messages(Turn("hi", [("read_file", {"path": "a.md"})]), stream=True),
                         error(429, "slow down", headers={"retry-after": "7"})]) as server:
        text = httpx.post(server.url).text
        limited = httpx.post(server.url)
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events][0] == "message_start" and events[-1]["type"] == "message_stop"
    deltas = "".join(e["delta"].get("partial_json", "") for e in events if e["type"] == "content_block_delta")
    assert json.loads(deltas) == {"path": "a.md"}
    assert (limited.status_code, limited.headers["retry-after"]) == (429, "7")
