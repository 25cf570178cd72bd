"""Readers never see half an install (issue 19, item 5).

A writer process is killed while its install has moved two of four topic files into
place (the journal is left, the tree is half old, half new). Every reader — `search`,
`get`, `core --json` on the command line, the MCP tools and resources, the TUI's models
— must answer with the whole old state or the whole new one: after repairing the
install itself, with the lock held by another live process, and on a read-only state.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from scriptorium.core.agents.memory_tools import MemoryTools
from scriptorium.core.memory import Transaction, Workspace, install, session_record

PY = sys.executable
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
TOPICS = ("alpha.md", "beta.md", "core.md", "zeta.md")  # installed in this order; core.md is the canonical core
QUERY = "marker gauge reads"

# The writer: every topic's "OLD" becomes "NEW"; with a kill point, the process dies
# (os._exit: nothing runs after it) once exactly two topic files hold the new text.
WRITER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from scriptorium.core.memory import Transaction, Workspace, install
    state, kill = Path(sys.argv[1]), sys.argv[2] == "kill"
    topics = [state / "memory" / "topics" / name for name in {topics!r}]
    def hook(point):
        if kill and point == "replace" and sum(b"NEW" in p.read_bytes() for p in topics) == 2:
            os._exit(9)
    install.crash_hook = hook
    ws = Workspace.open(state)
    with Transaction(ws, "write", "flip every gauge") as txn:
        for name in {topics!r}:
            txn.write_topic(name, txn.read_topic(name).replace("OLD", "NEW"))
        assert txn.commit().outcome == "installed"
""").format(topics=TOPICS)

HOLDER = ("import sys, time; from filelock import FileLock; "
          "l = FileLock(sys.argv[1]); l.acquire(); print('held', flush=True); time.sleep(120)")


def topic_text(name: str) -> str:
    title = name.removesuffix(".md").capitalize()
    return (f"# {title}\n\nThe {title} marker gauge reads OLD today.[^e1]\n\n"
            f"[^e1]: Time: `2026-01-02`; Sources: [seen](openprogram/s1/m0)\n")


def cli(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=120)


def write(state: Path, kill: bool) -> None:
    done = subprocess.run([PY, "-c", WRITER, str(state), "kill" if kill else "run"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == (9 if kill else 0), done.stderr


def journal(state: Path) -> Path:
    return state / "memory" / ".scriptorium" / install.JOURNAL


def generations(state: Path) -> set[bool]:
    """Which topic files hold the new text on disk (True), as they are now."""
    return {b"NEW" in (state / "memory" / "topics" / name).read_bytes() for name in TOPICS}


class Reads:
    """What the command-line readers answer: search, get of each topic's block, core."""

    def __init__(self, blocks: list[str]) -> None:
        self.commands = [["search", QUERY, "--top-k", "10", "--json"], *(["get", b, "--json"] for b in blocks),
                         ["core", "--json"]]

    def __call__(self, state: Path) -> list[object]:
        with ThreadPoolExecutor(2) as pool:
            done = list(pool.map(lambda args: cli(state, *args), self.commands))
        for args, result in zip(self.commands, done):
            assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)
        return [json.loads(result.stdout) for result in done]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The seeded state (old), the same after the whole install (new), one killed with
    two of four topics in place (torn), and what every reader answers on old and new."""
    base = tmp_path_factory.mktemp("readers")
    old = base / "old"
    ws = Workspace.open(old)
    with Transaction(ws, "write", "seed") as txn:
        txn.archive([session_record("s1", "m0", "user", "every gauge reads OLD today", 1767312000.0)])
        for name in TOPICS:
            txn.write_topic(name, topic_text(name))
        assert txn.commit().outcome == "installed"
    blocks = [ws.topic(name).blocks[0].block_id for name in TOPICS]
    new, torn = base / "new", base / "torn"
    shutil.copytree(old, new, symlinks=True)
    shutil.copytree(old, torn, symlinks=True)
    write(new, kill=False)
    write(torn, kill=True)
    assert journal(torn).exists() and generations(torn) == {True, False}  # half installed
    reads = Reads(blocks)
    answers = {"old": reads(old), "new": reads(new)}
    assert answers["old"] != answers["new"]
    return {"old": old, "new": new, "torn": torn, "blocks": blocks, "reads": reads, "answers": answers,
            "mcp": {"old": mcp_answers(old, blocks), "new": mcp_answers(new, blocks)}}


def torn_copy(world: dict[str, object], where: Path) -> Path:
    state = where / "state"
    shutil.copytree(world["torn"], state, symlinks=True)  # type: ignore[arg-type]
    return state


def one_state(world: dict[str, object], got: list[object]) -> str:
    """"old" or "new": every answer from that one state (never some from each)."""
    answers = world["answers"]
    for which in ("old", "new"):
        if got == answers[which]:  # type: ignore[index]
            return which
    per_read = [[w for w in ("old", "new") if g == answers[w][i]] for i, g in enumerate(got)]  # type: ignore[index]
    pytest.fail(f"a mix of the old and the new state: {per_read}")


@pytest.fixture()
def held() -> Iterator[Callable[[Path], None]]:
    """`hold(state)`: another live process holds the state's write lock until the test ends."""
    holders: list[subprocess.Popen[str]] = []

    def hold(state: Path) -> None:
        holder = subprocess.Popen([PY, "-c", HOLDER, str(state / "memory" / ".scriptorium" / "write.lock")],
                                  stdout=subprocess.PIPE, text=True)
        holders.append(holder)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield hold
    for holder in holders:
        holder.kill()
        holder.wait()


def test_a_reader_completes_the_killed_install_then_answers_with_the_new_state(
        world: dict[str, object], tmp_path: Path) -> None:
    state = torn_copy(world, tmp_path)
    assert one_state(world, world["reads"](state)) == "new"  # type: ignore[operator]
    assert not journal(state).exists() and generations(state) == {True}
    ws = Workspace(state)
    assert ws.audit_log()[0]["summary"] == "flip every gauge"
    status = subprocess.run(["git", "-C", str(ws.root), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""  # git agrees with the files


def test_with_the_lock_held_by_a_live_process_readers_answer_one_state_and_change_nothing(
        world: dict[str, object], tmp_path: Path, held: Callable[[Path], None]) -> None:
    state = torn_copy(world, tmp_path)
    held(state)
    assert one_state(world, world["reads"](state)) == "new"  # type: ignore[operator]
    assert journal(state).exists() and generations(state) == {True, False}  # left for the lock's holder


@pytest.fixture()
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    mounted = IS_ROOT and shutil.which("mount") and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)], capture_output=True).returncode == 0
    if not mounted:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_on_a_read_only_state_readers_answer_one_state(world: dict[str, object], tmpfs: Path) -> None:
    state = torn_copy(world, tmpfs)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    assert one_state(world, world["reads"](state)) == "new"  # type: ignore[operator]
    assert journal(state).exists() and generations(state) == {True, False}


# -- the MCP server and the TUI's models ------------------------------------------------------------


def mcp_answers(state: Path, blocks: list[str]) -> list[object]:
    """What the MCP server's tools answer (in-process: the same `MemoryTools` it serves)."""
    tools = MemoryTools(state)
    answers = [tools.search(QUERY, 10), *(tools.get(b) for b in blocks), tools.core(), tools.topics(),
               *(tools.topic_text(name) for name in TOPICS)]
    return json.loads(json.dumps(answers))  # as the protocol carries them (tuples become lists)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_server_answers_one_state_with_the_lock_held(
        world: dict[str, object], tmp_path: Path, held: Callable[[Path], None]) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    state = torn_copy(world, tmp_path)
    held(state)
    blocks: list[str] = world["blocks"]  # type: ignore[assignment]
    server = StdioServerParameters(command=PY, args=["-m", "scriptorium.core.cli", "--state", str(state), "mcp"])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def tool(name: str, args: dict[str, object]) -> object:
            result = await session.call_tool(name, args)
            assert not result.is_error, result.content
            doc = result.structured_content
            return json.loads(result.content[0].text) if doc is None else doc.get("result", doc)

        got = [await tool("memory_search", {"query": QUERY, "top_k": 10}),
               *[await tool("memory_get", {"block_id": b}) for b in blocks], await tool("memory_core", {})]
        texts = [(await session.read_resource(f"scriptorium://topics/{name}")).contents[0].text for name in TOPICS]
        core_text = (await session.read_resource("scriptorium://core")).contents[0].text
    expected = world["mcp"]
    for which in ("old", "new"):
        want = expected[which]  # type: ignore[index]
        if got == want[:len(got)] and texts == want[-len(TOPICS):] and core_text == want[len(got) - 1]["injection"]:
            assert which == "new"
            break
    else:
        pytest.fail("the MCP server answered with a mix of the old and the new state")
    assert journal(state).exists()  # the lock's holder repairs it, not a reader that could not lock


def test_memory_tools_answer_one_state_after_repairing(world: dict[str, object], tmp_path: Path) -> None:
    state = torn_copy(world, tmp_path)
    got = mcp_answers(state, world["blocks"])  # type: ignore[arg-type]
    assert got == world["mcp"]["new"]  # type: ignore[index]
    assert not journal(state).exists()


def test_the_tui_models_read_one_state(world: dict[str, object], tmp_path: Path,
                                      held: Callable[[Path], None]) -> None:
    from scriptorium.tui.core.model import load_core
    from scriptorium.tui.search.model import search
    from scriptorium.tui.topics.model import list_topics, read_topic

    def view(state: Path) -> list[object]:
        hits, why = search(state, QUERY)
        return [load_core(state), list_topics(state), [read_topic(state, name) for name in TOPICS],
                [(h.path, h.text) for h in hits], why]

    old, new = view(world["old"]), view(world["new"])  # type: ignore[arg-type]
    locked = torn_copy(world, tmp_path / "locked")
    held(locked)
    assert view(locked) == new
    assert journal(locked).exists()
    assert view(torn_copy(world, tmp_path / "free")) == new != old


def test_the_hooks_inject_and_recall_one_state(world: dict[str, object], tmp_path: Path,
                                               held: Callable[[Path], None]) -> None:
    from scriptorium.core.agents.inject import session_start_injection
    from scriptorium.core.agents.recall import recall_for_prompt

    def view(state: Path) -> list[object]:
        injection = session_start_injection(state)
        recall = recall_for_prompt(state, "the Alpha and Zeta gauges")
        return [injection.text, injection.blocks, recall.text, [h["block_id"] for h in recall.hits]]

    old = view(shutil.copytree(world["old"], tmp_path / "old", symlinks=True))  # type: ignore[arg-type]
    new = view(shutil.copytree(world["new"], tmp_path / "new", symlinks=True))  # type: ignore[arg-type]
    assert old != new and "NEW" in str(new)
    locked = torn_copy(world, tmp_path / "locked")
    held(locked)
    assert view(locked) == new
    assert view(torn_copy(world, tmp_path / "free")) == new
