"""Human-readable times and sizes for the app's tables and headers."""

from __future__ import annotations

import time


def ago(timestamp: float, now: float) -> str:
    """`timestamp` relative to `now`: "just now", "5 min", "3 h", "2 d", else the date."""
    if timestamp <= 0:
        return "—"
    delta = now - timestamp
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)} min"
    if delta < 86400:
        return f"{int(delta // 3600)} h"
    if delta < 30 * 86400:
        return f"{int(delta // 86400)} d"
    return time.strftime("%Y-%m-%d", time.localtime(timestamp))


def when(timestamp: float, now: float) -> str:
    """`stamp`, followed by how long ago while that is recent: "2026-01-01 11:00  1 h ago"."""
    relative = ago(timestamp, now)
    if relative == "just now":
        return f"{stamp(timestamp)}  just now"
    return f"{stamp(timestamp)}  {relative} ago" if relative.endswith(("min", "h", "d")) else stamp(timestamp)


def stamp(timestamp: float) -> str:
    """Local date and time to the minute."""
    if timestamp <= 0:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def tokens(count: int) -> str:
    """`950`, `1.2k`, `48k`."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    return f"{count // 1000}k"
