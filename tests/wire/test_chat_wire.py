"""`scriptorium chat` reaches the configured server too ([model] api_base), as the writer does."""

from __future__ import annotations

import io

from scriptorium.core.cli import main
from scriptorium.core.writer.prompts import NOTHING_TO_KEEP

from .conftest import KEY, PROVIDERS, configure
from .servers import Request, Response, ScriptedServer, Turn


def test_chat_talks_to_the_configured_server(store, monkeypatch, capsys):
    provider = PROVIDERS["openai"]

    def answer(request: Request) -> Response:
        if request.body.get("tools"):  # the writer, at the session's end
            return provider.answer(Turn(NOTHING_TO_KEEP), False)
        return provider.answer(Turn("Tuesday evenings, noted."), False)

    monkeypatch.setattr("sys.stdin", io.StringIO("Deploys happen on Tuesday evenings.\n/exit\n"))
    with ScriptedServer([answer], repeat_last=True, max_requests=10) as server:
        configure(store, provider, server.url)
        code = main(["--state", str(store.state_dir), "chat"])
    assert code == 0 and "Tuesday evenings, noted." in capsys.readouterr().out
    chats = [r for r in server.requests if not r.body.get("tools")]
    assert chats and "Deploys happen on Tuesday evenings." in chats[0].raw.decode()
    assert all(KEY not in r.raw.decode() for r in server.requests)
