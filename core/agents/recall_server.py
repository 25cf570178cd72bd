"""A warm recall process per state, so that recall before a prompt costs a hook no model load.

A cold recall in the hook's own process spends most of its time loading what every
recall needs (numpy, the embedding model's tokenizer, the search index: ~0.2 s of CPU
before the first query is ranked). One detached process per state keeps them loaded and
answers the hooks' recalls over a unix socket in the state's runtime folder,
`memory/.scriptorium/recall.sock` (mode 0600: only the state's user can ask).

* **Started on first need**: a session start (`ensure`) or a prompt that finds no
  process spawns one, detached; it binds its socket first and loads afterwards, so a
  prompt that arrives while it warms up — or before it has bound its socket: the spawned
  pid is noted in `recall.spawned` — waits for it instead of loading the same a second time. At most one per state: the process holds `recall.lock` (flock) for its
  whole life, and a second one exits at once.
* **The same answer as cold**: the process runs the hook's own `recall_for_prompt`,
  keeping only the search index between calls (rebuilt when `config.toml` changes);
  the hook keeps the session's seen-record and the log line, as before.
* **Falls back, never fails**: no socket, a dead process's socket, a process that does
  not answer within `WAIT_S`, one of another version or install (`_identity`), or one
  serving another state: the hook recalls in its own process, the same result, and says
  which way it went in the log (`recall_via`).
* **Ends by itself**: after `idle_seconds` without a call (`[recall] warm_minutes`, 15 by
  default; 0: no warm process), when its socket is gone or replaced (the state was
  removed), or when the installed code changed under it.

One request per connection: one JSON line each way.
"""

from __future__ import annotations

import _socket  # the C module under `socket`: all a client needs, without socket.py's enums (10 ms a hook)
import json
import os
import time
import zlib
from pathlib import Path

from ..paths import StatePaths
from ..values import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

SOCKET_NAME = "recall.sock"
LOCK_NAME = "recall.lock"
SPAWNED_NAME = "recall.spawned"  # the pid of the process last started for the state
START_POLL_S = 0.01  # how often a prompt looks for the socket of a process still starting
WARM_ENV = "SCRIPTORIUM_RECALL_WARM"  # idle seconds for the warm process ("0": none); wins over config.toml
IDLE_MINUTES = 15
WAIT_S = 3.0  # a hook waits this long for the answer (a process still warming up included), then recalls cold
TICK_S = 2.0
LOCK_WAIT_S = 2.0  # a new process waits this long for the one it replaces to let go  # the process looks at its socket and its idle time this often
MAX_LINE = 4 * 1024 * 1024
PROTOCOL = 1
_SUN_PATH = 100  # bytes: sockaddr_un holds 108 on Linux, 104 on macOS


def idle_seconds(state_dir: Path) -> float:
    """How long a warm process waits for the next call; 0: recall cold in every hook."""
    raw = os.environ.get(WARM_ENV)
    if raw is not None:
        try:
            return max(0.0, float(raw))
        except ValueError:
            return IDLE_MINUTES * 60.0
    try:
        if b"warm_minutes" not in StatePaths(Path(state_dir)).config.read_bytes():
            return IDLE_MINUTES * 60.0
    except OSError:
        return IDLE_MINUTES * 60.0
    from ..config import load_config

    value = load_config(Path(state_dir)).get("recall.warm_minutes", IDLE_MINUTES)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
    return float(value) * 60.0 if ok else IDLE_MINUTES * 60.0


def _recall_on(state_dir: Path) -> bool:
    """`[recall] enabled` and `core.inject`, parsing config.toml only when it names either."""
    try:
        raw = StatePaths(Path(state_dir)).config.read_bytes()
    except OSError:
        return True
    if b"enabled" not in raw and b"inject" not in raw:
        return True
    from ..config import load_config
    from .recall import RecallSettings

    return RecallSettings.from_config(load_config(Path(state_dir))).enabled


def _identity() -> dict[str, str]:
    """Which install a hook runs: a process of another one (an upgrade, another venv) is not asked."""
    from .. import __version__

    return {"version": __version__, "root": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}


class _Code:
    """The installed engine's files (names, sizes, mtimes) as the process started with them:
    it stops when they change (an upgrade, an edit), looking at most once a second (1-2 ms)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.stamp = _code_stamp(root)
        self.looked = time.monotonic()

    def changed(self) -> bool:
        if time.monotonic() - self.looked >= 1.0:
            self.looked = time.monotonic()
            return _code_stamp(self.root) != self.stamp
        return False


def _code_stamp(root: str) -> int:
    entries: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                entries.append(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return zlib.crc32("\n".join(entries).encode("utf-8", "surrogatepass"))


class _Address:
    """The socket's path, short enough for `sockaddr_un`: a long state path is reached
    through an open descriptor of its runtime folder (`/proc/self/fd/N/recall.sock`)."""

    def __init__(self, state_dir: Path) -> None:
        self.folder = str(StatePaths(Path(state_dir)).runtime)
        self.path = os.path.join(self.folder, SOCKET_NAME)
        self._fd: int | None = None

    def __enter__(self) -> str | None:
        if len(os.fsencode(self.path)) <= _SUN_PATH:
            return self.path
        if not os.path.isdir("/proc/self/fd"):
            return None
        try:
            self._fd = os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            return None
        return f"/proc/self/fd/{self._fd}/{SOCKET_NAME}"

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# -- the hook's side ------------------------------------------------------------------------


def ask(state_dir: Path, prompt: str, seen: set[str] | frozenset[str]) -> tuple[dict[str, Any] | None, str]:
    """(the warm process's recall as `Recall`'s fields, or None to recall cold; how it went)."""
    if not hasattr(_socket, "AF_UNIX"):
        return None, "cold (no unix sockets here)"
    if idle_seconds(state_dir) <= 0:
        return None, "cold (warm process off)"
    request = {"protocol": PROTOCOL, **_identity(), "state": str(state_dir), "prompt": prompt, "seen": sorted(seen)}
    deadline = time.monotonic() + WAIT_S
    with _Address(state_dir) as address:
        if address is None:
            return None, "cold (socket path too long)"
        while True:
            conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            try:
                conn.settimeout(max(0.05, deadline - time.monotonic()))
                conn.connect(address)
                conn.sendall(json.dumps(request).encode("utf-8") + b"\n")
                answer = json.loads(_read_line(conn) or b"null")
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if not _starting(state_dir):
                    spawn(state_dir)
                    return None, "cold (no warm process: started one)"
                if time.monotonic() >= deadline:
                    return None, "cold (the warm process did not start in time)"
                time.sleep(START_POLL_S)  # the one a session start spawned has not bound its socket yet
            except TimeoutError:
                return None, "cold (the warm process did not answer in time)"
            except (OSError, ValueError) as exc:
                return None, f"cold ({type(exc).__name__})"
            finally:
                conn.close()
    if not isinstance(answer, dict) or not isinstance(answer.get("recall"), dict):
        why = answer.get("refused") if isinstance(answer, dict) else None
        if why == "another install":
            spawn(state_dir)  # it is on its way out; the next prompt finds this one's
        return None, f"cold (the warm process refused: {why or 'no answer'})"
    return answer["recall"], "warm"


def ensure(state_dir: Path) -> None:
    """Have a warm process ready for the session's first prompt (a session start calls this)."""
    if not hasattr(_socket, "AF_UNIX") or idle_seconds(state_dir) <= 0:
        return
    if not StatePaths(Path(state_dir)).memory.is_dir() or not _recall_on(state_dir):
        return  # no memory yet, or no recall: nothing to keep warm
    with _Address(state_dir) as address:
        if address is None:
            return
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            conn.connect(address)  # connected and closed at once: the process skips it
            return
        except OSError:
            pass
        finally:
            conn.close()
    spawn(state_dir)


def pid(state_dir: Path) -> int | None:
    """The warm process serving `state_dir`, if one runs (it holds the lock it wrote its pid in)."""
    import fcntl

    path = StatePaths(Path(state_dir)).runtime / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:  # held: a process serves the state
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _starting(state_dir: Path) -> bool:
    """Whether the process last spawned for `state_dir` still runs (binding its socket, or
    waiting for the lock of the one it replaces): then a prompt waits for it instead of
    recalling cold beside it, which costs both of them the same loading on a busy machine."""
    try:
        text = (StatePaths(Path(state_dir)).runtime / SPAWNED_NAME).read_text(encoding="ascii").strip()
        process = int(text)
        os.kill(process, 0)
    except (OSError, ValueError):
        return False
    try:  # a zombie (a test's own child) has ended
        with open(f"/proc/{process}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc: alive, as far as kill says


def spawn(state_dir: Path) -> None:
    """Start the warm process, detached; its pid noted (`_starting`)."""
    runtime = StatePaths(Path(state_dir)).runtime
    if not os.path.isdir(runtime):
        return  # no memory opened yet: nothing to recall
    from .detach import ONE_THREAD, spawn as detached

    env = dict(os.environ)
    for name in ONE_THREAD:
        env.setdefault(name, "1")
    code = "import sys\nfrom scriptorium.core.agents.recall_server import serve\nsys.exit(serve(sys.argv[1]))\n"
    try:
        process = detached(["-c", code, str(state_dir)], env=env)
        with open(runtime / SPAWNED_NAME, "w", encoding="ascii") as fh:
            fh.write(f"{process}\n")
    except OSError:
        pass  # no warm process: every prompt recalls cold, as before


def _read_line(conn: Any) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n") or size > MAX_LINE:
            break
    return b"".join(chunks)


# -- the warm process ---------------------------------------------------------------------


class _Indexes:
    """The live state's search index, kept between calls; a new one when config.toml changes
    (semantic search on or off, another model), as a fresh process would read it."""

    def __init__(self, state_dir: Path) -> None:
        self.config = StatePaths(state_dir).config
        self._kept: dict[Path, tuple[tuple[int, int] | None, Any]] = {}

    def __call__(self, memory: Path) -> Any:
        from ..search import SearchIndex

        try:
            st = os.stat(self.config)
            stamp: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        kept = self._kept.get(memory)
        if kept is None or kept[0] != stamp:
            kept = self._kept[memory] = (stamp, SearchIndex(memory, vectorize=False))
        return kept[1]


def serve(state: str) -> int:
    """The warm process of `state`: answer recalls until idle, replaced or out of date."""
    import fcntl
    import socket

    from .detach import reap

    state_dir = Path(state)
    runtime = StatePaths(state_dir).runtime
    try:
        os.chdir(runtime)  # never hold the agent's project folder
        lock = os.open(LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return 0  # the state is gone
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if time.monotonic() >= deadline:
                return 0  # another one serves this state
            time.sleep(0.05)  # or one of another install is on its way out
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())  # who serves it (`pid`): doctor, the bench, the tests
    idle = idle_seconds(state_dir)
    if idle <= 0:
        return 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        try:
            os.unlink(SOCKET_NAME)  # a dead process's socket: the lock says nobody serves it
        except FileNotFoundError:
            pass
        mask = os.umask(0o177)
        try:
            server.bind(SOCKET_NAME)  # relative to the runtime folder: no path is too long for it
        finally:
            os.umask(mask)
        server.listen(64)
        mine = os.stat(SOCKET_NAME).st_ino
        identity = _identity()
        code = _Code(identity["root"])
        indexes = _Indexes(state_dir)
        _warm_up(state_dir, indexes)
        server.settimeout(TICK_S)
        last = time.monotonic()
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                reap()  # the index rebuilds recall started
                if time.monotonic() - last > idle or not _still_mine(mine) or code.changed():
                    break
                continue
            last = time.monotonic()
            with conn:
                if not _answer(conn, state_dir, identity, code, indexes):
                    break
        if _still_mine(mine):
            os.unlink(SOCKET_NAME)
    return 0


def _still_mine(inode: int) -> bool:
    try:
        return os.stat(SOCKET_NAME).st_ino == inode
    except OSError:
        return False


def _warm_up(state_dir: Path, indexes: _Indexes) -> None:
    """Load what every recall needs (the index, the embedding model, the vectors); no writes."""
    from .recall import INLINE_BUILD

    try:
        index = indexes(StatePaths(state_dir).memory)
        if not index.refresh(include_sources=True, max_build=INLINE_BUILD).stale:
            index.search("warm up", top_k=1, include_sources=True, refresh=False)
    except Exception:  # noqa: BLE001 - a recall will meet the same and answer it
        pass


def _answer(conn: Any, state_dir: Path, identity: dict[str, str], code: _Code, indexes: _Indexes) -> bool:
    """Answer one request; False when this process should end (its code is out of date)."""
    from dataclasses import asdict

    from .recall import recall_for_prompt

    conn.settimeout(WAIT_S)
    keep_on = True
    try:
        line = _read_line(conn)
        if not line:
            return True  # a session start checking that the process is there
        request = json.loads(line)
        if not isinstance(request, dict) or request.get("protocol") != PROTOCOL:
            answer: dict[str, Any] = {"refused": "another protocol"}
        elif {k: request.get(k) for k in identity} != identity or code.changed():
            answer, keep_on = {"refused": "another install"}, False
        elif not _same_state(request.get("state"), state_dir):
            answer = {"refused": "another state"}
        else:
            seen = {str(b) for b in request.get("seen") or []}
            found = recall_for_prompt(state_dir, str(request.get("prompt") or ""), seen, index_for=indexes)
            answer = {"recall": asdict(found)}
        conn.sendall(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
    except Exception as exc:  # noqa: BLE001 - the hook recalls cold and logs whatever that meets
        try:
            conn.sendall(json.dumps({"refused": f"{type(exc).__name__}"}).encode("utf-8") + b"\n")
        except OSError:
            pass
    return keep_on


def _same_state(asked: object, state_dir: Path) -> bool:
    try:
        return isinstance(asked, str) and os.path.samefile(asked, state_dir)
    except OSError:
        return False
