"""The Search screen: hybrid search hits with their rank scores, jump to a block."""
