"""The Topics screen: the topic tree, the editor, the block inspector and its dialogs."""
