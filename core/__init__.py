"""Scriptorium's engine: sessions as DAGs, the written marker, the memory workspace.

Nothing in this package imports Textual, and litellm is imported only at the
moment a model is called.
"""

__version__ = "0.1.0"
