"""The Sessions screen: the session list, the branch graph, branch details, write and import."""
