"""Cold offline write: the CPU a fresh process spends to `finish` a one-turn session with
the built-in offline model (imports included), and whether litellm was imported.

Each run is a new interpreter (so nothing is warm but the OS file cache); the figure is
the median over RUNS of the child's user+system CPU time, from process start to exit.
Target: at most 1 s, and litellm never imported.
Last line: {"runs", "finish_cpu_s_median", "finish_cpu_s_max", "litellm_imported"}.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

RUNS = 5
SCRIPT = """
import sys
from pathlib import Path
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish
store = SessionStore(Path(sys.argv[1]))
sid = store.create_session('one turn')
store.append(sid, 'user', 'We deploy the billing service on Tuesdays after the 14:00 freeze, never on Fridays.')
result = finish(store, sid)
assert result.code == 'WRITTEN', result.message
print('litellm' in sys.modules)
"""


def one(state: str) -> tuple[float, bool]:
    before = os.times()
    done = subprocess.run([sys.executable, "-c", SCRIPT, state], capture_output=True, text=True, check=True)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return cpu, done.stdout.strip() == "True"


def main() -> None:
    cpus, imported = [], False
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(RUNS):
            cpu, lit = one(os.path.join(tmp, f"s{n}"))
            cpus.append(cpu)
            imported |= lit
    print(f"{'run':<6}{'cpu s':>8}")
    for n, cpu in enumerate(cpus, 1):
        print(f"{n:<6}{cpu:>8.2f}")
    print(f"median {statistics.median(cpus):.2f} s; litellm imported: {imported}")
    print(json.dumps({"runs": RUNS, "finish_cpu_s_median": round(statistics.median(cpus), 3),
                      "finish_cpu_s_max": round(max(cpus), 3), "litellm_imported": imported}))


if __name__ == "__main__":
    main()
