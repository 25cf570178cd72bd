"""A sub-agent's prompt is the agent's words to it, not the user's request (issue 24,
"Speakers are right"): Claude Code's Task calls in the TODO demo transcript
(d-kimuson/claude-code-viewer, bench/data/coding/) and a spawn made through the store, as
the demo's checkout session makes one."""

from __future__ import annotations

from pathlib import Path

from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer.pipeline import finish

from .conftest import chain, imported_session, topics_text, written_topics

CODING = Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
VIEWER = CODING / "claude-code__d-kimuson_claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"


def _text(topics: dict[str, list[str]]) -> str:
    return "\n".join(b for bs in topics.values() for b in bs)


def test_claude_codes_task_prompts_are_not_the_users_requests(tmp_path):
    """Claude told its sub-agents "Create TypeScript types and interfaces for a TODO app.
    Create a types/ directory with: …", "Return a concise summary (100-150 words) …"; the
    user asked for none of it. What the sub-agents made (their reports) stays, and the
    user's own request ("update CLAUDE.md for current changes") too."""
    store, sid = imported_session(tmp_path, "claude-code", VIEWER)
    text = _text(written_topics(store, sid))
    for prompt in ("The user asked to create a types/ directory", "The user asked to create React components",
                   "The user asked to return", "The user asked to modify the main page.tsx",
                   "The user asked to create a new Next.js project", "Return a concise summary"):
        assert prompt not in text, prompt
    assert "The user asked to update CLAUDE.md for current changes." in text
    assert "Organized folder structure (`components/`, `types/`, `hooks/`, `lib/`)" in text


def test_a_spawned_agents_prompt_is_no_request_but_its_finding_is_kept(tmp_path):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("checkout", source="claude-code", cwd="/home/u/shop")
    chain(store, sid, ["u1", "a1"], text={
        "u1": "Spin up an agent to bisect the deploy while we keep looking at the query plans.",
        "a1": "Starting a sub-agent to bisect the 14 commits of Tuesday's deploy against staging."}.__getitem__)
    store.spawn_branch(sid, "Bisect the 14 commits of Tuesday's checkout deploy on staging and report the first "
                            "commit whose p95 exceeds 600 ms. The load test on staging is `load-test --p95-max 600`.", caller="a1", node_id="sa1")
    store.append(sid, "assistant", "The first slow commit is a91f3c2 (\"cart: load line items lazily\"): it turns "
                                   "one joined query into one query per line item.", predecessor="sa1", node_id="sa2")
    assert finish(store, sid).outcome == "ok"
    text = _text(topics_text(store))
    assert "asked to bisect" not in text.casefold(), text
    assert "Bisect the 14 commits" not in text, text
    assert "The load test on staging is `load-test --p95-max 600`." in text, text
    assert "The first slow commit is a91f3c2" in text, text
