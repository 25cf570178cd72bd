"""A secret in a topic name (`topic save AKIA….md`, `memory_remember(topic=…)`) is refused
before anything is stored: no file name, git tree, derived view or audit record holds it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from scriptorium.core.agents.memory_tools import MemoryTools
from scriptorium.core.cli import main

AWS = "AKIA" + "QX7ZJ2LM4NB5VC6K"


def everything(state: Path) -> bytes:
    """Every byte of the state: file names and contents, and the memory repository's objects."""
    names = "\n".join(str(p) for p in state.rglob("*")).encode()
    data = b"".join(p.read_bytes() for p in state.rglob("*") if p.is_file())
    objects = subprocess.run(["git", "-C", str(state / "memory"), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=False).stdout
    return names + data + objects


def test_a_secret_topic_name_is_refused_at_every_door(tmp_path, capsys):
    state = tmp_path / "state"
    text = tmp_path / "keys.md"
    text.write_text("# Keys\n\nThe deploy key lives in the vault.\n")
    assert main(["--state", str(state), "topic", "save", "ok.md", "--from", str(text)]) == 0
    assert main(["--state", str(state), "topic", "save", f"{AWS}.md", "--from", str(text)]) == 1
    assert main(["--state", str(state), "topic", "save", "vault-password=Hunter2xyz9.md", "--from", str(text)]) == 1
    out = capsys.readouterr().out
    assert "the topic name holds a secret" in out and AWS not in out and "Hunter2xyz9" not in out
    answer = MemoryTools(state).remember("The deploy key lives in the vault.", f"keys/{AWS}.md")
    assert answer["outcome"] == "rejected" and AWS not in str(answer)
    stored = everything(state)
    assert AWS.encode() not in stored and b"Hunter2xyz9" not in stored


def test_a_block_id_is_never_purged(tmp_path, capsys):
    """Purging a text that is a block id rewrote the `^id` suffix: the topic no longer parsed."""
    import re

    state = tmp_path / "state"
    text = tmp_path / "t.md"
    text.write_text("# Vault\n\nThe vault opens at nine.\n")
    assert main(["--state", str(state), "topic", "save", "vault.md", "--from", str(text)]) == 0
    saved = (state / "memory" / "topics" / "vault.md").read_text()
    block_id = re.search(r"\^([0-9a-f]{8})", saved).group(1)
    capsys.readouterr()
    assert main(["--state", str(state), "purge", "--text", block_id, "--yes"]) == 2
    assert "ids are never purged" in capsys.readouterr().err
    assert (state / "memory" / "topics" / "vault.md").read_text() == saved
    assert main(["--state", str(state), "get", block_id]) == 0
