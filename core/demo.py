"""A ready-made state directory to look around in: `scriptorium demo`.

Realistic sessions in English and Chinese with every shape the engine handles —
forks from retries and re-asks, a rewind, a compaction summary, a sub-agent
spawn, tool calls, a runtime turn — some branches written, others pending, and
one turn marked by another machine's workspace. Everything is built offline
through the public session API, deterministically from `now`.

What is written is written for real, in one place, `write_demo_batches`: chosen
branches and whole sessions go through the write pipeline with the offline model
(never a configured one: the demo makes no network call), so the marks, the topics
and the archived evidence agree. A small canonical core is then saved the way a
person would, citing evidence those writes archived.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .sessions.marker import MARK_KEY, pending_branches, workspace_id
from .paths import StatePaths, default_state_dir
from .sessions.store import SessionStore

FOREIGN_WORKSPACE = "w-1c0ffee2"  # "a session copied from another machine"
DAY = 86400.0


def default_demo_dir() -> Path:
    """`<platform user data dir>/demo`: beside, never inside, a real state's sessions."""
    return default_state_dir() / "demo"


@dataclass(frozen=True)
class Fact:
    """A line of the demo's canonical core, citing turns the demo writes (so their evidence is archived)."""

    text: str
    cites: list[str]  # node ids


@dataclass(frozen=True)
class DemoSession:
    id: str
    write: list[str] = field(default_factory=list)  # tips of branches written now (forced, as the TUI's "w")
    finish: bool = False  # the session ended: its head written whole, short side branches left pending
    foreign: list[str] = field(default_factory=list)  # turns then marked by FOREIGN_WORKSPACE
    facts: list[Fact] = field(default_factory=list)


@dataclass
class _Script:
    """Appends one session's turns with deterministic ids and times."""

    store: SessionStore
    sid: str
    start: float
    clock: float = 0.0
    ids: dict[str, str] = field(default_factory=dict)

    def _time(self, minutes: float) -> float:
        self.clock += minutes * 60
        return self.start + self.clock

    def _id(self, key: str) -> str:
        return hashlib.sha1(f"{self.sid}/{key}".encode()).hexdigest()[:12]

    def say(self, key: str, role: str, text: Any, *, after: str | None = None, minutes: float = 2,
            **kwargs: Any) -> str:
        """Append turn `key`; `after` names the predecessor's key (default: the head)."""
        extra: dict[str, Any] = {}
        if after is not None:
            extra["predecessor"] = self.ids[after]
        node = self.store.append(self.sid, role, text, node_id=self._id(key), created_at=self._time(minutes),
                                 **extra, **kwargs)
        self.ids[key] = node.id
        return node.id

    def tool(self, key: str, name: str, arguments: dict[str, Any], result: str, **kwargs: Any) -> str:
        return self.say(key, "tool", result, name=name, input=arguments, minutes=0.5, **kwargs)

    def spawn(self, key: str, prompt: str, *, caller: str) -> str:
        node = self.store.spawn_branch(self.sid, prompt, caller=self.ids[caller], node_id=self._id(key),
                                       created_at=self._time(1))
        self.ids[key] = node.id
        return node.id

    def summary(self, key: str, covers: Sequence[str], text: str) -> str:
        node = self.store.append_summary(self.sid, [self.ids[k] for k in covers], text, node_id=f"summary_{self._id(key)[:10]}")
        self.ids[key] = node.id
        return node.id

    def rewind(self, key: str) -> None:
        self.store.rewind(self.sid, self.ids[key])

    def keys(self, *keys: str) -> list[str]:
        return [self.ids[k] for k in keys]


def _build_cache(s: _Script) -> DemoSession:
    """Retry fork and re-ask fork; the original line written, the retry and the re-ask (head) pending."""
    s.say("m1", "user", "How should we size the build cache for the CI runners? We have 12 runners, each with a 500 GB disk, and builds are mostly Rust with some TypeScript.")
    s.say("m2", "assistant", "Start with 50 GB per runner for the shared cache and evict least-recently-used entries once it passes 80%. That leaves room for the workspace checkout and the Docker layer cache, which on your runners is the second largest consumer.")
    s.say("m3", "user", "What about the Rust target directories? They grow to about 30 GB per branch.")
    s.tool("t1", "shell", {"command": "du -sh /var/cache/ci/*"}, "48G\t/var/cache/ci/cargo-target\n12G\t/var/cache/ci/sccache\n6.1G\t/var/cache/ci/npm\n3.4G\t/var/cache/ci/docker")
    s.say("m4", "assistant", "Keep target directories out of the shared cache. They are large, branch-specific and cheap to rebuild from sccache hits; caching them whole is what filled the disks (48 GB of the 70 GB in use). Cache the sccache directory instead and let each job start with a clean target/.")
    s.say("m5", "user", "Can all runners share one sccache bucket?")
    s.say("m6", "assistant", "Yes: point every runner at one S3 bucket with SCCACHE_BUCKET and give each toolchain its own key prefix, so a compiler upgrade never serves stale objects.")
    s.say("m6b", "assistant", "They can, but keep the bucket in the runners' region — cross-region reads cost more than the compile time they save. Use one bucket per region and prefix keys by rustc version.", after="m5", minutes=1)
    s.say("m7", "user", "One bucket per region it is. What eviction policy on the bucket?")
    s.say("m8", "assistant", "A lifecycle rule that expires objects 14 days after their last access is enough; sccache rewrites hot objects, so they never age out while in use.")
    s.say("a1", "user", "Going back to target directories: should we cache them per branch, keyed by Cargo.lock, instead of dropping them?", after="m3", minutes=30)
    s.say("a2", "assistant", "Per-branch caches keyed by the Cargo.lock hash work for long-lived branches, but most of your branches live less than a day. Cache target/ only for main and release branches, and let feature branches rely on sccache.")
    s.say("a3", "user", "OK. Write that down as the policy: main and release keep target/, feature branches use sccache only.")
    s.say("a4", "assistant", "Policy recorded: target/ is cached for main and release/* only (key: Cargo.lock hash + rustc version); feature branches use the regional sccache bucket; the bucket expires objects 14 days after last access.")
    return DemoSession(s.sid, write=s.keys("m8"), facts=[
        Fact("CI runners share one sccache bucket per region, keys prefixed by rustc version; objects expire "
             "14 days after their last access.", s.keys("m6b", "m7", "m8"))])


def _checkout_latency(s: _Script) -> DemoSession:
    """Tool calls, a sub-agent spawn, a runtime follow-up and a compaction summary; nothing written yet."""
    s.say("u1", "user", "Checkout p95 went from 300 ms to 1.2 s after Tuesday's deploy. Where do we start?")
    s.say("r1", "assistant", "Start from the traces of the slow requests and find which span grew.")
    s.tool("t1", "query_traces", {"service": "checkout", "window": "24h", "percentile": 95}, "p95 1184 ms; spans: db.query 870 ms (was 120 ms), render 140 ms, payment.authorize 95 ms")
    s.say("r2", "assistant", "The database span went from 120 ms to 870 ms; everything else is flat. Tuesday's deploy shipped 14 commits — worth bisecting them against the staging database.")
    s.say("u2", "user", "Spin up an agent to bisect the deploy while we keep looking at the query plans.")
    s.say("r3", "assistant", "Starting a sub-agent to bisect the 14 commits of Tuesday's deploy against staging.")
    s.spawn("sa1", "Bisect the 14 commits of Tuesday's checkout deploy on staging and report the first commit whose p95 exceeds 600 ms.", caller="r3")
    s.say("sa2", "assistant", "Bisecting: 4 steps for 14 commits.", after="sa1", minutes=1)
    s.tool("sa3", "git_bisect", {"good": "v2024.06.3", "bad": "v2024.06.4", "test": "load-test --p95-max 600"}, "a91f3c2 is the first bad commit\n\n    cart: load line items lazily", after="sa2")
    s.say("sa4", "assistant", "The first slow commit is a91f3c2 (\"cart: load line items lazily\"): it turns one joined query into one query per line item — an N+1 pattern.", after="sa3")
    s.say("f1", "user", "[sub-agent finished] bisect: first bad commit a91f3c2 (N+1 query on cart line items)", after="r3", minutes=6,
          metadata={"source": "job_followup", "display": "runtime"})
    s.say("f2", "assistant", "The sub-agent found it: a91f3c2 loads cart line items one query at a time.", metadata={"source": "job_followup"})
    s.say("u3", "user", "Great — revert it, and add a regression test that fails on more than 3 queries per checkout.")
    s.tool("t2", "shell", {"command": "git revert --no-edit a91f3c2"}, "[main 5d2e8b1] Revert \"cart: load line items lazily\"\n 2 files changed, 9 insertions(+), 31 deletions(-)")
    s.say("r4", "assistant", "Reverted in 5d2e8b1. The new test `test_checkout_query_budget` counts queries per checkout and fails above 3; it fails on a91f3c2 and passes on the revert.")
    s.summary("c1", ["u1", "r1", "t1", "r2"], "The user reported checkout p95 rising from 300 ms to 1.2 s after Tuesday's deploy; traces showed the db.query span growing from 120 ms to 870 ms; the deploy's 14 commits were to be bisected.")
    s.say("u4", "user", "Is the p95 back to normal in production?", minutes=40)
    s.say("r5", "assistant", "Yes — 290 ms over the last hour, slightly better than before the regression.")
    return DemoSession(s.sid)


def _deploy_window(s: _Script) -> DemoSession:
    """Chinese; written up to m6; of the last turns, one is marked by another machine's workspace."""
    s.say("m1", "user", "周五下午的部署窗口要不要取消？上个月两次周五发布都在周末出了问题。")
    s.say("m2", "assistant", "建议把常规发布窗口改到周二到周四的上午。周五只允许热修复，并且需要值班负责人批准。")
    s.say("m3", "user", "热修复的标准怎么定？")
    s.say("m4", "assistant", "满足任一条件即可算热修复：线上错误率超过 1%、支付或登录不可用、数据正在丢失。其余改动一律等到下周二。")
    s.say("m5", "user", "那就这么定了。值班负责人是谁来批准？")
    s.say("m6", "assistant", "由当周的值班负责人（on-call lead）批准，并在 #deploys 频道里留下记录，写明触发的是哪一条标准。")
    s.say("m7", "user", "把这个规则也同步给移动端团队，他们的发布节奏是两周一次。")
    s.say("m8", "assistant", "移动端按两周一次的节奏，发布日固定在周三；同样的热修复标准适用于应用商店的加急审核。")
    return DemoSession(s.sid, write=s.keys("m6"), foreign=s.keys("m7"), facts=[
        Fact("Releases go out Tuesday to Thursday mornings; on Fridays only hotfixes, approved by the week's "
             "on-call lead.", s.keys("m2", "m6"))])


def _rust_cleanup(s: _Script) -> DemoSession:
    """Chinese; a rewind, a re-ask after it, and a retried answer that became the head. Finished:
    the head's line is written, the one-turn retry beside it stays pending (a retry is not knowledge)."""
    s.say("m1", "user", "target 目录已经 80G 了，怎么清理比较安全？")
    s.say("m2", "assistant", "可以用 cargo-sweep：`cargo sweep --time 14` 会删除 14 天内没有用到的构建产物，不影响正在使用的增量编译缓存。")
    s.say("m3", "user", "写一个每周日凌晨跑的 cron。")
    s.say("m4", "assistant", "0 3 * * 0 cd ~/src && cargo sweep --recursive --time 14")
    s.rewind("m3")
    s.say("b1", "user", "不用 cron 了，改成在 CI 里每次构建结束后清理。", minutes=10)
    s.say("b2", "assistant", "在 CI 的 post-build 步骤里加上 `cargo sweep --installed`，只保留当前工具链的产物。")
    s.say("b2r", "assistant", "在 CI 的收尾步骤里运行 `cargo sweep --installed && cargo sweep --time 7`：先删掉旧工具链的产物，再删掉 7 天没用过的文件。这样缓存体积能稳定在 20G 左右。", after="b1", minutes=1)
    s.say("b3", "user", "好，就用第二个方案。")
    return DemoSession(s.sid, finish=True)


def _onboarding(s: _Script) -> DemoSession:
    """A short English session, finished: completely written."""
    s.say("m1", "user", "New engineers keep asking where the staging credentials live. Where should they look?")
    s.say("m2", "assistant", "In the team vault under `staging/`, readable by the `eng-staging` group; their manager adds them during the first week.")
    s.say("m3", "user", "Add that the VPN profile comes from IT, not from the vault.")
    s.say("m4", "assistant", "Noted: VPN profiles are issued by IT on the first day; only staging credentials come from the vault.")
    return DemoSession(s.sid, finish=True, facts=[
        Fact("Staging credentials are in the team vault under staging/ (group eng-staging); VPN profiles come "
             "from IT on the first day.", s.keys("m2", "m4"))])


# (session id, title, working directory, start of its first turn relative to `now`, script)
SESSIONS = (
    ("demo-build-cache", "Build cache design", "~/src/ci-runners", -2 * DAY, _build_cache),
    ("demo-checkout", "Checkout latency regression", "~/src/shop", -5 * 3600, _checkout_latency),
    ("demo-deploy-window", "周五部署窗口", "~/src/release-process", -3 * DAY, _deploy_window),
    ("demo-rust-cleanup", "Rust target 目录清理", "~/src/ci-runners", -DAY, _rust_cleanup),
    ("demo-onboarding", "Onboarding checklist", "~/src/handbook", -9 * DAY, _onboarding),
)


def write_demo_batches(store: SessionStore, sessions: Sequence[DemoSession]) -> None:
    """The one place where the demo's turns become written: through the write pipeline,
    with the offline model, exactly as `scriptorium write` and `finish` do it."""
    from .writer import OFFLINE_MODEL, finish, write  # the pipeline (and litellm) only when building

    for session in sessions:
        runs = [write(store, session.id, tip=tip, force=True, model=OFFLINE_MODEL) for tip in session.write]
        if session.finish:
            runs.append(finish(store, session.id, model=OFFLINE_MODEL))
        for result in runs:
            if result.outcome != "ok":
                raise RuntimeError(f"demo write of {session.id} failed: {result.code}: {result.message}")


def save_demo_core(store: SessionStore, sessions: Sequence[DemoSession]) -> None:
    """Save `topics/core.md` as a person would (an edit transaction), each fact citing
    the archived evidence of the turns it comes from."""
    from .memory import Workspace, save_topic
    from .memory.sources import iso_utc

    parts = ["# Core"]
    cited = [(session.id, fact) for session in sessions for fact in session.facts]
    for number, (sid, fact) in enumerate(cited, start=1):
        day = iso_utc(min(store.node(sid, nid).created_at for nid in fact.cites))[:10]
        sources = ", ".join(f"[{sid}](openprogram/{sid}/{nid})" for nid in fact.cites)
        parts.append(f"{fact.text}[^e{number}]\n\n[^e{number}]: Time: `{day}`; Sources: {sources}")
    result = save_topic(Workspace.open(store.state_dir), "core.md", "\n\n".join(parts) + "\n",
                        summary="demo: the stable facts every conversation needs")
    if not result.ok:
        raise RuntimeError(f"demo core rejected: {[d.message for d in result.diagnostics]}")


def _sources(store: SessionStore, sid: str, node_ids: Sequence[str], label: str) -> str:
    """A footnote definition citing archived turns, dated by the first of them."""
    from .memory.sources import iso_utc

    day = iso_utc(min(store.node(sid, nid).created_at for nid in node_ids))[:10]
    return f"[^{label}]: Time: `{day}`; Sources: " + ", ".join(f"[{sid}](openprogram/{sid}/{nid})" for nid in node_ids)


# A page of notes a person kept by hand: the same fact jotted twice on two days (sleep's
# preview merges the two blocks), and the purge time two machines will disagree about.
NOTES_TOPIC = "runbooks/ci-cache.md"
PURGE_LINE = "The nightly cache purge runs at 02:00 UTC, before the first builds of the day."  # cites m8


def save_demo_notes(store: SessionStore, sessions: Sequence[DemoSession]) -> None:
    """`runbooks/ci-cache.md`, saved as a person would, citing the build-cache session's evidence."""
    from .memory import Workspace, save_topic

    cites = next(f.cites for s in sessions for f in s.facts if s.id == "demo-build-cache")
    text = "\n\n".join([
        "# CI cache runbook",
        "Every CI runner shares one sccache bucket per region, with keys prefixed by the rustc version.[^n1]",
        "Each CI runner shares one sccache bucket per region; keys are prefixed by the rustc version.[^n2]",
        PURGE_LINE + "[^n3]",
        _sources(store, "demo-build-cache", cites[:1], "n1"),
        _sources(store, "demo-build-cache", cites[1:], "n2"),
        _sources(store, "demo-build-cache", cites[-1:], "n3"),
    ]) + "\n"
    result = save_topic(Workspace.open(store.state_dir), NOTES_TOPIC, text, summary="demo: a runbook kept by hand")
    if not result.ok:
        raise RuntimeError(f"demo notes rejected: {[d.message for d in result.diagnostics]}")


PROJECT_DIR = "demo-project"  # inside the demo state: a project with its trilogy (memory/PROJECT.md …)
PROJECT_ITEMS: list[dict[str, Any]] = [
    {"kind": "project", "section": "这是什么", "text": "The shop's checkout service: cart, payment and order APIs."},
    {"kind": "project", "section": "怎么跑和怎么测", "text": "`make dev` starts it; `make test` runs the suite, "
     "including `test_checkout_query_budget` (at most 3 queries per checkout)."},
    {"kind": "project", "section": "东西都在哪", "text": "cart/ line items · payment/ providers · orders/ the API"},
    {"kind": "project", "section": "State", "text": "p95 back to 290 ms after reverting a91f3c2."},
    {"kind": "project", "section": "坑", "text": "Loading cart line items lazily makes one query per item (N+1)."},
    {"kind": "decision", "choice": "revert the lazy line items", "chose": "revert a91f3c2 now",
     "over": "a fix forward under load", "because": "p95 was four times its budget", "date": -1},
    {"kind": "decision", "choice": "a query budget test", "chose": "fail above 3 queries per checkout",
     "over": "a timing test", "because": "query counts do not flake", "date": -1},
    {"kind": "session", "area": "checkout", "done": "bisected Tuesday's deploy to a91f3c2 (N+1 on line items)",
     "open": "none", "next": "watch p95 for a day", "date": -1},
    {"kind": "session", "area": "payment", "done": "retries on provider timeouts, tested against the sandbox",
     "open": "idempotency keys for refunds", "next": "refund keys", "date": -4},
]


def build_demo_project(state_dir: Path, now: float) -> Path:
    """A project directory with a filled trilogy, and the config pointing the Project memory screen at it."""
    from datetime import date, timedelta

    from .config import load_config, set_config_value
    from .trilogy import TrilogySettings, checkpoint, scaffold, trilogy_paths

    project = state_dir / PROJECT_DIR
    project.mkdir(parents=True, exist_ok=True)
    settings = TrilogySettings.from_config(load_config(state_dir))
    paths = trilogy_paths(project, settings)
    scaffold(paths, settings)
    today = date.fromtimestamp(now)
    items = [{**item, "date": (today + timedelta(days=item["date"])).isoformat()} if "date" in item else item
             for item in PROJECT_ITEMS]
    result = checkpoint(paths, items, max_entries=settings.sessionsMaxEntries, today=today)
    if result.refused:
        raise RuntimeError(f"demo trilogy refused: {[r.reason for r in result.refused]}")
    set_config_value(state_dir, "trilogy.project_dir", str(project))
    return project


REMOTE_DIR = "demo-remote.git"  # inside the demo state: a bare repository standing for another machine's sync


def build_demo_remote(state_dir: Path) -> None:
    """A bare remote both machines sync with, and one conflict waiting: another machine moved
    the purge to 03:00 while this one moved it to 01:30 (the Sync screen settles it)."""
    import subprocess
    import tempfile

    from .memory import Workspace, save_topic
    from .sync.remote import add_remote
    from .sync.run import sync

    bare = state_dir / REMOTE_DIR
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    add_remote(Workspace.open(state_dir).root, "origin", str(bare))
    sync(state_dir)
    with tempfile.TemporaryDirectory(prefix="scriptorium-demo-") as other_dir:
        other = Path(other_dir) / "laptop"
        add_remote(Workspace.open(other).root, "origin", str(bare))
        sync(other)
        for state, time_of_day in ((other, "03:00"), (state_dir, "01:30")):
            ws = Workspace.open(state)
            save_topic(ws, NOTES_TOPIC, (ws.read_topic(NOTES_TOPIC) or "").replace("02:00", time_of_day),
                       summary=f"demo: the purge moved to {time_of_day}")
        sync(other)
    result = sync(state_dir)
    if len(result.conflicts) != 1:
        raise RuntimeError(f"demo remote: expected one conflict, got {result.code}: {result.message}")


def build_demo(state_dir: Path, now: float | None = None) -> list[str]:
    """Create the demo sessions in `state_dir` (which must hold no sessions); their ids."""
    now = time.time() if now is None else now
    store = SessionStore(state_dir)
    if store.session_ids():
        raise ValueError(f"{state_dir} already holds sessions")
    sessions = []
    for sid, title, cwd, start, script in SESSIONS:
        store.create_session(title=title, session_id=sid, cwd=cwd)  # a coding agent's session knows where it ran
        with store.batch(sid, message="demo: build"):
            sessions.append(script(_Script(store, sid, now + start)))
    write_demo_batches(store, sessions)
    save_demo_core(store, sessions)
    save_demo_notes(store, sessions)
    for session in sessions:
        if session.foreign:
            store.merge_node_metadata_batch(session.id, {nid: {MARK_KEY: FOREIGN_WORKSPACE} for nid in session.foreign},
                                            message="demo: a mark made on another machine")
    build_demo_project(Path(state_dir), now)
    build_demo_remote(Path(state_dir))
    StatePaths(Path(state_dir)).demo_mark.write_text("built by `scriptorium demo`: install refuses to wire agents here\n",
                                               encoding="utf-8")
    return [session.id for session in sessions]


def ensure_demo(state_dir: Path, now: float | None = None, announce: Callable[[], None] | None = None) -> bool:
    """Build the demo unless `state_dir` already holds sessions; True when it was built now.
    `announce` is called first when a build is about to start (it takes a few seconds)."""
    if SessionStore(state_dir).session_ids():
        return False
    if announce is not None:
        announce()
    build_demo(state_dir, now)
    return True


def branch_summary(state_dir: Path) -> list[str]:
    """Readable lines: every session, and every live branch with its pending turns and tokens."""
    store = SessionStore(state_dir)
    wid = workspace_id(state_dir)
    summaries, problems = store.list_sessions()
    lines = [f"Demo state: {state_dir}  (workspace {wid})"]
    for summary in sorted(summaries, key=lambda s: s.id):
        branches = pending_branches(store, summary.id, wid)
        lines.append(f"{summary.title} [{summary.id}] · {len(branches)} branch{'es' if len(branches) != 1 else ''}")
        for branch in branches:
            head = "head" if branch.is_head else "    "
            lines.append(f"  {branch.tip}  {head}  {len(branch.turns):>2} pending turns  {branch.tokens:>5} tokens")
    lines += [f"unreadable: {p.id}: {p.message}" for p in problems]
    return lines
