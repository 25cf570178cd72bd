"""A team on one memory (issue 26): 20 machines, one remote, real transports, concurrent syncs.

The bench starts its own servers on 127.0.0.1 (the system's, from Debian's packages:
`apt-get install openssh-server lighttpd`): an sshd with a key of its own, and lighttpd
serving the remote through `git http-backend` (git's smart HTTP). Half the machines (state
directories) reach the remote over ssh, half over HTTP. A seed machine starts the memory
(SEED blocks) and every machine joins. Then each work round every machine writes a session
through the writer (offline model; each machine's turns carry a token of its own, which
its redaction must keep from ever leaving it), some hand-edit one of their blocks, and two
machines edit the same block differently (the only place a conflict may appear); then all
sync, in random order, WORKERS at a time, each `scriptorium sync` its own process. After the
work rounds the machines keep syncing (random order, concurrently) until every one reports
UP_TO_DATE with the same topics, at most MAX_ROUNDS rounds.

Reported: rounds to converge; the wall time of each sync against the memory's size then
(blocks), median per size band and the ratio of the largest band to the smallest;
conflicts (and how many came from anything but a block edited on two machines: 0);
blocks lost (an id some machine held that is not on every machine at the end: 0); ids
changed (an id that does not resolve with `get` on some machine: 0); tokens found outside
their machine (files, sessions, every git object of every machine and of the remote: 0).

Usage: python bench/sync_team.py [--machines 20] [--rounds 4] [--seed 400] [--workers 4] [--max-rounds 10]
Last line: {"machines":…,"transports":{…},"work_rounds":…,"rounds_to_converge":…,"syncs":…,
            "sync_wall_s_by_blocks":{…},"ratio_largest_to_smallest":…,"conflicts":…,"spurious_conflicts":…,
            "blocks_lost":…,"ids_changed":…,"secrets_elsewhere":…,"failed_syncs":{…}}
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.memory.retired import load_retired
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import write

SERVICES = ["billing", "search", "auth", "payments", "ingest", "mailer", "reports", "gateway"]
THINGS = ["a canary", "blue-green deploys", "a weekly cache flush", "feature flags", "two replicas",
          "a read-only window", "rate limits", "nightly backups"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def need(tool: str) -> str:
    path = shutil.which(tool) or (f"/usr/sbin/{tool}" if Path(f"/usr/sbin/{tool}").exists() else None)
    if path is None:
        sys.exit(f"{tool} is missing: apt-get install openssh-server lighttpd")
    return path


def start_sshd(root: Path) -> tuple[subprocess.Popen[bytes], int, dict[str, str]]:
    """An sshd of our own on a free port: its own host key, our client key the only one let in."""
    d = root / "ssh"
    d.mkdir()
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
    (d / "authorized_keys").write_text((d / "client.pub").read_text())
    port = free_port()
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
        f"PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        f"PermitRootLogin prohibit-password\nPidFile {d / 'sshd.pid'}\nMaxStartups 64:30:128\nMaxSessions 64\n")
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd wants its privilege-separation directory
    proc = subprocess.Popen([need("sshd"), "-D", "-e", "-f", str(d / "sshd_config")], stdout=subprocess.DEVNULL,
                            stderr=open(d / "sshd.log", "wb"))
    wait_port(port)
    env = {"GIT_SSH_COMMAND": f"ssh -i {d / 'client'} -p {port} -o BatchMode=yes -o StrictHostKeyChecking=no "
                              f"-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=15"}
    return proc, port, env


def start_lighttpd(root: Path, repos: Path) -> tuple[subprocess.Popen[bytes], int]:
    """lighttpd serving `repos` through git http-backend (CGI), pushes allowed."""
    d = root / "http"
    d.mkdir()
    port = free_port()
    backend = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    (d / "lighttpd.conf").write_text(f'''
server.document-root = "{d}"
server.port = {port}
server.bind = "127.0.0.1"
server.errorlog = "{d / 'error.log'}"
server.max-connections = 256
server.modules = ("mod_alias", "mod_cgi", "mod_setenv")
alias.url = ("/git" => "{backend}/git-http-backend")
$HTTP["url"] =~ "^/git" {{
  cgi.assign = ("" => "")
  setenv.add-environment = ("GIT_PROJECT_ROOT" => "{repos}", "GIT_HTTP_EXPORT_ALL" => "1")
}}
''')
    proc = subprocess.Popen([need("lighttpd"), "-D", "-f", str(d / "lighttpd.conf")], stdout=subprocess.DEVNULL,
                            stderr=open(d / "lighttpd.log", "wb"))
    wait_port(port)
    return proc, port


def cli(state: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True, env=env, timeout=600)


def all_ids(state: Path) -> set[str]:
    return set(block_texts(state))


def block_texts(state: Path) -> dict[str, str]:
    ws = Workspace(state)
    return {p.block_id: p.text for rel in ws.topic_paths() if (doc := ws.topic(rel)) for p in doc.paragraphs
            if p.block_id}


def retired_ids(state: Path) -> set[str]:
    """Blocks this machine retired on purpose (sleep merging duplicates, a person)."""
    return set(load_retired(Workspace(state).runtime))


WORDS = [a + b for a in ("ka", "lo", "mi", "ne", "su", "ta", "vi", "ro", "pe", "du") for b in
         ("ran", "mel", "tos", "vik", "dar", "lun", "pex", "sor", "gim", "fal")]


def seed_text(t: int, per: int) -> str:
    rng = random.Random(t)
    steps = [f"Step {t}-{k}: the {' '.join(rng.sample(WORDS, 5))} check runs on {SERVICES[k % 8]}." for k in range(per)]
    return f"# Runbook {t}\n\n" + "\n\n".join(steps) + "\n"


def token_of(i: int) -> str:
    """A GitHub-shaped token unique to machine i (the built-in rules redact it)."""
    body = f"{i:02d}team{random.Random(i).getrandbits(128):032x}"
    return "ghp_" + body[:36]


def write_session(state: Path, i: int, rnd: int) -> None:
    rng = random.Random(i * 1000 + rnd)
    service, thing = rng.choice(SERVICES), rng.choice(THINGS)
    store = SessionStore(state)
    sid = store.create_session(f"m{i} round {rnd}")
    turns = [f"For the {service} service machine {i} decided in round {rnd} to use {thing}; "
             f"the deploy token is {token_of(i)}.",
             f"Noted: {service} uses {thing} from round {rnd} on (machine {i}), token {token_of(i)} stays private."]
    parent = "ROOT"
    for k, text in enumerate(turns):
        store.append(sid, ("user", "assistant")[k % 2], text, predecessor=parent, node_id=f"t{k}")
        parent = f"t{k}"
    write(store, sid, force=True)


def hand_edit(state: Path, block: str | None, text: str) -> bool:
    """Replace one block's text by hand (through the transaction, as the TUI's editor does)."""
    ws = Workspace.open(state)
    for rel in ws.topic_paths():
        doc = ws.topic(rel)
        if doc is None:
            continue
        for p in doc.paragraphs:
            if p.block_id and (block is None or p.block_id == block) and "Sync conflict" not in p.text:
                body = doc.text
                new = body[: p.offset] + f"{text} ^{p.block_id}" + body[p.offset + len(p.text):]
                if new != body and save_topic(ws, rel, new).outcome == "installed":
                    return True
                return False
    return False


def memory_bytes(state: Path) -> bytes:
    """Every file of a machine (sessions and runtime included) and every object of its
    memory repository, as one blob to search."""
    chunks = []
    for path in state.rglob("*"):
        if path.is_file() and not path.is_symlink() and "objects" not in path.parts:
            chunks.append(path.read_bytes())
    chunks.append(objects(state / "memory"))
    return b"\n".join(chunks)


def objects(git_dir: Path) -> bytes:
    return subprocess.run(["git", "-C", str(git_dir), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True).stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machines", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=4, help="work rounds (write, edit, sync)")
    ap.add_argument("--seed", type=int, default=400, help="blocks the first machine starts the memory with")
    ap.add_argument("--workers", type=int, default=4, help="syncs running at once")
    ap.add_argument("--max-rounds", type=int, default=10, help="bound on the convergence rounds")
    ap.add_argument("--random", type=int, default=26)
    args = ap.parse_args(argv)
    rng = random.Random(args.random)
    tmp = Path(tempfile.mkdtemp(prefix="scriptorium-team-"))
    servers: list[subprocess.Popen[bytes]] = []
    try:
        repos = tmp / "repos"
        repos.mkdir()
        bare = repos / "team.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
        subprocess.run(["git", "-C", str(bare), "config", "http.receivepack", "true"], check=True)
        sshd, ssh_port, ssh_env = start_sshd(tmp)
        web, http_port = start_lighttpd(tmp, repos)
        servers += [sshd, web]
        home = tmp / "home"  # an empty HOME: no git identity, no ~/.ssh
        home.mkdir()
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        base_env.update(HOME=str(home), SCRIPTORIUM_NO_TOKENIZER_CACHE="1")
        env = {**base_env, **ssh_env}
        urls = {"ssh": f"ssh://root@127.0.0.1:{ssh_port}{bare}", "http": f"http://127.0.0.1:{http_port}/git/team.git"}
        machines = [tmp / f"m{i:02d}" for i in range(args.machines)]
        transport = {m: ("ssh" if i % 2 == 0 else "http") for i, m in enumerate(machines)}

        seed = machines[0]
        ws = Workspace.open(seed)
        per = 25
        for t in range(max(1, args.seed // per)):
            save_topic(ws, f"runbook/r{t:03d}.md", seed_text(t, per))
        for m in machines:
            Workspace.open(m)
            assert cli(m, "remote", "add", "origin", urls[transport[m]], env=env).returncode == 0

        held: set[str] = set()
        timings: list[tuple[int, float]] = []
        failed: Counter[str] = Counter()
        conflicts: list[str] = []
        doubled: set[str] = set()
        edited_by: dict[str, set[str]] = {}  # block id -> machines that changed or retired it (writer, sleep, hand)
        outcomes: Counter[str] = Counter()

        def one_sync(m: Path) -> dict:
            size = len(all_ids(m))
            started = time.perf_counter()
            done = cli(m, "sync", "--json", env=env)
            took = time.perf_counter() - started
            try:
                doc = json.loads(done.stdout)
            except ValueError:
                doc = {"outcome": "crash", "code": "CRASH", "message": done.stderr[-300:]}
            doc["_size"], doc["_wall"], doc["_machine"] = size, took, m.name
            return doc

        def sync_round(order: list[Path]) -> list[dict]:
            with ThreadPoolExecutor(max_workers=args.workers) as pool:
                results = list(pool.map(one_sync, order))
            for r in results:
                outcomes[r["code"]] += 1
                if r["outcome"] != "ok":
                    failed[r["code"]] += 1
                    print(f"  {r['_machine']}: {r['code']} {r.get('message', '')[:160]}")
                else:
                    timings.append((r["_size"], r["_wall"]))
                conflicts.extend(c["block_id"] for c in r.get("conflicts", []))
            for m in machines:
                held.update(all_ids(m))
            return results

        print(f"{args.machines} machines, {sum(1 for m in machines if transport[m] == 'ssh')} over ssh "
              f"(sshd on :{ssh_port}), {sum(1 for m in machines if transport[m] == 'http')} over smart HTTP "
              f"(lighttpd on :{http_port}); seed memory {len(all_ids(seed))} blocks")
        order = [seed] + [m for m in machines if m != seed]
        sync_round(order[:1])
        sync_round(order[1:])  # everyone joins
        for rnd in range(1, args.rounds + 1):
            w0 = time.perf_counter()
            before = {m: block_texts(m) for m in machines}
            for i, m in enumerate(machines):
                write_session(m, i, rnd)
                if rng.random() < 0.3:
                    hand_edit(m, None, f"Machine {i} checked this step by hand in round {rnd}.")
            shared = sorted(all_ids(machines[0]) & all_ids(machines[-1]))
            if shared:
                bid = rng.choice(shared)
                x, y = rng.sample(machines, 2)
                if hand_edit(x, bid, f"{x.name} says step {bid} moved to Monday.") and \
                        hand_edit(y, bid, f"{y.name} says step {bid} moved to Tuesday."):
                    doubled.add(bid)
            for m in machines:
                after = block_texts(m)
                held.update(after)
                for bid, text in before[m].items():
                    if after.get(bid) != text:
                        edited_by.setdefault(bid, set()).add(m.name)
            work_s = time.perf_counter() - w0
            s0 = time.perf_counter()
            sync_round(rng.sample(machines, len(machines)))
            print(f"round {rnd}: writes and edits {work_s:.1f} s, syncs {time.perf_counter() - s0:.1f} s, "
                  f"memory {len(all_ids(machines[0]))} blocks on m00")

        rounds = 0
        converged = False
        while rounds < args.max_rounds and not converged:
            rounds += 1
            results = sync_round(rng.sample(machines, len(machines)))
            views = {json.dumps({rel: Workspace(m).read_topic(rel) for rel in Workspace(m).topic_paths()},
                                sort_keys=True) for m in machines}
            converged = all(r["code"] == "UP_TO_DATE" for r in results) and len(views) == 1
            print(f"convergence round {rounds}: {Counter(r['code'] for r in results)}, distinct memories {len(views)}")

        final = {m: all_ids(m) for m in machines}
        retired = set().union(*(retired_ids(m) for m in machines))
        lost = set().union(*(held - retired - ids for ids in final.values()))
        sample = sorted(held - retired)
        unresolved = 0
        for m in rng.sample(machines, min(4, len(machines))):  # `get` through the CLI on a few machines
            for bid in rng.sample(sample, min(40, len(sample))):
                got = cli(m, "get", bid, env=env)
                unresolved += got.returncode != 0 or f"^{bid}" not in got.stdout
        leaks = 0
        remote_objects = objects(bare)
        contents = {m: memory_bytes(m) for m in machines}
        for i, m in enumerate(machines):
            token = token_of(i).encode()
            leaks += token in remote_objects
            leaks += sum(token in data for other, data in contents.items() if other != m)
        bands: dict[str, list[float]] = {}
        if timings:
            low, high = min(s for s, _ in timings), max(s for s, _ in timings)
            width = max(1, (high - low + 1) // 4 + 1)
            for size, wall in timings:
                start = low + (size - low) // width * width
                bands.setdefault(f"{start}-{start + width - 1}", []).append(wall)
        medians = {band: round(statistics.median(walls), 3) for band, walls in sorted(bands.items(),
                                                                                      key=lambda kv: int(kv[0].split('-')[0]))}
        ratio = round(list(medians.values())[-1] / list(medians.values())[0], 2) if len(medians) > 1 else 1.0
        spurious = len([c for c in conflicts if len(edited_by.get(c, ())) < 2])
        print(f"{'memory size (blocks)':>22} {'syncs':>6} {'median wall s':>14}")
        for band, walls in sorted(bands.items(), key=lambda kv: int(kv[0].split('-')[0])):
            print(f"{band:>22} {len(walls):>6} {statistics.median(walls):>14.3f}")
        print(f"outcomes: {dict(outcomes)}")
        print(f"rounds to converge: {rounds if converged else 'not converged'} (bound {args.max_rounds}); "
              f"conflicts {len(conflicts)} ({sum(len(v) > 1 for v in edited_by.values())} blocks edited on two "
              f"machines, {len(doubled)} of them by the bench's double edits; other conflicts {spurious}); "
              f"blocks retired on purpose {len(retired & held)}; blocks lost {len(lost)}; ids changed {unresolved}; tokens outside their machine {leaks}")
        print(json.dumps({
            "machines": args.machines, "transports": dict(Counter(transport.values())), "work_rounds": args.rounds,
            "rounds_to_converge": rounds if converged else None, "syncs": sum(outcomes.values()),
            "sync_wall_s_by_blocks": medians, "ratio_largest_to_smallest": ratio, "conflicts": len(conflicts),
            "blocks_edited_on_two_machines": sum(len(v) > 1 for v in edited_by.values()),
            "double_edited_blocks": len(doubled), "spurious_conflicts": spurious, "retired_on_purpose": len(retired & held), "blocks_lost": len(lost),
            "ids_changed": unresolved, "secrets_elsewhere": leaks, "failed_syncs": dict(failed),
            "blocks_final": len(final[machines[0]]),
        }))
        return 0 if converged and not lost and not unresolved and not leaks and not spurious else 1
    finally:
        for proc in servers:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
