"""Messages of the Core screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from .model import CoreView


@dataclass
class CoreLoaded(Message):
    """The core's canonical text, render, injection and budget were read."""

    view: CoreView
