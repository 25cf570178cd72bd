"""A purge of a text that was only in a topic's file name (and the links to it) converges
on every machine (issue 28, item 5): the name's placeholder, `REDACTED-purged-<tag>`, is
recognised beside the other side's name like a text's `[REDACTED:purged:<tag>]`."""

from __future__ import annotations

import json
import urllib.parse

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.sync.run import sync

from .test_sync import block_id, topics
from .test_team_trust import _holds, _remote_holds, bare, cli, ids, joined  # noqa: F401  (bare: a fixture)


def test_a_secret_only_in_a_topic_name_is_purged_on_every_machine(tmp_path, bare):  # noqa: F811
    """Before: the other machine kept `topics/keys/vault-S.md` and its links; the names'
    placeholders were never recognised, so it never replayed the purge."""
    secret, wide = "zorbleflux9431", "пароль7731"
    a = joined(tmp_path / "a", bare)
    ws = Workspace.open(a)
    save_topic(ws, f"keys/vault-{secret}.md", "# Vault\n\nThe vault opens at nine.\n")
    save_topic(ws, f"keys/ключ-{wide}.md", "# Key\n\nThe spare key hangs by the door.\n")
    vault = block_id(a, f"keys/vault-{secret}.md", "The vault")
    key = block_id(a, f"keys/ключ-{wide}.md", "The spare key")
    quoted = urllib.parse.quote(f"../keys/ключ-{wide}.md", safe="/._-")
    save_topic(ws, "team/ops.md", f"# Ops\n\nSee [the vault](../keys/vault-{secret}.md#^{vault}) and "
                                  f"[the key]({quoted}#^{key}) before deploying.\n")
    assert sync(a).code == "PUSHED"
    b = joined(tmp_path / "b", bare)
    assert sync(b).outcome == "ok"
    held = ids(b)
    assert _holds(b, secret) and _holds(b, wide)

    for text in (secret, wide):
        purged = cli(a, "purge", "--text", text, "--yes", "--json")
        assert purged.returncode == 0, purged.stdout + purged.stderr
    first = sync(a)
    assert first.outcome == "ok", (first.code, first.message, first.diagnostics)
    replays = []
    for state in (b, a, b):
        done = sync(state)
        assert done.outcome == "ok", (state.name, done.code, done.message, done.diagnostics)
        replays += [state.name for r in done.reports if "replayed" in r]
    assert replays == ["b"]
    for state in (a, b):
        for text in (secret, wide):
            assert not _holds(state, text), (state.name, text, _holds(state, text))
        assert ids(state) == held
        assert sorted(topics(state)) == sorted(topics(a))
        checks = json.loads(cli(state, "doctor", "--no-model-call", "--json").stdout)["checks"]
        memory = next(c for c in checks if c["name"] == "memory")
        assert memory["ok"], (state.name, memory)  # links resolve, topics parse
    for text in (secret, wide):
        assert not _remote_holds(bare, text)
    assert [sync(s).code for s in (a, b)] == ["UP_TO_DATE"] * 2


def test_the_purging_machine_replaces_the_remote_without_fetching_it_back(tmp_path, bare):  # noqa: F811
    """Before: the purge mapped its own commit map (old -> new) through itself, so it read
    new -> new; a second purge lost the first's old ids. The remote's tip was never found
    among the replaced commits: sync fetched the secret back, replayed the purge and merged."""
    secret, wide = "zorbleflux9431", "пароль7731"
    a = joined(tmp_path / "a", bare)
    ws = Workspace.open(a)
    save_topic(ws, f"keys/vault-{secret}.md", f"# Vault\n\nThe vault opens at nine, say {secret}.\n")
    save_topic(ws, "keys/key.md", f"# Key\n\nThe spare key's word is {wide}.\n")
    assert sync(a).code == "PUSHED"
    for text in (secret, wide):
        purged = cli(a, "purge", "--text", text, "--yes", "--json")
        assert purged.returncode == 0, purged.stdout + purged.stderr
    done = sync(a)
    assert (done.code, done.message) == ("PUSHED", "replaced origin's memory with the purged history")
    for text in (secret, wide):
        assert not _holds(a, text) and not _remote_holds(bare, text)
