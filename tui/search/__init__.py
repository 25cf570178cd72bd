"""The Search screen: BM25 hits with scores, jump to a block."""
