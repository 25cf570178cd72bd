"""Redaction's false positives on real text (issue 28): how many strings the rules redact
that hold no secret, against the stated limit of 1 in 10,000.

Corpora, each string of each JSON value one string:
* `fixtures`: the real transcripts under shared/fixtures/transcripts (Claude Code, Codex,
  pi) plus 20 base64 images, the set tests/redact/test_false_positives.py asserts on and
  the rules were checked against while written;
* held out, never looked at while writing the rules: `repo-fixtures`, the other real
  transcripts in tests/fixtures/transcripts, and `locomo`, LoCoMo's development
  conversations (shared/data/locomo-dev), plain chat.
A redaction counts as a false positive unless the text before it is what precedes the
real secrets the fixtures hold (a Phoenix config's `secret_key_base:`). With
`--against REV` the redactor of git revision REV counts the same strings.
Usage: python bench/redact_fp.py [--against REV] [--show 5]
Last line: {"fixtures_strings": …, "fixtures_false_positives": …, …}
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from scriptorium.core.redact import PLACEHOLDER_RE, Redactor

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TRUE_SECRETS = re.compile(r"secret_key_base:\s*$")
LIMIT = 1 / 10_000


def strings(value: Any, out: list[str]) -> list[str]:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for v in value:
            strings(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            strings(v, out)
    return out


def jsonl_strings(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                strings(json.loads(line), out)
    return out


def corpora() -> dict[str, list[str]]:
    fixtures = jsonl_strings(sorted((SHARED / "fixtures" / "transcripts").glob("*.jsonl")))
    rng = random.Random(7)
    for _ in range(20):  # images as Claude Code stores them (the test's corpus exactly)
        data = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(3000))).decode()
        fixtures.append(json.dumps({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                 "data": data}}))
        fixtures.append(data)
    repo = jsonl_strings(sorted((ROOT / "tests" / "fixtures" / "transcripts").rglob("*.jsonl")))
    locomo: list[str] = []
    for path in sorted((SHARED / "data" / "locomo-dev").glob("*.json")):
        strings(json.loads(path.read_text(encoding="utf-8")), locomo)
    return {"fixtures": fixtures, "repo-fixtures": repo, "locomo": locomo}


def false_positives(redactor: Any, texts: list[str]) -> tuple[list[str], int]:
    """The false positives (a piece of text around each), and how many strings were redacted."""
    out, redacted = [], 0
    for text in texts:
        red = redactor.text(text)
        redacted += red != text
        for m in PLACEHOLDER_RE.finditer(red):
            if not TRUE_SECRETS.search(red[max(0, m.start() - 60):m.start()].rstrip("\"' ")):
                out.append(red[max(0, m.start() - 60):m.end() + 20])
                break  # strings, not matches
    return out, redacted


def baseline(rev: str, where: Path) -> Any:
    from redact_speed import baseline_redactor  # bench/ is this script's directory

    return baseline_redactor(rev, where)(where / "state")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="REV", default=None, help="also count with this git revision's redactor")
    ap.add_argument("--show", type=int, default=5, help="false positives to print per corpus")
    args = ap.parse_args()
    line: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="scriptorium-bench-fp-") as tmp:
        ours = Redactor(Path(tmp) / "state")
        theirs = baseline(args.against, Path(tmp) / "baseline") if args.against else None
        for name, texts in corpora().items():
            found, redacted = false_positives(ours, texts)
            rate = len(found) / len(texts)
            verdict = "within" if rate <= LIMIT else "OVER"
            print(f"{name:<14} {len(texts):>7,} strings, {redacted} redacted: {len(found)} false positive(s), "
                  f"{rate * 10_000:.2f} per 10,000 ({verdict} the limit of 1)")
            for sample in found[:args.show]:
                print(f"    {sample!r}")
            key = name.replace("-", "_")
            line.update({f"{key}_strings": len(texts), f"{key}_redacted": redacted, f"{key}_false_positives": len(found)})
            if theirs is not None:
                before, was = false_positives(theirs, texts)
                print(f"{'':<14} {args.against}'s rules: {was} redacted, {len(before)} false positive(s)")
                line[f"{key}_false_positives_{args.against}"] = len(before)
    print(json.dumps(line))


if __name__ == "__main__":
    main()
