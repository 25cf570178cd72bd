"""Secrets given on a command line, in a URL, an env file or a connection string (a Bash
tool call, a pasted shell history) are redacted before a session stores them: neither the
node files nor the session's git objects hold them. Ordinary commands are left alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from scriptorium.core.cli import main

SECRET_LINES = {
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "S3cretPass1": "mysql -u root -pS3cretPass1 shop < dump.sql",
    "Tr0ub4dor3": "curl -u admin:Tr0ub4dor3 https://api.example.com/v1/items",
    "Hunter2pass": "docker login -u ada -p Hunter2pass registry.example.com",
    "Sup3rS3cret": "sshpass -p 'Sup3rS3cret' ssh deploy@web1",
    "hunter2zz": "psql --password hunter2zz --host db.internal",
    "ghx9Kf8sL2mQ7pZ4vB1nC6": "gh auth login --token ghx9Kf8sL2mQ7pZ4vB1nC6",
    "Sekr1tPw": "redis-cli -u redis://:Sekr1tPw@cache:6379",
    "Passw0rd!": "Server=db;User Id=sa;Password=Passw0rd!;Database=shop;",
    "rk9Lm2Qp8Zt4Vx7Bn1Cy5Wd3": "export STRIPE_KEY=rk9Lm2Qp8Zt4Vx7Bn1Cy5Wd3",
}
ORDINARY = ["git push -u origin main", "sort -u names.txt", "mysql -u root -p shop", 'mysql -p"$MYSQL_PWD" shop',
            "docker login --password-stdin < token.txt", "curl -u admin https://x", "deploy --token $DEPLOY_TOKEN"]


def test_command_line_secrets_never_reach_a_node_file_or_git(tmp_path, capsys):
    state = tmp_path / "state"
    assert main(["--state", str(state), "session", "new", "--title", "shell"]) == 0
    sid = capsys.readouterr().out.strip()
    for line in list(SECRET_LINES.values()) + ORDINARY:
        assert main(["--state", str(state), "session", "append", sid, "--role", "assistant", "--text",
                     f"Running: {line}"]) == 0
    session = state / "sessions" / sid
    files = b"".join(p.read_bytes() for p in session.rglob("*") if p.is_file() and ".git" not in p.parts)
    objects = subprocess.run(["git", "-C", str(session), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout
    for secret in SECRET_LINES:
        assert secret.encode() not in files, secret
        assert secret.encode() not in objects, secret
    for line in ORDINARY:
        assert json.dumps(line)[1:-1].encode() in files, line  # as the node file spells it
    assert files.count(b"[REDACTED:") >= len(SECRET_LINES)
