"""The Sleep screen: why sleep is due, a run with progress, its diff or rejection."""
