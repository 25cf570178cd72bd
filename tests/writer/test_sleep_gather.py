"""Sleep gathers the topics that are about one subject (issue 24, deliverable 5): one
name said two ways, a name and the name it begins, a small topic whose blocks read like
another. Every block keeps its id and its evidence, links to a moved block are
repointed, a preview shows the merge, and topics about different subjects stay apart."""

from __future__ import annotations

from scriptorium.core.memory import Workspace, parse_topic, save_topic
from scriptorium.core.writer import finish, sleep
from scriptorium.core.writer.gather import plan_merges
from scriptorium.core.writer.reorganize import install_preview

from .conftest import chain, topic_blocks, tree

# -- the rules, on topic texts -----------------------------------------------------------------

_N = iter(range(1, 10_000))


def _topic(title: str, *claims: str) -> str:
    """A topic of these claims, each a block with an id of its own."""
    lines = [f"# {title}", ""]
    for claim in claims:
        n = next(_N)
        lines += [f"{claim}[^e-{n:010x}] ^{n:08x}", "",
                  f"[^e-{n:010x}]: Time: `2026-01-02`; Sources: [s](../sources/openprogram/_v2/s.md#n{n})", ""]
    return "\n".join(lines)


def _pairs(texts: dict[str, str]) -> set[tuple[str, str]]:
    return {(m.source, m.target) for m in plan_merges(texts)}


BILLING = ("Invoices are generated nightly by the billing worker from Stripe charges.",
           "The billing worker retries a failed Stripe charge three times before it marks the invoice unpaid.",
           "Unpaid invoices are listed in the billing dashboard with their Stripe charge id.")
SEARCH = ("The search index is rebuilt from topic files whenever their content hash changes.",
          "Search ranks blocks with BM25 and fuses the score of the records they cite.",
          "The search index keeps one row per content hash in a memory-mapped vectors file.")
ABOUT_SEARCH = "The search index is rebuilt from topic files by a nightly job when a content hash changes."


def test_one_name_said_two_ways_is_one_topic():
    """Plural, separators, a possessive's "s": the same name, whatever the blocks say."""
    texts = {"app/theme.md": _topic("Theme", "Themes are JSON files.", "The dark theme is the default."),
             "app/themes.md": _topic("Themes", "Invalid themes are reported, never raised."),
             "app/agent-session.md": _topic("Agent session", "AgentSession owns the message queue."),
             "app/agentsession.md": _topic("Agentsession", "AgentSession saves after agent_end.", "It replays."),
             "people/john-s.md": _topic("John s", "John plays basketball on Tuesdays."),
             "people/john.md": _topic("John", "John works at the bank.", "John has two dogs.")}
    assert _pairs(texts) == {("app/themes.md", "app/theme.md"), ("app/agent-session.md", "app/agentsession.md"),
                             ("people/john-s.md", "people/john.md")}


def test_a_name_and_the_name_it_begins_merge_when_they_are_nearest():
    texts = {"people/john.md": _topic("John", "John started a new job at the bank in March.",
                                      "John adopted a second dog, a beagle called Max."),
             "people/john-smith.md": _topic("John smith", "John Smith works as a loan officer at the bank.",
                                            "John Smith walks his dogs Max and Bella every morning.",
                                            "John Smith plays basketball on Tuesdays."),
             "people/maria.md": _topic("Maria", "Maria volunteers at the homeless shelter on weekends.",
                                       "Maria is training for a half marathon in June.")}
    assert _pairs(texts) == {("people/john.md", "people/john-smith.md")}
    # a second "John …": which one is meant is not known, so neither merges
    texts["people/john-doe.md"] = _topic("John doe", "John Doe teaches chemistry at the high school.")
    assert _pairs(texts) == set()


def test_an_abbreviation_is_its_name():
    texts = {"svc/config.md": _topic("Config", "The config file is read from ~/.svc/config.toml at start."),
             "svc/configuration.md": _topic("Configuration", "Configuration keys are validated against a schema.",
                                            "Unknown configuration keys are reported with the config file's line."),
             "svc/tui.md": _topic("Tui", "The TUI redraws the terminal user interface at most 30 times a second."),
             "svc/terminal-user-interface.md": _topic("Terminal user interface",
                                                      "The terminal user interface is drawn with Textual.",
                                                      "Its screens are one folder each.")}
    assert _pairs(texts) >= {("svc/config.md", "svc/configuration.md"),
                             ("svc/tui.md", "svc/terminal-user-interface.md")}


def test_a_small_topic_whose_blocks_read_like_its_project_joins_it():
    texts = {"shop.md": _topic("Shop", *BILLING, "The shop is deployed to fly.io from the main branch."),
             "shop/stripe-charge.md": _topic("Stripe charge", "A Stripe charge that fails twice raises an invoice "
                                                               "alert in the billing dashboard."),
             "shop/search.md": _topic("Search", *SEARCH)}
    assert _pairs(texts) == {("shop/stripe-charge.md", "shop.md")}


def test_a_project_block_about_a_component_joins_the_component():
    """The project topic's block that names the component and reads like it moves; the
    project's other blocks, one naming the component in passing among them, stay."""
    from scriptorium.core.writer.gather import plan_gathering

    about = ABOUT_SEARCH
    passing = "Invoices from the billing worker link each Stripe charge; the search box is only a placeholder."
    texts = {"shop.md": _topic("Shop", *BILLING, about, passing),
             "shop/search.md": _topic("Search", *SEARCH),
             "shop/billing-alerts.md": _topic("Billing alerts", "Billing alerts page the on-call engineer.",
                                              "Billing alerts fire after two failed charges.",
                                              "Billing alerts are muted during the maintenance window.",
                                              "Billing alerts go to the #billing channel.",
                                              "Billing alerts are tested in staging every week.",
                                              "Billing alerts carry the invoice id.")}
    gathering = plan_gathering(texts)
    ids = {b.content: b.block_id for b in parse_topic("shop.md", texts["shop.md"]).blocks}
    assert gathering.merges == []
    assert gathering.moves == {ids[about]: ("shop.md", "shop/search.md")}
    assert gathering.describe() == ["moved 1 block(s) of shop.md to shop/search.md"]


def test_topics_about_different_subjects_stay_apart():
    """Two cohesive components of one project; two projects; two people who talk alike."""
    texts = {"shop.md": _topic("Shop", "The shop is deployed to fly.io from the main branch.",
                               "The shop's README lists the make targets."),
             "shop/billing.md": _topic("Billing", *BILLING),
             "shop/search.md": _topic("Search", *SEARCH),
             "billing.md": _topic("Billing", "Billing questions go to the finance team."),
             "invoices.md": _topic("Invoices", *BILLING[:2]),
             "people/caroline.md": _topic("Caroline", "Caroline went to a pottery class on Saturday.",
                                          "Caroline painted a sunset after the pottery class."),
             "people/melanie.md": _topic("Melanie", "Melanie took her kids to a pottery class on Saturday.")}
    assert _pairs(texts) == set()


# -- through sleep, on a written workspace --------------------------------------------------


def _workspace(tmp_path):
    """A session written by the offline writer, then topics of a project saved by hand
    citing its turns; `notes.md` links to the block that the small topic holds."""
    from scriptorium.core.sessions.store import SessionStore

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("billing")
    chain(store, sid, ["u1", "a1", "u2", "a2"], text={
        "u1": "Where do the nightly backups go?", "a1": "The nightly backups go to the glacier bucket in eu-west-1.",
        "u2": "And how long are they kept?", "a2": "Backups are kept for 90 days, then deleted by a lifecycle rule."
        }.__getitem__)
    assert finish(store, sid).outcome == "ok"
    ws = Workspace.open(store.state_dir)

    def cite(claims: list[tuple[str, str]], title: str) -> str:
        parts = [f"# {title}", ""]
        for k, (claim, node) in enumerate(claims, 1):
            parts += [f"{claim}[^e{k}]", "", f"[^e{k}]: Time: `2026-01-02`; Sources: [t](openprogram/{sid}/{node})", ""]
        return "\n".join(parts)

    assert save_topic(ws, "shop.md", cite([(BILLING[0], "a1"), (BILLING[1], "a2"), (BILLING[2], "a2"),
                                           ("The shop is deployed to fly.io from the main branch.", "u1"),
                                           (ABOUT_SEARCH, "a1")], "Shop"),
                      summary="by hand").ok
    assert save_topic(ws, "shop/stripe-charge.md", cite([("A Stripe charge that fails twice raises an invoice alert "
                                                         "in the billing dashboard.", "a2")], "Stripe charge"),
                      summary="by hand").ok
    assert save_topic(ws, "shop/search.md", cite([(c, "u1") for c in SEARCH], "Search"), summary="by hand").ok
    small = parse_topic("shop/stripe-charge.md", (ws.topics / "shop" / "stripe-charge.md").read_text())
    (moved,) = small.blocks
    assert save_topic(ws, "notes.md", cite([(f"See [the alert](shop/stripe-charge.md#^{moved.block_id}) for failed "
                                             "charges.", "u2")], "Notes"), summary="by hand").ok
    return store, moved


def test_sleep_merges_a_small_topic_into_its_project_keeping_ids_evidence_and_links(tmp_path):
    store, moved = _workspace(tmp_path)
    state = store.state_dir
    before = topic_blocks(state)
    sources = {p: d for p, d in tree(state / "memory").items() if p.startswith("sources/")}
    head = Workspace.open(state).repo.head.commit.hexsha
    result = sleep(state)
    assert (result.outcome, result.code) == ("ok", "REORGANIZED"), result.message
    assert "merged shop/stripe-charge.md into shop.md" in result.message
    assert "moved 1 block(s) of shop.md to shop/search.md" in result.message
    after = topic_blocks(state)
    assert set(after) == set(before)  # every block kept, by its id, none retired
    assert {bid: text for bid, (_, text) in after.items() if "alert" not in text} \
        == {bid: text for bid, (_, text) in before.items() if "alert" not in text}
    assert after[moved.block_id][0] == "shop.md"
    assert [t for t, text in after.values() if text == ABOUT_SEARCH] == ["shop/search.md"]
    assert {t for t, _ in after.values()} == {t for t, _ in before.values()} - {"shop/stripe-charge.md"}
    shop = (state / "memory" / "topics" / "shop.md").read_text()
    block = next(b for b in parse_topic("shop.md", shop).blocks if b.block_id == moved.block_id)
    assert [c.id for c in block.citations] == [c.id for c in moved.citations]  # its evidence came with it
    notes = (state / "memory" / "topics" / "notes.md").read_text()
    assert f"(shop.md#^{moved.block_id})" in notes  # the link follows the block
    assert {p: d for p, d in tree(state / "memory").items() if p.startswith("sources/")} == sources
    ws = Workspace.open(state)
    assert list(ws.repo.iter_commits(f"{head}..HEAD")) and ws.audit_log()[0]["kind"] == "sleep"
    assert ws.audit_log()[0].get("retired") in (None, [])  # a merge retires no block
    assert sleep(state).code == "NO_CHANGE"


def test_a_sleep_preview_shows_the_merge_and_installs_it_only_when_asked(tmp_path):
    store, moved = _workspace(tmp_path)
    state = store.state_dir
    live = tree(state / "memory")
    result = sleep(state, preview=True)
    assert (result.outcome, result.code) == ("ok", "PREVIEW")
    assert "would merge shop/stripe-charge.md into shop.md" in result.message
    assert result.to_json()["gathered"] == ["merge shop/stripe-charge.md into shop.md",
                                            "move 1 block(s) of shop.md to shop/search.md"]
    assert [(g.kind, g.source, g.target) for g in result.gathered] == [
        ("merge", "shop/stripe-charge.md", "shop.md"), ("move", "shop.md", "shop/search.md")]
    assert result.said_gathered(preview=True) == ("; would merge shop/stripe-charge.md into shop.md"
                                                  "; would move 1 block(s) of shop.md to shop/search.md")
    assert "--- a/topics/shop/stripe-charge.md" in result.diff and "+++ b/topics/shop.md" in result.diff
    assert any(line.startswith("+") and "Stripe charge that fails twice" in line for line in result.diff.splitlines())
    assert f"+See [the alert](shop.md#^{moved.block_id})" in result.diff
    assert tree(state / "memory") == live  # nothing installed
    installed = install_preview(state, result.preview)
    assert installed.code == "REORGANIZED" and "merged shop/stripe-charge.md into shop.md" in installed.message
    assert topic_blocks(state)[moved.block_id][0] == "shop.md"
