"""`scriptorium install|uninstall` round trips on settings files that already hold other things.

The starting files are shaped after the agents' own documentation: Claude Code's settings
(hooks by event, matcher groups, `permissions`) and `~/.claude.json` (`mcpServers`, per-project
state); Codex's `hooks.json` (same hooks shape, openai/codex codex-rs/config/src/hook_config.rs)
and `config.toml` (`[mcp_servers.<name>]`, comments).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

from scriptorium.core.cli import main

CLAUDE_SETTINGS = """{
  "permissions": {
    "allow": [
      "Bash(npm run lint)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '.tool_input.command' >> ~/.claude/bash-log.txt"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "cat .claude/session-context.md"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"""

CLAUDE_JSON = """{
  "numStartups": 12,
  "mcpServers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/tmp"
      ],
      "env": {}
    }
  },
  "projects": {
    "/home/ada/src/app": {
      "allowedTools": [],
      "mcpServers": {}
    }
  }
}
"""

CODEX_HOOKS = """{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "^Bash$",
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.codex/hooks/guard.py",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
"""

CODEX_CONFIG = """# Ada's Codex configuration
model = "gpt-5-codex"  # the default model
approval_policy = "on-request"

[mcp_servers.docs]
# the documentation server
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "o4-mini"
"""


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return home


def run(state: Path, *args: str) -> int:
    return main(["--state", str(state), *args])


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_claude_code_round_trip_keeps_other_hooks_servers_and_layout(home, tmp_path, capsys):
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(CLAUDE_SETTINGS)
    (home / ".claude.json").write_text(CLAUDE_JSON)
    before = snapshot(home)
    state = tmp_path / "state"

    assert run(state, "install", "claude-code") == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert list(settings) == ["permissions", "hooks", "model"]  # key order kept
    assert settings["permissions"] == {"allow": ["Bash(npm run lint)", "mcp__scriptorium__memory_search",
                                                 "mcp__scriptorium__memory_get", "mcp__scriptorium__memory_core"]}
    hooks = settings["hooks"]
    assert hooks["PreToolUse"] == json.loads(CLAUDE_SETTINGS)["hooks"]["PreToolUse"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "cat .claude/session-context.md"  # theirs first
    ours = {event: groups[-1]["hooks"][0]["command"] for event, groups in hooks.items() if event != "PreToolUse"}
    assert set(ours) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"}
    for event, command in ours.items():
        argv = command.split()
        assert os.path.isabs(argv[0]) and Path(argv[0]).name == "scriptorium"
        assert argv[1:3] == ["--state", str(state)] and argv[3:5] == ["hook", "claude-code"]
    assert ours["UserPromptSubmit"].endswith(" user-prompt-submit")
    servers = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert list(servers) == ["filesystem", "scriptorium"]
    assert servers["scriptorium"]["args"] == ["--state", str(state), "mcp"]
    assert json.loads((home / ".claude.json").read_text())["numStartups"] == 12

    installed = snapshot(home)
    assert run(state, "install", "claude-code") == 0
    assert snapshot(home) == installed  # idempotent: no duplicates, no rewrite
    assert "already installed" in capsys.readouterr().out

    assert run(state, "uninstall", "claude-code") == 0
    assert snapshot(home) == before  # byte for byte


def test_claude_code_project_scope_and_config_dir(home, tmp_path, monkeypatch):
    state = tmp_path / "state"
    project = Path.cwd()
    assert run(state, "install", "claude-code", "--scope", "project") == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert "SessionEnd" in settings["hooks"]
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["scriptorium"]["type"] == "stdio"
    assert not (home / ".claude").exists()
    assert run(state, "uninstall", "claude-code", "--scope", "project") == 0
    assert snapshot(project) == {} and not (project / ".claude").exists()

    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert run(state, "install", "claude-code") == 0
    assert (config / "settings.json").is_file() and (config / ".claude.json").is_file()
    assert not (home / ".claude.json").exists()


def test_codex_round_trip_keeps_comments_and_other_servers(home, tmp_path, monkeypatch):
    codex = tmp_path / "codex-home"
    codex.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex))
    (codex / "hooks.json").write_text(CODEX_HOOKS)
    (codex / "config.toml").write_text(CODEX_CONFIG)
    before = snapshot(codex)
    state = tmp_path / "state"

    assert run(state, "install", "codex") == 0
    hooks = json.loads((codex / "hooks.json").read_text())["hooks"]
    assert list(hooks) == ["PreToolUse", "SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd",
                           "SubagentStart"]
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 3  # Codex's ceiling for SessionEnd
    assert hooks["PreToolUse"] == json.loads(CODEX_HOOKS)["hooks"]["PreToolUse"]
    assert hooks["Stop"][0]["hooks"][0]["command"].endswith("hook codex stop")
    text = (codex / "config.toml").read_text()
    assert text.startswith(CODEX_CONFIG)  # every comment and table where it was
    config = tomlkit.parse(text)
    assert config["mcp_servers"]["docs"]["command"] == "npx"
    assert config["mcp_servers"]["scriptorium"]["args"] == ["--state", str(state), "mcp"]
    assert os.path.isabs(config["mcp_servers"]["scriptorium"]["command"])

    installed = snapshot(codex)
    assert run(state, "install", "codex") == 0
    assert snapshot(codex) == installed
    assert run(state, "uninstall", "codex") == 0
    assert snapshot(codex) == before
    assert not (home / ".codex").exists()


def test_codex_table_the_user_moved_is_still_found_and_removed(home, tmp_path, monkeypatch):
    codex = home / ".codex"
    state = tmp_path / "state"
    assert run(state, "install", "codex") == 0
    ours = (codex / "config.toml").read_text().splitlines()[1:]  # every table of ours, without the mark
    moved = "# moved up by hand\n" + "\n".join(ours) + "\n\n[tui]\nnotifications = true  # mine\n"
    (codex / "config.toml").write_text(moved)
    assert run(state, "install", "codex") == 0
    assert (codex / "config.toml").read_text() == moved  # recognised as ours: no second table
    assert run(state, "uninstall", "codex") == 0
    left = (codex / "config.toml").read_text()
    assert "scriptorium" not in left and "notifications = true  # mine" in left


def test_pi_extension_is_written_with_the_absolute_command_and_removed(home, tmp_path):
    state = tmp_path / "state"
    assert run(state, "install", "pi") == 0
    ext = home / ".pi" / "agent" / "extensions" / "scriptorium.ts"
    text = ext.read_text()
    assert 'pi.on("before_agent_start"' in text and 'pi.on("session_shutdown"' in text
    assert '"hook", "pi", event' in text and '"before-agent-start"' in text and '"session-shutdown"' in text
    command = json.loads(text.split("const COMMAND = ", 1)[1].split(";", 1)[0])
    assert os.path.isabs(command) and Path(command).name == "scriptorium"
    assert json.loads(text.split("const ARGS = ", 1)[1].split(";", 1)[0]) == ["--state", str(state)]
    assert run(state, "install", "pi") == 0 and ext.read_text() == text
    assert run(state, "uninstall", "pi") == 0
    assert not ext.exists() and not (home / ".pi").exists()


def test_a_foreign_file_or_server_is_refused_and_left_alone(home, tmp_path, capsys):
    state = tmp_path / "state"
    ext = home / ".pi" / "agent" / "extensions" / "scriptorium.ts"
    ext.parent.mkdir(parents=True)
    ext.write_text("export default function () {}\n")
    assert run(state, "install", "pi") == 1
    assert ext.read_text() == "export default function () {}\n"
    assert "not written by scriptorium" in capsys.readouterr().err

    foreign = '{\n  "mcpServers": {\n    "scriptorium": {\n      "command": "/usr/bin/other-tool"\n    }\n  }\n}\n'
    (home / ".claude.json").write_text(foreign)
    assert run(state, "install", "claude-code") == 1
    assert (home / ".claude.json").read_text() == foreign
    assert not (home / ".claude" / "settings.json").exists()  # nothing half-done


def test_broken_settings_are_never_overwritten(home, tmp_path, capsys):
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": {,}')
    assert run(tmp_path / "state", "install", "claude-code") == 1
    err = capsys.readouterr().err
    assert "settings.json is not valid JSON" in err and "Traceback" not in err
    assert (home / ".claude" / "settings.json").read_text() == '{"hooks": {,}'


def test_dry_run_shows_the_diff_and_writes_nothing(home, tmp_path, capsys):
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(CLAUDE_SETTINGS)
    before = snapshot(home)
    assert run(tmp_path / "state", "install", "claude-code", "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"+++ {home / '.claude' / 'settings.json'}" in out and '+    "SessionEnd": [' in out
    assert "nothing written" in out.splitlines()[-1]
    assert snapshot(home) == before

    assert run(tmp_path / "state", "install", "codex", "--dry-run", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dry_run"] is True and doc["changed"] is True and doc["action"] == "install"
    assert {Path(f["path"]).name: f["change"] for f in doc["files"]} == {"hooks.json": "create", "config.toml": "create"}
    assert "[mcp_servers.scriptorium]" in next(f["diff"] for f in doc["files"] if f["path"].endswith("config.toml"))
    assert snapshot(home) == before


def test_the_installed_command_is_this_installations_scriptorium(home, tmp_path):
    exe = Path(sys.executable).with_name("scriptorium")
    env = dict(os.environ, HOME=str(home))
    done = subprocess.run([str(exe), "--state", str(tmp_path / "state"), "install", "codex", "--json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    config = tomlkit.parse((home / ".codex" / "config.toml").read_text())
    assert config["mcp_servers"]["scriptorium"]["command"] == str(exe)


def test_a_symlinked_settings_file_is_written_through_its_link(home, tmp_path):
    """Dotfiles kept in a repository: `~/.claude/settings.json` is a link and stays one."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text(CLAUDE_SETTINGS)
    (home / ".claude").mkdir()
    link = home / ".claude" / "settings.json"
    link.symlink_to(real)
    state = tmp_path / "state"
    assert run(state, "install", "claude-code") == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "SessionEnd" in json.loads(real.read_text())["hooks"]
    assert run(state, "uninstall", "claude-code") == 0
    assert link.is_symlink() and real.read_text() == CLAUDE_SETTINGS


def test_a_symlink_that_leads_nowhere_is_refused_with_one_line(home, tmp_path, capsys):
    (home / ".claude").mkdir()
    link = home / ".claude" / "settings.json"
    link.symlink_to(tmp_path / "gone" / "settings.json")
    assert run(tmp_path / "state", "install", "claude-code") == 1
    err = capsys.readouterr().err
    assert "symbolic link" in err and "Traceback" not in err
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def test_uninstall_pi_keeps_an_edited_extension_and_the_users_own_folders(home, tmp_path, capsys):
    state = tmp_path / "state"
    extensions = home / ".pi" / "agent" / "extensions"
    extensions.mkdir(parents=True)  # the user's own, empty, before any install
    assert run(state, "install", "pi") == 0
    ext = extensions / "scriptorium.ts"
    assert run(state, "uninstall", "pi") == 0
    assert not ext.exists() and extensions.is_dir()  # the folders install did not create stay

    assert run(state, "install", "pi") == 0
    edited = ext.read_text() + "// my own tweak\n"
    ext.write_text(edited)
    capsys.readouterr()
    assert run(state, "uninstall", "pi") == 0
    assert ext.read_text() == edited
    assert "changed after install" in capsys.readouterr().out


# Formattings a user's files may have; each must come back byte for byte after install + uninstall.
FORMATTINGS = {
    "compact": '{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}',
    "compact lines in an indented file": '{\n  "permissions": {"allow": ["Bash(ls)", "Bash(pwd)"]},\n  "hooks": {\n'
                                         '    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n  }\n}\n',
    "crlf": CLAUDE_SETTINGS.replace("\n", "\r\n"),
    "tabs, no final newline": '{\n\t"model": "opus",\n\t"env": {\n\t\t"A": "\\u00e9"\n\t}\n}',
    "empty object": "{}\n",
    "empty hooks": '{\n    "hooks": {},\n    "model": "opus"\n}\n',
}


@pytest.mark.parametrize("name", list(FORMATTINGS))
def test_claude_code_round_trip_is_byte_identical_in_every_formatting(home, tmp_path, name):
    original = FORMATTINGS[name]
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(original.encode())
    state = tmp_path / "state"
    assert run(state, "install", "claude-code") == 0
    installed = settings.read_bytes().decode()
    assert set(json.loads(installed)["hooks"]) >= {"SessionStart", "Stop", "SessionEnd"}
    kept = [line.rstrip(",") for line in installed.splitlines()]  # a member added after a line gives it a comma
    for line in original.splitlines():
        if not any(ours in line for ours in ('"hooks"', '"Stop"', '"allow"')) and line != "{}":  # the user's own lines
            assert line.rstrip(",") in kept, line
    assert run(state, "uninstall", "claude-code") == 0
    assert settings.read_bytes() == original.encode()


def test_codex_crlf_config_round_trip_is_byte_identical(home, tmp_path):
    codex = home / ".codex"
    codex.mkdir()
    for original in (CODEX_CONFIG.replace("\n", "\r\n"), CODEX_CONFIG.rstrip("\n")):
        (codex / "config.toml").write_bytes(original.encode())
        (codex / "hooks.json").write_bytes(CODEX_HOOKS.replace("\n", "\r\n").encode())
        assert run(tmp_path / "state", "install", "codex") == 0
        installed = (codex / "config.toml").read_bytes()
        if "\r\n" in original:
            assert b"\n" not in installed.replace(b"\r\n", b"")  # no LF-only line was written
        assert tomlkit.parse(installed.decode())["mcp_servers"]["scriptorium"]["command"]
        assert run(tmp_path / "state", "uninstall", "codex") == 0
        assert (codex / "config.toml").read_bytes() == original.encode()
        assert (codex / "hooks.json").read_bytes() == CODEX_HOOKS.replace("\n", "\r\n").encode()


@pytest.mark.parametrize("remember,mode", [("ask", "prompt"), ("allow", "approve")])
def test_codex_install_trusts_its_hooks_and_lets_the_read_tools_run(home, tmp_path, remember, mode):
    """Before: no trust entries (Codex ran no hook) and no approval modes (Codex refused the tools)."""
    from scriptorium.core.agents.codex_trust import hook_hash

    state = tmp_path / "state"
    assert run(state, "install", "codex", "--remember", remember) == 0
    codex = home / ".codex"
    hooks = json.loads((codex / "hooks.json").read_text())["hooks"]
    config = tomlkit.parse((codex / "config.toml").read_text())
    states = config["hooks"]["state"]
    labels = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreCompact": "pre_compact",
              "Stop": "stop", "SessionEnd": "session_end", "SubagentStart": "subagent_start"}
    for event, label in labels.items():
        handler = hooks[event][0]["hooks"][0]
        assert states[f"{codex / 'hooks.json'}:{label}:0:0"]["trusted_hash"] == hook_hash(event, handler)
    tools = config["mcp_servers"]["scriptorium"]["tools"]
    assert {name: tools[name]["approval_mode"] for name in tools} == {
        "memory_search": "approve", "memory_get": "approve", "memory_core": "approve", "memory_remember": mode}
    assert run(state, "install", "codex", "--remember", remember) == 0  # idempotent
    assert tomlkit.parse((codex / "config.toml").read_text()) == config
    assert run(state, "uninstall", "codex") == 0
    assert not codex.exists()


def test_codex_hash_is_the_one_codex_computes():
    """Pinned against `hooks/list` of Codex 0.171 (its currentHash for these two handlers)."""
    from scriptorium.core.agents.codex_trust import hook_hash

    command = "/x/scriptorium --state /s hook codex "
    assert hook_hash("SessionStart", {"type": "command", "command": command + "SessionStart", "timeout": 30}) == \
        "sha256:9362d0b3072c7b7fdf2b21ce0ec136edba534dd3892c59e7f9bf7a6e024337f5"
    assert hook_hash("SessionEnd", {"type": "command", "command": command + "SessionEnd", "timeout": 3}) == \
        "sha256:27f37e6e161fe2c84e0bd525e30fb812ef484bbe789e6e84c3a2911b23856cc4"


def test_install_refuses_the_demo_state_unless_forced(home, tmp_path, capsys):
    """Before: install (and the Agents screen) wired the user's real ~/.claude to the demo without a word."""
    from scriptorium.core.demo import ensure_demo

    demo = tmp_path / "demo"
    assert ensure_demo(demo)
    capsys.readouterr()
    assert run(demo, "install", "claude-code") == 1
    err = capsys.readouterr().err
    assert "is the demo state" in err and "--force" in err
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    assert run(demo, "install", "claude-code", "--force") == 0
    assert run(demo, "uninstall", "claude-code") == 0  # taking it out again is never refused


def test_claude_code_install_lets_the_read_tools_run_and_keeps_a_rule_the_user_had(home, tmp_path):
    """Before: `claude -p` denied every memory tool ("Claude requested permissions to use …")."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = '{\n  "permissions": {\n    "allow": [\n      "mcp__scriptorium__memory_get"\n    ]\n  }\n}\n'
    settings.write_text(original)
    state = tmp_path / "state"
    assert run(state, "install", "claude-code", "--remember", "allow") == 0
    allow = json.loads(settings.read_text())["permissions"]["allow"]
    assert allow == ["mcp__scriptorium__memory_get", "mcp__scriptorium__memory_search", "mcp__scriptorium__memory_core",
                     "mcp__scriptorium__memory_remember"]
    assert run(state, "install", "claude-code") == 0  # remember asks again: its rule goes
    assert "mcp__scriptorium__memory_remember" not in json.loads(settings.read_text())["permissions"]["allow"]
    assert run(state, "uninstall", "claude-code") == 0
    assert settings.read_text() == original  # the rule the user had is theirs
