"""Sleep renames a topic whose name says nothing (issue 24, deliverable 5: topics "named by
a noun phrase of what they are about, never a single stray word"): `repo.md`, the
project topic of a session whose folder is a generic `repo`, becomes the subject its
blocks are about. Every block keeps its id and evidence, links follow, the old name
stays findable (a read of it, search), a topic the writer makes under the old name
again joins the renamed one, and a name a person chose or a topic a person edited is
never renamed."""

from __future__ import annotations

from scriptorium.core.agents.memory_tools import MemoryTools
from scriptorium.core.memory import Workspace, parse_topic, save_topic
from scriptorium.core.search import SearchIndex
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep
from scriptorium.core.writer.renaming import plan_renames, weak_name

from .conftest import chain, topic_blocks, tree

SHOP = {"s1": "The storefront renders product pages with Phoenix LiveView.",
        "t1": "Noted: the storefront's product pages are LiveView templates under `lib/shop_web/live`."}
BILLING = {"u1": "The billing worker retries a failed Stripe charge three times, an hour apart.",
           "a1": "Done: the billing worker in `lib/billing/worker.ex` retries a failed charge three times.",
           "u2": "The billing worker writes each invoice to the invoices table before it emails the customer.",
           "a2": "Noted: the billing worker keeps invoices in the `invoices` table.",
           "u3": "The billing worker runs nightly at 02:00 from `deploy/crontab`.",
           "a3": "The billing worker's cron entry is in `deploy/crontab`."}
LATER = {"v1": "The billing worker skips a customer whose card has expired, and logs the customer id.",
         "b1": "Done: the billing worker skips customers with an expired card."}


def _session(store: SessionStore, cwd: str, turns: dict[str, str], day: int = 0) -> str:
    sid = store.create_session("work", cwd=cwd)
    chain(store, sid, list(turns), text=turns.__getitem__, start=1.7e9 + 86400 * day)
    assert finish(store, sid).outcome == "ok"
    return sid


def _written(tmp_path):
    """A first session (its finish runs the day's sleep), then one in a folder called
    `repo`: its notes are in `repo.md`, which no sleep has seen yet."""
    store = SessionStore(tmp_path / "state")
    _session(store, "/home/u/shop", SHOP)
    _session(store, "/home/u/repo", BILLING, day=1)
    return store


def test_a_topic_named_after_a_folder_that_says_nothing_takes_its_subjects_name(tmp_path):
    store = _written(tmp_path)
    state = store.state_dir
    topics = state / "memory" / "topics"
    assert (topics / "repo.md").is_file()
    ws = Workspace.open(state)
    repo = parse_topic("repo.md", (topics / "repo.md").read_text())
    (first,) = [b for b in repo.blocks][:1]
    # a person's topic that links to a block of it
    assert save_topic(ws, "links.md", "# Links\n\nSee [the retries](repo.md#^" + first.block_id + ").[^e1]\n\n"
                      f"[^e1]: Time: `2023-11-15`; Sources: {_source(repo, first)}\n", summary="by hand").ok
    before = topic_blocks(state)
    sources = {p: d for p, d in tree(state / "memory").items() if p.startswith("sources/")}
    result = sleep(state)
    assert (result.outcome, result.code) == ("ok", "REORGANIZED"), result.message
    assert "renamed repo.md to billing-worker.md" in result.message
    assert [(g.kind, g.source, g.target) for g in result.gathered] == [("rename", "repo.md", "billing-worker.md")]
    after = topic_blocks(state)
    assert set(after) == set(before)  # every block kept, by its id, none retired
    assert {bid: text for bid, (t, text) in after.items() if t != "links.md"} \
        == {bid: text for bid, (t, text) in before.items() if t != "links.md"}
    assert {bid for bid, (t, _) in after.items() if t == "billing-worker.md"} == set(repo.id_set)
    assert not (topics / "repo.md").exists()
    text = (topics / "billing-worker.md").read_text()
    assert text.startswith("# Billing worker\n\n<!-- formerly: repo.md -->\n")
    assert f"(billing-worker.md#^{first.block_id})" in (topics / "links.md").read_text()  # the link followed
    assert {p: d for p, d in tree(state / "memory").items() if p.startswith("sources/")} == sources
    assert Workspace.open(state).audit_log()[0].get("retired") in (None, [])
    # the old name is no dead end: a read of it, and search by it
    assert Workspace.open(state).renamed_to("repo.md") == "billing-worker.md"
    assert MemoryTools(state).topic_text("repo.md") == text
    hits = SearchIndex(state / "memory").search("repo", top_k=5)
    assert hits and hits[0].path == "topics/billing-worker.md", hits
    assert sleep(state).code == "NO_CHANGE"


def test_the_writer_filing_under_the_old_name_again_joins_the_renamed_topic(tmp_path):
    store = _written(tmp_path)
    state = store.state_dir
    assert sleep(state).code == "REORGANIZED"
    _session(store, "/home/u/repo", LATER, day=2)
    topics = state / "memory" / "topics"
    assert (topics / "repo.md").is_file()  # a session in that folder files under its name
    before = topic_blocks(state)
    result = sleep(state)
    assert "merged repo.md into billing-worker.md" in result.message, result.message
    after = topic_blocks(state)
    assert set(after) == set(before)
    assert {t for t, _ in after.values()} == {"shop.md", "billing-worker.md"} | {t for t, _ in after.values()
                                                                                 if t == "core.md"}
    assert (topics / "billing-worker.md").read_text().count("<!-- formerly:") == 1


def test_a_name_a_person_chose_or_a_topic_a_person_edited_keeps_its_name(tmp_path):
    store = _written(tmp_path)
    state = store.state_dir
    ws = Workspace.open(state)
    topics = state / "memory" / "topics"
    text = (topics / "repo.md").read_text()
    assert save_topic(ws, "repo.md", text.replace("three times", "3 times", 1), summary="by hand").ok
    doc = parse_topic("repo.md", text)
    assert save_topic(ws, "notes.md", "# Notes\n\nThe billing worker is Ada's.[^e1]\n\n"
                      f"[^e1]: Time: `2023-11-15`; Sources: {_source(doc, doc.blocks[0])}\n", summary="by hand").ok
    result = sleep(state)
    assert result.outcome == "ok", result.message
    assert "renamed" not in result.message
    assert (topics / "repo.md").is_file() and (topics / "notes.md").is_file()
    assert sorted(p.relative_to(topics).as_posix() for p in topics.rglob("*.md")) == \
        sorted({"repo.md", "notes.md", "shop.md"} | ({"core.md"} if (topics / "core.md").exists() else set()))


def test_weak_names_and_the_names_they_get():
    def topic(*claims: str) -> str:
        lines = ["# T", ""]
        for n, claim in enumerate(claims, 1):
            lines += [f"{claim}[^e-{n:010x}] ^{n:08x}", "",
                      f"[^e-{n:010x}]: Time: `2026-01-02`; Sources: [s](../sources/openprogram/_v2/s.md#n{n})", ""]
        return "\n".join(lines)

    worker = ("The billing worker retries a failed charge three times.",
              "The billing worker writes each invoice before it emails the customer.",
              "The billing worker runs nightly at 02:00.")
    for name in ("since.md", "notes.md", "misc.md", "tmp.md", "00d7ff.md", "shop/file.md", "shop/since.md"):
        assert weak_name(name, parse_topic(name, topic(*worker))) is not None, name
    for name in ("billing.md", "shop/billing-worker.md", "people/ada.md"):
        assert weak_name(name, parse_topic(name, topic(*worker))) is None, name
    # a component's name that its blocks do not say: the name of a topic merged into
    assert weak_name("shop/search.md", parse_topic("shop/search.md", topic(*worker))) is not None
    texts = {"since.md": topic(*worker), "shop/since.md": topic(*worker),
             "people/since.md": topic(*worker), "core.md": topic(*worker), "misc.md": topic(*worker[:1]),
             "tmp.md": topic("The deploy uses fly.io.", "Ada likes tea.", "The office is in Leeds.")}
    renames = {(r.source, r.target) for r in plan_renames(texts)}
    assert ("since.md", "billing-worker.md") in renames and ("shop/since.md", "shop/billing-worker.md") in renames
    assert not any(s in ("people/since.md", "core.md", "tmp.md") for s, _ in renames)  # tmp.md: no one subject
    assert "misc.md" not in {s for s, _ in renames}  # its subject's name is taken by since.md's
    assert {(r.source, r.target) for r in plan_renames(texts, kept={"since.md"})} >= {("misc.md",
                                                                                      "billing-worker.md")}


def _source(doc, block) -> str:
    """The Sources part of the definition a block cites."""
    line = doc.lines[doc.definitions[block.citations[0].id].index]
    return line.split("Sources: ", 1)[1]
