"""`scriptorium chat`: the REPL over litellm, with a scripted model registered the litellm way
(a `CustomLLM`: the older kind of handler the seam still serves through litellm)."""

import io
from pathlib import Path

from scriptorium.core.cli import main
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import register_provider


def _echo_provider():
    from litellm import CustomLLM
    from litellm.types.utils import Choices, Message

    class Echo(CustomLLM):
        def completion(self, model, messages, api_base, custom_prompt_dict, model_response, *args, **kwargs):
            text = "echo: " + messages[-1]["content"].rsplit("\n", 1)[-1]
            model_response.choices = [Choices(index=0, finish_reason="stop", message=Message(content=text))]
            return model_response

    return Echo()


def test_chat_session_through_litellm(tmp_path: Path, monkeypatch, capsys):
    register_provider("scripted", _echo_provider())
    lines = "Deploys to production happen on Tuesday evenings.\n/compact\n/sleep\n\nThanks!\n/exit\nnever read\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    code = main(["--state", str(tmp_path), "chat", "--provider", "scriptorium", "--model", "scripted/echo"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].startswith("session ") and "memory scriptorium" in out
    assert "echo: Deploys to production happen on Tuesday evenings." in out and "echo: Thanks!" in out
    assert "never read" not in out
    store = SessionStore(tmp_path)
    (summary,), _ = store.list_sessions()
    sid = summary.id
    assert store.meta(sid)["memory_provider"] == "scriptorium"
    assert pending(store, sid) == []  # the session end wrote everything


def test_chat_with_the_trilogy_and_an_unknown_provider(tmp_path: Path, monkeypatch, capsys):
    register_provider("scripted", _echo_provider())
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n"))
    code = main(["--state", str(tmp_path / "s"), "chat", "--provider", "trilogy", "--project", str(project),
                 "--model", "scripted/echo"])
    assert code == 0 and "echo: hello" in capsys.readouterr().out
    assert (project / "memory" / "SESSIONS.md").is_file()
    code = main(["--state", str(tmp_path / "s"), "chat", "--provider", "mem0"])
    assert code == 1 and "unknown memory provider" in capsys.readouterr().err
