"""A value a later session changed, across the topics of one project (issue 24: "when a
later turn corrects or disproves an earlier statement, the later one stands"). Within a
batch the writer drops it (revalued.py), within one topic sleep does; here the earlier
statement sits in one topic of a project and the later one in another (`shop.md`,
`shop/payments.md`), each written on the same day, so only the times of the turns they
cite say which came later."""

from __future__ import annotations

from scriptorium.core.memory import Workspace, parse_topic, save_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep

from .conftest import chain

TURNS = {
    "u1": "How does the payment client retry?",
    "a1": "The payment client retries with a backoff of 200 ms.",
    "u2": "And the session cookie?",
    "a2": "The session cookie is signed with the app secret.",
    "u3": "Lower the retries, the gateway rate-limits us.",
    "a3": "Done: the payment client now retries twice.",
    "u4": "Good.",
    "a4": "The search box queries the catalogue index.",
}


def _workspace(tmp_path, layout: dict[str, list[tuple[str, str]]]):
    """A session written by the offline writer (turns a minute apart), then topics saved
    by hand whose blocks cite its turns: `layout` is topic -> [(claim, node)]."""
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("shop")  # no working directory: the hand-saved topics alone say the project
    chain(store, sid, list(TURNS), text=TURNS.__getitem__)
    assert finish(store, sid).outcome == "ok"
    ws = Workspace.open(store.state_dir)
    for topic, claims in layout.items():
        parts = [f"# {topic}", ""]
        for k, (claim, node) in enumerate(claims, 1):
            parts += [f"{claim}[^e{k}]", "", f"[^e{k}]: Time: `2026-01-02`; Sources: [t](openprogram/{sid}/{node})", ""]
        assert save_topic(ws, topic, "\n".join(parts), summary="by hand").ok
    return store


def _texts(state) -> dict[str, list[str]]:
    root = state / "memory" / "topics"
    out = {}
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        doc = parse_topic(rel, path.read_text())
        assert doc.issues == [], doc.issues
        out[rel] = [" ".join(b.content.split()) for b in doc.blocks]
    return out


def test_a_value_another_topic_of_the_project_gave_anew_later_is_taken_out(tmp_path):
    store = _workspace(tmp_path, {
        "shop.md": [("`max_retries` is `5`.", "a1"), ("The session cookie is signed with the app secret.", "a2")],
        "shop/payments.md": [("The payment client lives in `lib/payments/client.ex`.", "a1"),
                             ("`max_retries` is `2`.", "a3")],
        # another project's setting of the same name, and an earlier value said in the later topic's place
        "crm.md": [("`max_retries` is `9`.", "a1"), ("The CRM syncs contacts nightly.", "a2")],
        "shop/search.md": [("The search box queries the catalogue index.", "a4"),
                           ("The `search_timeout` is `300 ms`.", "a1")],
        "shop/catalogue.md": [("The catalogue index is rebuilt hourly.", "a4"),
                              ("The `search_timeout` is `800 ms`.", "a2")]})
    state = store.state_dir
    before = {p: {b.block_id for b in parse_topic(p, (state / "memory" / "topics" / p).read_text()).blocks}
              for p in ("shop.md", "shop/search.md")}
    result = sleep(state)
    assert (result.outcome, result.code) == ("ok", "REORGANIZED"), result.message
    texts = _texts(state)
    everything = [t for ts in texts.values() for t in ts]
    assert "`max_retries` is `5`." not in everything  # a1, changed by a3 in shop/payments.md
    assert "`max_retries` is `2`." in everything
    assert "`max_retries` is `9`." in everything  # crm is another project
    assert "The `search_timeout` is `300 ms`." not in everything  # a1 < a2, whichever topic came first
    assert "The `search_timeout` is `800 ms`." in everything
    assert "The session cookie is signed with the app secret." in everything
    retired = {r["id"]: r["reason"] for r in Workspace.open(state).audit_log()[0]["retired"]}
    (gone,) = before["shop.md"] - {b for p in texts for b in _ids(state, p)}
    assert retired[gone] == "superseded: a later block of shop/payments.md gives its value anew"
    assert sleep(state).code == "NO_CHANGE"


def test_the_earlier_topic_keeps_a_value_said_later_than_the_other(tmp_path):
    """The project topic's statement is the later one: the component's goes, not it."""
    store = _workspace(tmp_path, {
        "shop.md": [("`max_retries` is `2`.", "a3"), ("The session cookie is signed with the app secret.", "a2")],
        "shop/payments.md": [("The payment client lives in `lib/payments/client.ex`.", "a1"),
                             ("`max_retries` is `5`.", "a1")]})
    assert sleep(store.state_dir).outcome == "ok"
    everything = [t for ts in _texts(store.state_dir).values() for t in ts]
    assert "`max_retries` is `2`." in everything
    assert "`max_retries` is `5`." not in everything


def test_a_block_linked_from_elsewhere_keeps_its_stale_value(tmp_path):
    store = _workspace(tmp_path, {
        "shop/payments.md": [("The payment client lives in `lib/payments/client.ex`.", "a1"),
                             ("`max_retries` is `2`.", "a3")],
        "shop.md": [("`max_retries` is `5`.", "a1"), ("The session cookie is signed with the app secret.", "a2")]})
    state = store.state_dir
    ws = Workspace.open(state)
    doc = parse_topic("shop.md", (ws.topics / "shop.md").read_text())
    old = next(b for b in doc.blocks if "`5`" in b.content)
    text = (ws.topics / "shop/payments.md").read_text().replace(
        "The payment client lives in", f"The payment client ([retries](../shop.md#^{old.block_id})) lives in")
    assert save_topic(ws, "shop/payments.md", text).ok
    assert sleep(state).outcome == "ok"
    assert "`max_retries` is `5`." in [t for ts in _texts(state).values() for t in ts]


def _ids(state, rel: str) -> set[str]:
    return {b.block_id for b in parse_topic(rel, (state / "memory" / "topics" / rel).read_text()).blocks}
