"""The History screen: the workspace's commits and audit records, diffs, revert."""
