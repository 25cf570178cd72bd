"""The tree of topic files, each with its block count; the canonical core is marked."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from scriptorium.core.sanitize import sanitize_line

from .model import TopicEntry, TopicListing


def topic_label(entry: TopicEntry, accent: str) -> Text:
    """File name (untrusted: sanitized, never markup), block count; the core marked."""
    name = sanitize_line(entry.path.rsplit("/", 1)[-1])
    count = (f"  {entry.blocks}", "dim")
    if entry.is_core:
        return Text.assemble(("◆ ", accent), (name, "bold"), count, ("  core", f"italic {accent}"))
    return Text.assemble(name, count)


class TopicTree(Tree[str]):
    """Node data is the topic path (relative to topics/); directories carry None."""

    DEFAULT_CSS = """
    TopicTree { background: $surface; }
    """

    @dataclass
    class Chosen(Message):
        """A topic was picked (enter or click)."""

        path: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("topics/", id=id)
        self.show_root = False
        self.guide_depth = 3
        self.auto_expand = True

    def process_label(self, label: str | Text) -> Text:
        """Labels are plain text: a folder named `[@click=…]` stays those characters."""
        return (Text(label) if isinstance(label, str) else label).split()[0]

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        """As Tree renders it, with the label's own colours (the core mark, the counts)
        put back over the row style, which would otherwise paint them over."""
        text = super().render_label(node, base_style, style)
        offset = len(text) - len(node.label)
        for span in node.label.spans:
            text.stylize(span.style, offset + span.start, offset + span.end)
        return text

    def show(self, listing: TopicListing, current: str | None) -> None:
        """Replace the tree, keeping folders open and the cursor on `current`."""
        self.clear()
        accent = self.app.theme_variables.get("text-accent", "blue")
        folders: dict[str, TreeNode[str]] = {"": self.root}
        ordered = sorted(listing.topics, key=lambda e: (not e.is_core, e.path.count("/") > 0, e.path))
        for entry in ordered:
            parent_key = ""
            for part in entry.path.split("/")[:-1]:
                key = f"{parent_key}{part}/"
                if key not in folders:
                    folders[key] = folders[parent_key].add(sanitize_line(part) + "/", expand=True)
                parent_key = key
            node = folders[parent_key].add_leaf(topic_label(entry, accent), data=entry.path)
            if entry.path == current:
                self.call_after_refresh(self.move_cursor, node, animate=False)
        self.root.expand()

    def select_path(self, path: str) -> None:
        def find(node: TreeNode[str]) -> TreeNode[str] | None:
            if node.data == path:
                return node
            for child in node.children:
                if (found := find(child)) is not None:
                    return found
            return None

        node = find(self.root)
        if node is not None:
            self.move_cursor(node, animate=False)

    def on_tree_node_selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Chosen(event.node.data))
