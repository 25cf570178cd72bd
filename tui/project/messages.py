"""Messages of the Project memory screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from .model import ProjectView


@dataclass
class ProjectLoaded(Message):
    """A project's trilogy was read (or found missing)."""

    view: ProjectView
