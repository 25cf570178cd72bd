"""The Sync screen: the remote, ahead/behind, the last sync, and the conflicts to settle."""
