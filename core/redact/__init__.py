"""Secrets never enter memory (issue 17, DESIGN §16): redaction at every door.

`for_state(state_dir).text(s, counts)` / `.value(obj, counts)` replace known secret shapes
with `[REDACTED:<kind>:<8 hex>]` and drop `<private>` spans. The doors: the session store
(`SessionStore.append`, `create_session`), the evidence archive (`Transaction.archive`,
staged topic text), and every model call (`writer.model.completion`).

`Redactor` and `for_state` are imported when first used: the rules compile their patterns
at import, and a reader that only needs the placeholder's shape (the TUI styling redacted
spans at start-up) should not pay for them.
"""

from __future__ import annotations

from ..values import TYPE_CHECKING
from .placeholder import PLACEHOLDER_RE, PRIVATE_MARK, placeholder_counts

if TYPE_CHECKING:
    from .redactor import Redactor, for_state

__all__ = ["PLACEHOLDER_RE", "PRIVATE_MARK", "Redactor", "for_state", "placeholder_counts"]


def __getattr__(name: str) -> object:
    if name in ("Redactor", "for_state"):
        from . import redactor

        return getattr(redactor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
