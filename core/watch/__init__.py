"""Everything that waits on the file system or the clock: the idle watcher, duties, the 03:00 scheduler, live import following."""
