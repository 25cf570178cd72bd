"""TUI cold-start benchmark (issue: TUI part 1).

Builds a state directory with 100 sessions (30 turns each, a re-asked fork, the first
half written), then starts the app in a fresh process several times and measures, from
the moment the process is launched:
  * first paint: the app's first screen drawn (headless driver);
  * sessions listed: the session list filled by its worker (every session's branches and
    pending backlog computed);
  * first graph: the newest session drawn as a branch graph, with its branches and batches;
beside the cold time of `python -c "import textual"`. Targets: first paint ≤ 0.8 s and
≤ 3× the import. Last line: one JSON object of the key figures.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scriptorium.core.sessions.marker import mark_written, workspace_id
from scriptorium.core.sessions.store import SessionStore

SESSIONS = 100
TURNS = 30
RUNS = 5

CHILD = r"""
import json, sys, time
from scriptorium.tui.app import ScriptoriumApp
from scriptorium.tui.sessions.session_list import SessionList

marks = {}
display = ScriptoriumApp._display

def first_paint(app, screen, renderable):
    # The first frame handed to the terminal (the headless driver discards it).
    if renderable is not None and not app._batch_count and "first_paint" not in marks:
        marks["first_paint"] = time.time()
    display(app, screen, renderable)

ScriptoriumApp._display = first_paint

async def watch(pilot):
    screen = pilot.app.screen
    while not screen.query_one(SessionList).row_count:
        await pilot.pause(0.005)
    marks["listed"] = time.time()
    while screen.graph is None:
        await pilot.pause(0.005)
    marks["graph"] = time.time()
    pilot.app.exit(0)

ScriptoriumApp(sys.argv[1]).run(headless=True, auto_pilot=watch, size=(160, 48))
print(json.dumps(marks))
"""


def build(state: Path) -> None:
    store = SessionStore(state)
    wid = workspace_id(state)
    for s in range(SESSIONS):
        sid = store.create_session(title=f"Session {s}: build cache sizing and deploy windows")
        with store.batch(sid, "bench build"):
            ids = []
            for t in range(TURNS):
                role = "user" if t % 2 == 0 else "assistant"
                ids.append(store.append(sid, role, f"turn {t} of session {s}: " + "words about caches " * 10,
                                        created_at=1_767_000_000 + s * 3600 + t * 60).id)
            fork = ids[TURNS // 2]
            for t in range(4):
                fork = store.append(sid, "assistant" if t % 2 == 0 else "user", f"re-asked {t}",
                                    predecessor=fork, created_at=1_767_000_000 + s * 3600 + 4000 + t).id
            mark_written(store, sid, ids[: TURNS // 2], wid)


def launch(args: list[str]) -> tuple[float, str]:
    start = time.time()
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return start, done.stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        t = time.perf_counter()
        build(state)
        print(f"built {SESSIONS} sessions × {TURNS + 4} turns in {time.perf_counter() - t:.1f} s")
        launch([sys.executable, "-c", CHILD, str(state)])  # warm the OS file cache once
        paint, listed, graph, imports = [], [], [], []
        for _ in range(RUNS):
            start, out = launch([sys.executable, "-c", CHILD, str(state)])
            marks = json.loads(out.strip().splitlines()[-1])
            paint.append(marks["first_paint"] - start)
            listed.append(marks["listed"] - start)
            graph.append(marks["graph"] - start)
            start = time.time()
            subprocess.run([sys.executable, "-c", "import textual"], check=True)
            imports.append(time.time() - start)
    startup, listing, first_graph, textual_import = (statistics.median(x) for x in (paint, listed, graph, imports))
    ratio = startup / textual_import
    print(f"{'measure':<38}{'median':>10}{'runs':>40}")
    print(f"{'first paint (cold process)':<38}{startup:>9.3f}s   " + " ".join(f"{x:.3f}" for x in paint))
    print(f"{'sessions listed (100 sessions)':<38}{listing:>9.3f}s   " + " ".join(f"{x:.3f}" for x in listed))
    print(f"{'first session graph shown':<38}{first_graph:>9.3f}s   " + " ".join(f"{x:.3f}" for x in graph))
    label = 'python -c "import textual"'
    print(f"{label:<38}{textual_import:>9.3f}s   " + " ".join(f"{x:.3f}" for x in imports))
    print(f"first paint / import textual = {ratio:.2f}  (targets: ≤ 0.8 s, ≤ 3×)")
    print(json.dumps({"startup_s": round(startup, 3), "import_textual_s": round(textual_import, 3),
                      "ratio": round(ratio, 2), "sessions_listed_s": round(listing, 3),
                      "first_graph_s": round(first_graph, 3)}))


if __name__ == "__main__":
    main()
