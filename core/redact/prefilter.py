"""Redaction of a few short strings (a hook's log line) without building the redactor for nothing.

Building the state's redactor loads Hyperscan and compiles its literal database and reads
config.toml: 6-9 ms of a fresh process, a fifth of a hook's CPU, to redact a line that
almost never holds a secret. No built-in rule can match a text where none of its literals
occurs (the redactor itself only tries a rule where Hyperscan found one), so `value` first
looks for them with plain `in` — for a few hundred characters cheaper than loading the
matcher — and hands the value to the redactor only when one is there, a dict's key names
a secret, or the user has rules of their own (`[redact.patterns]`, which have no literals).
The result is the redactor's, either way.
"""

from __future__ import annotations

from ..paths import StatePaths
from ..values import TYPE_CHECKING
from .rules import BUILTIN_RULES, field_kind

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MIN_LEN = 8  # the redactor's: no rule matches a shorter text (redactor.MIN_LEN)
_PRIVATE = "<private>"  # a span the redactor drops, in any casing
_caseless: tuple[str, ...] | None = None
_exact: tuple[str, ...] = ()


def value(state_dir: Path, doc: Any) -> Any:
    """`doc` (JSON-like) as the state's redactor returns it."""
    if _user_rules(state_dir) or could_hold_secret(doc):
        from .redactor import for_state

        return for_state(state_dir).value(doc)
    return doc


def could_hold_secret(doc: Any) -> bool:
    """Whether the redactor could change anything in `doc`: a string holding a rule's literal
    (or a `<private>` span), or a secret-named field with a string value."""
    if isinstance(doc, str):
        return len(doc) >= MIN_LEN and _has_literal(doc)
    if isinstance(doc, list):
        return any(could_hold_secret(v) for v in doc)
    if isinstance(doc, dict):
        return any((isinstance(k, str) and isinstance(v, str) and field_kind(k) is not None)
                   or could_hold_secret(v) for k, v in doc.items())
    return False


def _has_literal(text: str) -> bool:
    global _caseless, _exact
    if _caseless is None:
        _exact = tuple({lit for rule in BUILTIN_RULES if not rule.caseless for lit in rule.literals})
        _caseless = tuple({lit.lower() for rule in BUILTIN_RULES if rule.caseless for lit in rule.literals} | {_PRIVATE})
    lowered = text.lower()
    return any(lit in lowered for lit in _caseless) or any(lit in text for lit in _exact)


def _user_rules(state_dir: Path) -> bool:
    """Whether config.toml may define rules of the user's (parsed only by the redactor)."""
    try:
        return b"patterns" in StatePaths(state_dir).config.read_bytes()
    except OSError:
        return False
