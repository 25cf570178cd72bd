"""The CLI starts instantly: a command loads only what it uses (the ratios live in
bench/cli_startup.py; these checks say which heavy modules stay out, so it cannot regress
silently)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scriptorium.core.cli import COMMANDS, build_parser
from scriptorium.core.importers import KINDS, importer
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.tokens import count_tokens

HEAVY = ("git", "litellm", "textual", "tiktoken", "bm25s", "numpy", "filelock", "mistune", "hyperscan")
# What only a writer needs (the redactor and its key's hashing, the batch pack, the registry, git's
# stale locks, the tokenizer's module), and what no short command needs at all: filelock (a
# writer locks with core/flock.py), shutil (argparse's terminal width: core/cli/__init__.py),
# tomllib (no config.toml to parse).
WRITER_SIDE = ("scriptorium.core.redact", "scriptorium.core.sessions.pack", "scriptorium.core.sessions.registry",
               "scriptorium.core.sessions.writing", "scriptorium.core.sessions.marks", "scriptorium.core.sessions.undo",
               "scriptorium.core.git_locks", "scriptorium.core.tokens", "hashlib", "secrets")
UNUSED = ("filelock", "shutil", "tomllib")

# Runs the console entry point, then reports on stderr which heavy modules it loaded.
WRAPPER = """
import json, sys
from scriptorium.tui.entry import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in {checked!r} if m in sys.modules)
sys.stderr.write("\\n" + json.dumps({{"code": code, "loaded": heavy}}) + "\\n")
""".format(checked=HEAVY + WRITER_SIDE + UNUSED)


def run(*argv: str) -> tuple[int, list[str], str]:
    """(exit code, heavy, writer-side and unused modules loaded, stdout) of one cold command."""
    done = subprocess.run([sys.executable, "-c", WRAPPER, *argv], capture_output=True, text=True, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], report["loaded"], done.stdout


def test_help_loads_no_heavy_module() -> None:
    code, loaded, out = run("--help")
    assert code == 0 and "session" in out and "search" in out
    assert loaded == []


def test_a_subcommand_help_loads_only_its_own_module() -> None:
    code, loaded, out = run("session", "--help")
    assert code == 0 and "append" in out and loaded == []


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    """Two turns in one session, and a canonical core written through a transaction."""
    state = tmp_path / "state"
    core = tmp_path / "core.md"
    core.write_text("# Core\n\nThe build cache lives on the shared runner. ^b1\n", encoding="utf-8")
    assert run("--state", str(state), "session", "new", "--title", "t")[0] == 0
    code, _, _ = run("--state", str(state), "topic", "save", "core.md", "--from", str(core))
    assert code == 0
    return state


def test_reading_commands_load_neither_git_nor_the_tokenizer(state: Path) -> None:
    (sid,) = SessionStore(state).session_ids()
    code, loaded, out = run("--state", str(state), "session", "append", sid, "--role", "user", "--text", "a question")
    assert code == 0 and out.strip()
    assert "git" not in loaded and "tiktoken" not in loaded  # the git side is plain git processes
    assert run("--state", str(state), "search", "build cache")[0] == 0  # the first search builds and saves the model
    outputs = {}
    for argv in (["session", "list"], ["core", "--json"], ["search", "build cache"]):
        code, loaded, outputs[argv[0]] = run("--state", str(state), *argv)
        assert code == 0, argv
        heavy = {"git", "tiktoken", "litellm", "bm25s", "numpy", "textual", "hyperscan"}
        if argv[0] == "search":
            heavy -= {"numpy"}  # semantic search (on by default) embeds the query with numpy
        assert not heavy & set(loaded), (argv, loaded)
    assert sid in outputs["session"] and "shared runner" in outputs["search"]
    (state / "config.toml").write_text("[search]\nsemantic = false\n", encoding="utf-8")
    code, loaded, _ = run("--state", str(state), "search", "build cache")
    assert code == 0 and not {"numpy", "bm25s", "tiktoken"} & set(loaded), loaded
    assert json.loads(outputs["core"])["rendered_tokens"] > 0


def test_a_listing_loads_no_writer_module_and_an_append_only_what_it_uses(state: Path) -> None:
    (sid,) = SessionStore(state).session_ids()
    code, loaded, out = run("--state", str(state), "session", "list")
    assert code == 0 and sid in out
    assert loaded == []
    code, loaded, out = run("--state", str(state), "session", "append", sid, "--role", "user", "--text", "plain words")
    assert code == 0 and out.strip()
    assert "hyperscan" in loaded and "scriptorium.core.redact" in loaded  # every turn is redacted
    assert not {"filelock", "shutil", "tomllib", "hashlib", "secrets", "scriptorium.core.tokens"} & set(loaded), loaded
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    code, _, out = run("--state", str(state), "session", "append", sid, "--role", "user", "--text", f"token {secret}")
    assert code == 0
    shown = run("--state", str(state), "session", "show", sid, "--json")[2]
    texts = [n["text"] for n in json.loads(shown)["nodes"]]
    assert texts[-2:] == ["plain words", texts[-1]] and secret not in shown and "[REDACTED:github-token:" in texts[-1]
    listed = run("--state", str(state), "session", "list", "--json")[2]
    (info,) = json.loads(listed)["sessions"]
    assert info["id"] == sid and info["node_count"] == 2


def test_an_appended_turn_is_counted_once_by_the_first_reader(state: Path) -> None:
    (sid,) = SessionStore(state).session_ids()
    text = "how large should the build cache be on the shared runner?"
    assert run("--state", str(state), "session", "append", sid, "--role", "user", "--text", text)[0] == 0
    code, loaded, out = run("--state", str(state), "pending", sid, "--json")
    assert code == 0 and "tiktoken" in loaded  # the first reader counts
    (branch,) = json.loads(out)["branches"]
    assert branch["pending_tokens"] == count_tokens(text)
    code, loaded, again = run("--state", str(state), "pending", sid, "--json")
    assert "tiktoken" not in loaded and json.loads(again) == json.loads(out)  # and the index keeps the count


def test_core_json_reads_the_render_record_and_remeasures_a_hand_edit(state: Path) -> None:
    code, loaded, out = run("--state", str(state), "core", "--json")
    recorded = json.loads(out)
    assert "tiktoken" not in loaded and recorded["canonical_tokens"] > 0
    canonical = state / "memory" / "topics" / "core.md"
    text = canonical.read_text(encoding="utf-8") + "\nDeploys wait for the Friday window. ^b2\n"
    canonical.write_text(text, encoding="utf-8")  # by hand: the record no longer describes it
    code, loaded, out = run("--state", str(state), "core", "--json")
    measured = json.loads(out)
    assert code == 0 and "tiktoken" in loaded
    assert measured["canonical_tokens"] == count_tokens(text) > recorded["canonical_tokens"]


def test_every_command_is_registered_by_its_module() -> None:
    for name, (module, help_text) in COMMANDS.items():
        sub = build_parser(name)._subparsers._group_actions[0]  # type: ignore[union-attr]
        parser = sub.choices[name]
        assert parser.add_help, f"{name}: core/cli/{module}.py does not register it"  # stand-ins have no -h
        assert help_text


def test_every_importer_kind_names_its_module() -> None:
    assert [importer(kind).KIND for kind in KINDS] == list(KINDS)
