"""The one debounce (core/watch/coalesce.py) the import follower and the TUI's live updates share.

Real threads and real time, with margins wide enough for a loaded machine: lower bounds
(nothing released early) are exact, upper bounds are generous.
"""

from __future__ import annotations

import threading
import time

from scriptorium.core.watch.coalesce import Coalescer


def consume(coalescer: Coalescer[str]) -> tuple[threading.Thread, list[object]]:
    """next_batch() on its own thread; the list gets (batch, seconds waited)."""
    out: list[object] = []

    def run() -> None:
        started = time.monotonic()
        batch = coalescer.next_batch()
        out.append((batch, time.monotonic() - started))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_a_burst_is_one_batch_released_after_the_quiet_period() -> None:
    coalescer: Coalescer[str] = Coalescer((0.2, 5.0))
    started = time.monotonic()
    coalescer.add(["a", "b"])
    coalescer.add(["b", "c"])
    assert coalescer.next_batch() == {"a", "b", "c"}
    assert 0.2 <= time.monotonic() - started < 4.0
    coalescer.add(["d"])
    assert coalescer.next_batch() == {"d"}  # the next burst starts afresh


def test_a_writer_that_never_pauses_is_followed_within_the_longest_delay() -> None:
    coalescer: Coalescer[int] = Coalescer((30.0, 0.3))  # a quiet period that never comes
    stop = threading.Event()
    first = time.monotonic()

    def produce() -> None:
        n = 0
        while not stop.is_set():
            coalescer.add([n])
            n += 1
            time.sleep(0.01)

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    try:
        batch = coalescer.next_batch()
        waited = time.monotonic() - first
    finally:
        stop.set()
        producer.join()
    assert batch and 0 in batch
    assert 0.3 <= waited < 10  # cut at the longest delay, long before the quiet period


def test_nothing_is_released_while_held_and_the_held_batch_follows() -> None:
    coalescer: Coalescer[str] = Coalescer((0.05, 0.1))
    with coalescer.hold():
        thread, out = consume(coalescer)
        coalescer.add(["own"])
        time.sleep(0.4)  # well past both delays
        assert out == [] and thread.is_alive()
    thread.join(5)
    assert out and out[0][0] == {"own"}


def test_close_wakes_the_consumer_and_drops_what_is_pending() -> None:
    coalescer: Coalescer[str] = Coalescer((10.0, 10.0))
    thread, out = consume(coalescer)
    coalescer.add(["late"])
    coalescer.close()
    thread.join(5)
    assert out and out[0][0] is None and out[0][1] < 5
    assert coalescer.next_batch() is None


def test_the_delays_are_asked_anew_for_every_batch() -> None:
    delays = [(0.0, 0.0)]
    coalescer: Coalescer[str] = Coalescer(lambda: delays[-1])
    coalescer.add(["x"])
    assert coalescer.next_batch() == {"x"}
    delays.append((0.3, 0.3))  # the follower's delays grow with its last import
    started = time.monotonic()
    coalescer.add(["y"])
    assert coalescer.next_batch() == {"y"} and time.monotonic() - started >= 0.3
