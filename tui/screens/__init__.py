"""The app's screens, switched by number key."""
