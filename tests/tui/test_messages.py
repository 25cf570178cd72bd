"""The app's own messages are dataclasses (fields declared, no hand-written __init__), and a
message that belongs to one feature lives in that feature's package."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

from textual.message import Message

import scriptorium.tui


def own_messages() -> list[type[Message]]:
    found: dict[str, type[Message]] = {}
    for info in pkgutil.walk_packages(scriptorium.tui.__path__, "scriptorium.tui."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        stack = [obj for obj in vars(module).values() if inspect.isclass(obj)]
        while stack:
            cls = stack.pop()
            if cls.__module__ != info.name:
                continue
            if issubclass(cls, Message):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
            stack += [obj for obj in vars(cls).values() if inspect.isclass(obj)]
    return [found[name] for name in sorted(found)]


def test_every_message_is_a_dataclass() -> None:
    messages = own_messages()
    assert len(messages) > 30  # the screens' messages and the widgets' own
    assert [m.__qualname__ for m in messages if not dataclasses.is_dataclass(m)] == []
    for message in messages:  # the fields are the constructor
        params = list(inspect.signature(message.__init__).parameters)[1:]
        assert params == [f.name for f in dataclasses.fields(message)], message.__qualname__


def test_common_holds_only_what_every_screen_gets() -> None:
    common = [m.__name__ for m in own_messages() if m.__module__ == "scriptorium.tui.common.messages"]
    assert common == ["DiskChanged"]
