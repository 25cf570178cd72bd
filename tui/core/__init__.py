"""The Core screen: the token meter and canonical, rendered and effective injection."""
