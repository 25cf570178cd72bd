"""Redaction of every secret kind, stable keyed placeholders, allow-lists and extra patterns."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.redact import PLACEHOLDER_RE, Redactor, for_state, placeholder_counts
from scriptorium.core.redact import prefilter
from scriptorium.core.redact.key import key_path

from .fakes import fake_secrets, private_span

CASES = fake_secrets()


@pytest.fixture()
def redactor(tmp_path: Path) -> Redactor:
    return Redactor(tmp_path)


@pytest.mark.parametrize("kind,text,secret", CASES, ids=[f"{k}-{i}" for i, (k, _t, _s) in enumerate(CASES)])
def test_every_kind_is_redacted_with_its_placeholder(redactor: Redactor, kind: str, text: str, secret: str) -> None:
    counts: Counter[str] = Counter()
    out = redactor.text(text, counts)
    assert secret not in out
    assert counts[kind] >= 1
    assert f"[REDACTED:{kind}:" in out
    assert placeholder_counts(out)[kind] == counts[kind]


def test_the_hook_logs_prefilter_passes_every_kind_on_to_the_redactor(tmp_path: Path) -> None:
    """A hook's log line skips the redactor when no rule's literal occurs (core/redact/prefilter.py):
    every kind must still reach it, in a string and inside a list, and so must a secret-named
    field and a <private> span."""
    for kind, text, secret in CASES:
        for doc in (text, {"message": [f"while running: {text}"]}):
            assert prefilter.could_hold_secret(doc), (kind, doc)
            assert secret not in str(prefilter.value(tmp_path, doc)), kind
    env = {"env": {"DB_PASSWORD": "hunter2!", "HOME": "/home/ada"}}
    assert prefilter.value(tmp_path, env)["env"]["DB_PASSWORD"].startswith("[REDACTED:password:")
    prompt, word = private_span()
    assert word not in prefilter.value(tmp_path, {"prompt": prompt.upper()})["prompt"].lower()
    plain = {"event": "user-prompt-submit", "text": "what did we decide about the cache?"}
    assert not prefilter.could_hold_secret(plain) and prefilter.value(tmp_path, plain) is plain


def test_the_same_secret_redacts_the_same_way_and_placeholders_are_stable(redactor: Redactor, tmp_path: Path) -> None:
    _kind, text, secret = CASES[0]
    first, second = redactor.text(text), redactor.text(f"again: {text}")
    assert PLACEHOLDER_RE.search(first).group(0) in second
    assert redactor.text(first) == first  # idempotent: a placeholder is never redacted again
    assert Redactor(tmp_path).text(text) == first  # the key persists
    other = Redactor(tmp_path / "elsewhere").text(text)
    assert other != first  # another machine's key: another hash
    digest = PLACEHOLDER_RE.search(first).group(2)
    assert digest not in secret and len(digest) == 8


def test_the_key_is_private_to_the_runtime_folder(redactor: Redactor, tmp_path: Path) -> None:
    redactor.text(CASES[0][1])
    path = key_path(tmp_path)
    assert path.parent == tmp_path / "memory" / ".scriptorium"
    assert path.stat().st_mode & 0o077 == 0


def test_text_without_secrets_never_creates_the_key(redactor: Redactor, tmp_path: Path) -> None:
    assert redactor.text("a token is a unit of text; password reset flows use email") == (
        "a token is a unit of text; password reset flows use email")
    assert not key_path(tmp_path).exists()


def test_private_spans_are_dropped_whole(redactor: Redactor) -> None:
    text, word = private_span()
    counts: Counter[str] = Counter()
    out = redactor.text(text, counts)
    assert word not in out and "my diary" not in out
    assert out == "keep this [private] and this"
    assert counts["private"] == 1
    assert "secret stuff" not in redactor.text("start <private>secret stuff, never closed")


@pytest.mark.parametrize("text", [
    "password = get_password()", "password=args.password", "password: str", "password: Optional[str] = None",
    "password=${DB_PASSWORD}", "password: required", "token = tokens[0]", "max_tokens=4096",
    "input_tokens: 123456789012", "sort_keys=True", "token_count = count_tokens(node.text)",
    "commit 6983129c1f0b2e3d4a5b6c7d8e9f0a1b2c3d4e5f", "id 5e8a3f1c-2b4d-4e6f-8a9b-0c1d2e3f4a5b",
    "Authorization: Bearer $TOKEN", "postgres://user:${PASSWORD}@localhost/db",
    "See https://example.com/a:b@c for details", "the secret is to keep it simple",
])
def test_ordinary_technical_text_stays(redactor: Redactor, text: str) -> None:
    assert redactor.text(text) == text


def test_structured_fields_are_redacted_by_name(redactor: Redactor) -> None:
    counts: Counter[str] = Counter()
    value = {"env": {"DB_PASSWORD": "hunter2!", "API_TOKEN": "a9F3kLq2Zx8Vb7Nm4Pw1", "HOME": "/home/ada"},
             "argv": ["curl", "-u", "ada:pw"], "n": 3}
    out = redactor.value(value, counts)
    assert out["env"]["HOME"] == "/home/ada" and out["n"] == 3
    assert out["env"]["DB_PASSWORD"].startswith("[REDACTED:password:")
    assert out["env"]["API_TOKEN"].startswith("[REDACTED:secret:")
    assert counts == {"password": 1, "secret": 1}
    plain = {"a": ["b", {"c": "d"}]}
    assert redactor.value(plain) is plain  # unchanged values are not copied


def test_config_adds_patterns_and_allows_strings(tmp_path: Path) -> None:
    _kind, text, secret = CASES[0]
    set_config_value(tmp_path, "redact.allow", [secret])
    set_config_value(tmp_path, "redact.patterns", {"employee-id": r"EMP-(\d{6})"})
    redactor = for_state(tmp_path)
    assert redactor.text(text) == text
    counts: Counter[str] = Counter()
    out = redactor.text("badge EMP-123456 issued", counts)
    assert "123456" not in out and re.search(r"EMP-\[REDACTED:employee-id:[0-9a-f]{8}\]", out)
    assert counts == {"employee-id": 1}


def test_a_bad_user_pattern_is_reported_not_fatal(tmp_path: Path) -> None:
    set_config_value(tmp_path, "redact.patterns", {"broken": "(unclosed", "Bad Kind": "x"})
    redactor = for_state(tmp_path)
    assert len(redactor.settings.problems) == 2
    assert CASES[0][2] not in redactor.text(CASES[0][1])


def test_text_summaries_count_redactions_by_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from scriptorium.core.cli import main

    _kind, text, secret = next(c for c in CASES if c[0] == "stripe-key")
    edit = tmp_path / "ops.md"
    edit.write_text(f"# Ops\n\nBilling uses {text} in staging.\n", encoding="utf-8")
    assert main(["--state", str(tmp_path / "state"), "topic", "save", "ops.md", "--from", str(edit)]) == 0
    out = capsys.readouterr().out
    assert "redacted 1 secret(s): stripe-key 1" in out and secret not in out
    transcript = tmp_path / "pi.jsonl"
    transcript.write_text("\n".join([
        '{"type":"session","version":3,"id":"019e19b4-eb48-746a-aa6b-8dfcfa37954c","timestamp":"2026-05-12T01:02:27.657Z","cwd":"/tmp"}',
        '{"type":"message","id":"30c6a75f","parentId":null,"timestamp":"2026-05-12T01:02:27.673Z","message":{"role":"user","content":[{"type":"text","text":"use ' + text.replace("'", "") + '"}]}}',
    ]) + "\n", encoding="utf-8")
    assert main(["--state", str(tmp_path / "state"), "import", "pi", str(transcript)]) == 0
    out = capsys.readouterr().out
    assert "redacted 2 secret(s): stripe-key 2" in out and secret not in out  # the turn and the title from it


def test_import_reports_and_dry_runs_name_sessions_by_their_redacted_title(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The session list `import` prints (and a dry run's) shows each title as stored: redacted."""
    from scriptorium.core.cli import main

    _kind, text, secret = next(c for c in CASES if c[0] == "stripe-key")
    transcript = tmp_path / "pi.jsonl"
    transcript.write_text("\n".join([
        '{"type":"session","version":3,"id":"019e19b4-eb48-746a-aa6b-8dfcfa37954d","timestamp":"2026-05-12T01:02:27.657Z","cwd":"/tmp"}',
        '{"type":"message","id":"30c6a75e","parentId":null,"timestamp":"2026-05-12T01:02:27.673Z","message":{"role":"user","content":[{"type":"text","text":"use ' + text.replace("'", "") + '"}]}}',
    ]) + "\n", encoding="utf-8")
    for args in (["import", "pi", str(transcript), "--dry-run"], ["import", "pi", str(transcript)],
                 ["import", "pi", str(transcript), "--json"]):
        assert main(["--state", str(tmp_path / "state"), *args]) == 0
        out = capsys.readouterr()
        assert secret not in out.out and secret not in out.err, args
