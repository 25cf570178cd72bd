"""Start a Python process detached from the hook that starts it (its own session, no terminal).

`os.posix_spawn` rather than `subprocess`: importing subprocess (signal, selectors,
threading) is a tenth of a bare hook's CPU, and the hook needs none of it. The child
gets /dev/null for stdout and stderr, `stdin` (a few hundred bytes at most: they fit in
the pipe's buffer whether or not the child reads yet) or /dev/null on its stdin, and a
session of its own, so the agent's terminal and process group never see it. The child
is a Python interpreter, which ignores SIGPIPE itself and restores it for the programs
it runs. Nobody waits for it: a long-lived caller reaps its children (`reap`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# What a hook and the processes it starts set, unless the user did: BLAS and the tokenizers'
# thread pools only burn CPU on a 256-dim dot product and a one-line tokenization (measured:
# a cold recall 0.37 s CPU with the pools, 0.22 s without, the same wall time).
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")


def spawn(args: list[str], stdin: bytes | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run `sys.executable *args` detached; its pid. Raises OSError when it cannot start."""
    null = os.devnull
    actions: list[tuple] = [(os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                            (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)]
    read_end = write_end = -1
    if stdin is None:
        actions.append((os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0))
    else:
        read_end, write_end = os.pipe()  # both close-on-exec: the child keeps only its fd 0
        actions.append((os.POSIX_SPAWN_DUP2, read_end, 0))
    try:
        pid = os.posix_spawn(sys.executable, [sys.executable, *args], dict(os.environ if env is None else env),
                             file_actions=actions, setsid=True)
    finally:
        if read_end >= 0:
            os.close(read_end)
    if write_end >= 0:
        try:
            os.write(write_end, stdin or b"")
        except OSError:
            pass  # it died at once: what it would have done is left to the next call
        finally:
            os.close(write_end)
    return pid


def reap() -> None:
    """Collect the exit of every child that has ended (a long-lived process that spawns)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
