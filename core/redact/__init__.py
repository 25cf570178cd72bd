"""Secrets never enter memory (issue 17, DESIGN §16): redaction at every door.

`for_state(state_dir).text(s, counts)` / `.value(obj, counts)` replace known secret shapes
with `[REDACTED:<kind>:<8 hex>]` and drop `<private>` spans. The doors: the session store
(`SessionStore.append`, `create_session`), the evidence archive (`Transaction.archive`,
staged topic text), and every model call (`writer.model.completion`).
"""

from .placeholder import PLACEHOLDER_RE, PRIVATE_MARK, placeholder_counts
from .redactor import Redactor, for_state

__all__ = ["PLACEHOLDER_RE", "PRIVATE_MARK", "Redactor", "for_state", "placeholder_counts"]
