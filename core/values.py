"""Value classes and type-only imports without `dataclasses` or `typing` at run time.

For the modules every session command loads (paths, nodes, the index, the store): importing
`dataclasses` pulls in `inspect`, `ast`, `dis` and `tokenize`, each decorated class
compiles its methods at import, and `typing` costs a few ms more — together most of what a
fresh process spent before its first mark (bench/store_paths.py). `Value` writes the
methods a dataclass would generate once, for every class; `TYPE_CHECKING` is typing's
flag without importing typing (mypy treats any `if TYPE_CHECKING:` as taken), so those
modules import `Any` and friends only for the checker.
"""

from __future__ import annotations

TYPE_CHECKING = False


class Value:
    """A value compared field by field, in `__slots__` order (subclasses list all theirs
    in one `__slots__`). Mutable by default, hence unhashable, as a dataclass with
    `eq=True` is; `Frozen` below is hashable."""

    __slots__: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def as_dict(self) -> dict[str, object]:
        """Field name -> value, in order (a shallow `dataclasses.asdict`; JSON output)."""
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{self.__class__.__name__}({shown})"


class Frozen(Value):
    """A Value that is never changed after `__init__` (by convention), hence hashable."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._fields())
