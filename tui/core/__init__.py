"""The Core screen: the token meter and canonical, rendered and injected (session-start) core."""
