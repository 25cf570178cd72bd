"""Search over memory: BM25+ over topic blocks, CJK-aware tokens, the recall fence."""
