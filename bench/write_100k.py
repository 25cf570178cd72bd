"""Writing a long transcript: the CPU the offline writer spends on one session of 100,000
words (issue 24's target: at most 20 s).

The session is a working session (a working directory, user and assistant turns) whose
turns are LoCoMo's development conversations (../shared/data/locomo-dev/) in order, taken
again from the start until the session holds WORDS words. Each run is a fresh process
that creates the session through the store and then times `finish` alone (process CPU,
user + system, from `time.process_time`); the figure is the median of RUNS runs, with the
load average beside it.
Last line: {"runs", "words", "finish_cpu_s_median", "finish_cpu_s_max", "blocks", "load"}.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUNS = 3
WORDS = 100_000
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev"
SCRIPT = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from locomo_shapes import load, session_numbers
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish
from scriptorium.core.memory import parse_topic
turns = []
for path in sorted(Path(sys.argv[2]).glob('*.json')):
    conv = load(path)
    for n in session_numbers(conv):
        turns += [('user' if t['speaker'] == conv['speaker_a'] else 'assistant', t['text']) for t in conv[f'session_{n}']]
store = SessionStore(Path(sys.argv[1]))
sid = store.create_session('long', source='claude-code', cwd='/home/user/projects/diary')
words, i = 0, 0
with store.batch(sid, message='long'):
    while words < int(sys.argv[4]):
        role, text = turns[i % len(turns)]
        store.append(sid, role, text, created_at=1_700_000_000 + i)
        words += len(text.split())
        i += 1
t = time.process_time()
result = finish(store, sid)
cpu = time.process_time() - t
assert result.outcome == 'ok', result.message
topics = Path(sys.argv[1]) / 'memory' / 'topics'
blocks = sum(len(parse_topic(p.relative_to(topics).as_posix(), p.read_text()).blocks) for p in topics.rglob('*.md'))
print(json.dumps({'cpu': cpu, 'words': words, 'blocks': blocks}))
"""


def main() -> int:
    if not DATA.is_dir():
        print(f"no LoCoMo data at {DATA}", file=sys.stderr)
        return 2
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(RUNS):
            done = subprocess.run([sys.executable, "-c", SCRIPT, os.path.join(tmp, f"s{n}"), str(DATA),
                                   str(Path(__file__).resolve().parent), str(WORDS)],
                                  capture_output=True, text=True, check=True)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"run {n + 1}: {runs[-1]['words']} words, finish {runs[-1]['cpu']:.2f} s CPU, "
                  f"{runs[-1]['blocks']} blocks", flush=True)
    cpus = [r["cpu"] for r in runs]
    load = round(os.getloadavg()[0], 1)
    print(f"median {statistics.median(cpus):.2f} s CPU (target <= 20 s); load average {load}")
    print(json.dumps({"runs": RUNS, "words": runs[0]["words"], "finish_cpu_s_median": round(statistics.median(cpus), 2),
                      "finish_cpu_s_max": round(max(cpus), 2), "blocks": runs[0]["blocks"], "load": load}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
