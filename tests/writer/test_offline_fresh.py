"""What the offline writer keeps of the coding set's fresh split (bench/data/coding/, sources
and licences in its SOURCES.md; issue 24): a real Claude Code session of graph-monitor
(kiliman/claude-transcript's `test/test2.jsonl`) that moves folders and files and swaps
`.js` import extensions for `.ts`, and stores a rule with Claude Code's `#` memory input."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.memory import parse_topic
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish, sleep
from scriptorium.core.writer.distil import _sentences
from scriptorium.core.writer.moved import absent, changes, made, moved_away
from scriptorium.core.writer.repeated import said_once

from .conftest import tree

GRAPH_MONITOR = (Path(__file__).resolve().parents[2] / "bench" / "data" / "coding"
                 / "claude-code__kiliman_claude-transcript__test2.jsonl")


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, list[str]]:
    store = SessionStore(tmp_path_factory.mktemp("fresh") / "state")
    report = import_sources(store, "claude-code", [GRAPH_MONITOR])
    for sid in report.to_json()["session_ids"]:
        assert finish(store, sid).outcome == "ok"
    sleep(store.state_dir)
    out = {}
    for path, data in tree(store.state_dir / "memory").items():
        if path.startswith("topics/"):
            doc = parse_topic(path[len("topics/"):], data.decode())
            out[path[len("topics/"):]] = [" ".join(b.content.split()) for b in doc.blocks]
    return out


def test_the_users_memory_input_is_a_rule_in_the_core(written):
    """`<user-memory-input>When committing to git repo, always use …</user-memory-input>`: what
    the user typed after `#` for Claude Code to remember is theirs, and a standing rule."""
    core = "\n".join(written.get("core.md", []))
    assert "always use the conventional-commits convention for log message" in core
    assert "user-memory-input" not in "\n".join(b for bs in written.values() for b in bs)


def test_a_place_moved_later_is_not_kept_where_it_was(written):
    """"Database file is `metrics.db` in the root." and "Charts are generated as PNG files in the
    `/charts` directory." (the /init sub-agent's report, filed after the main thread) before
    "Moved `metrics.db` to `/data`", "Moved `/charts` to `/web/charts`"; "Added `.js` extensions to
    local imports" before "use `.ts` extensions instead of `.js`"."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "Moved `metrics.db` to `/data`" in text and "Moved `/charts` to `/web/charts`" in text
    assert "`metrics.db` in the root" not in text
    assert "in the `/charts` directory" not in text
    assert "Added `.js` extensions to local imports" not in text
    # its neighbour stays (an item of "### Key Changes Made:", the heading over the list its label)
    assert "Added `__dirname` and `__filename` workarounds for ESM modules where needed" in text  # as said (verbatim.py)
    assert "From data-capture `package.json`" not in text
    # the user's reason for the move is no statement of where things are: it stays
    assert "we no longer need a separate data-capture folder" in text
    assert "Web Server Component: A simple HTTP server that: Provides an index.html file" in text  # the label stays


def test_the_machines_state_of_the_moment_is_no_block(written):
    """"Port 8080 is in use." and "There's already a node process on 8080." (before the agent killed it):
    true for a minute; what the server listens on is kept."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "Port 8080 is in use" not in text
    assert "already a node process on 8080" not in text
    assert "port 8080" in text.casefold()


def test_a_thing_found_missing_that_the_session_made_is_not_kept_missing(written):
    """The /init sub-agent's "No CLAUDE.md file exists in the project." (filed after the main thread's
    "Claude has created a CLAUDE.md file …"): the file exists."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "created a CLAUDE.md file" in text
    assert "No CLAUDE.md file exists" not in text
    assert "No test files in the project (only in node_modules)" in text  # its neighbours stay (items of its list)


def test_what_the_user_says_the_project_has_stands_over_the_agents_finding(written):
    """The /init sub-agent's report (filed after the main thread): "Additional Observations: - The
    project is not a Git repository - Logs are stored in `/logs` …"; the user: "We already have a
    repo, so you don't need to git init." What the user says of their own project stands ("repo" is
    "repository"); the list keeps its label and its other items."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "We already have a repo, so Claude doesn't need to git init." in text
    assert "not a Git repository" not in text
    assert "Additional Observations: Logs are stored in `/logs` directory (combined.log and error.log)." in text


def test_a_thing_the_project_lacks_or_has_is_of_the_project_in_plain_words():
    """What a statement says the project is not or has none of, and what one says it has: the head
    noun, a shortened word said whole; people's talk names no project, and a phrase ending in no noun
    is no thing."""
    assert absent("Additional Observations: The project is not a Git repository;") == {"thing:repository"}
    assert made("We already have a repo, so Claude doesn't need to git init.") == {"thing:repository"}
    assert absent("The app has no test suite yet.") == {"thing:suite"}
    assert absent("Caroline is not a morning person.") == set()
    assert absent("The project is not a priority right now.") == set()
    assert made("We moved to Lisbon instead of Porto.") == set()


def test_one_turns_sentences_of_one_template_are_one_note(written):
    """"`executor.ts`: Receives logger as a constructor parameter, doesn't import it directly." and
    the same for `scheduler.ts`, `rollup.ts`, `chartGenerator.ts` in one reply: one sentence naming all four."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert ("`executor.ts`, `scheduler.ts`, `rollup.ts`, `chartGenerator.ts`: Receives logger as a constructor "
            "parameter, doesn't import it directly") in text  # one item of "### Files that didn't need changes:"
    assert text.count("Receives logger as a constructor parameter") == 1


def test_the_users_words_for_a_step_or_a_change_without_content_are_no_block(written):
    """"I made some additional updates to the README. You can commit now": what changed, the files
    say; "Instead stage the latest changes and use conventional commit convention …": a step then
    (the rule is the core's, from the `#` input); "Also specify the minimum node version in
    package.json" is a request: said as one."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "additional updates to the README" not in text
    assert "Instead stage" not in text
    assert "The user asked to specify the minimum node version in package.json." in text


def test_a_prompt_to_a_sub_agent_is_the_users_request_without_the_mention():
    """'@"solution-architect (agent)" analyze existing CLI command and create specification …' (codemie-code's
    fresh session): the mention says to whom; "analyze …" is a step of that session, "Add a `--json` flag" a request."""
    from scriptorium.core.writer.distil import _request

    assert _request('@"solution-architect (agent)" analyze existing CLI command and create specification for '
                    'adding missing CLI commands.') is None
    assert _request('@agent-code-reviewer add a --json flag to status.') == "I asked to add a --json flag to status."


def test_a_relative_path_does_not_end_a_sentence():
    """"they point to ../logs from the src directory" and "`./config.js` → `./config.ts`" were cut
    at the dots of the path ("/logs from the src directory.", "`. /config.ts`")."""
    line = "The logger paths are already correct - they point to ../logs from the src directory. Now let me update it."
    assert _sentences(line, True, True)[0].endswith("../logs from the src directory.")
    assert _sentences("- `./database.js` → `./database.ts` (type import)", True, True) == [
        "`./database.js` → `./database.ts` (type import)"]


class _N:
    def __init__(self, text: str, turn: int) -> None:
        self.text, self.turn = text, turn


def _left(*pairs: tuple[str, int]) -> list[str]:
    notes = [_N(t, i) for t, i in pairs]
    return [n.text for n in moved_away(notes, lambda n: n.turn, lambda n, text: _N(text, n.turn))]


def test_moves_are_code_places_only_and_keep_what_names_the_new_place():
    assert [(c.old, c.new) for c in changes("The user asked to move `seve-charts` to `/web` and `/charts` to "
                                            "`/webs/charts`.")] == [("seve-charts", {"web"}), ("charts", {"webs/charts"})]
    assert changes("We moved to Lisbon instead of Porto last May.") == []  # people's talk: no code place
    assert _left(("Config lives in `src/config/`.", 0), ("Moved `src/config/` to `lib/config/`.", 1)) == [
        "Moved `src/config/` to `lib/config/`."]
    # a plain word is a place only written as a path; the new place named: kept; a later statement: kept
    kept = ["The charts look sharper now.", "Charts moved from `/charts` to `/web/charts`; see `web/charts`."]
    assert _left((kept[0], 0), ("Moved `/charts` to `/web/charts`.", 1), ("PNGs go to `/charts`.", 2)) == [
        kept[0], "Moved `/charts` to `/web/charts`.", "PNGs go to `/charts`."]
    # a file moved without its folder: stale only where the note said where it was
    assert _left(("SQLite stores metrics (`metrics.db`).", 0), ("`metrics.db` sits in the root.", 0),
                 ("Moved `metrics.db` to `/data`.", 1)) == ["SQLite stores metrics (`metrics.db`).",
                                                            "Moved `metrics.db` to `/data`."]
    # a thing found missing that a later note made
    assert _left(("No CLAUDE.md file exists in the project.", 0), ("Created CLAUDE.md with the commands.", 1)) == [
        "Created CLAUDE.md with the commands."]


def test_a_fact_said_in_three_turns_is_kept_once(written):
    """The sub-agent finds "`logger.ts` is already exporting an instance on line 48 (`export default
    createLogger();`)." and its summary lists "**`logger.ts`**: Already exports an instance with `export
    default createLogger();`" under "### Files that didn't need changes:": the list keeps its other item."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "`logger.ts` is already exporting an instance on line 48 (`export default createLogger();`)." in text
    assert "Already exports an instance with `export default createLogger();`" not in text
    assert ("Files that didn't need changes: `executor.ts`, `scheduler.ts`, `rollup.ts`, `chartGenerator.ts`: "
            "Receives logger as a constructor parameter, doesn't import it directly.") in text
    # its turns before, one file a turn: the list with its label says it ("didn't need changes")
    assert "`scheduler.ts` also receives the logger in its constructor, so no changes needed." not in text
    assert "`rollup.ts` also receives the logger in its constructor" not in text


def test_a_problem_the_turn_went_on_to_fix_is_said_as_fixed(written):
    """"I found the issue! In `index.ts` on line 26, it's calling `createLogger()` as a function. Let me
    fix this:" — the code no longer does; "The issue is on line 42. `sqlite3.verbose()` is being called
    incorrectly. Let me fix this:" the same."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "In `index.ts` on line 26, it's calling `createLogger()` as a function (fixed)." in text
    assert "it's calling `createLogger()` as a function." not in text
    assert "`sqlite3.verbose()` is being called incorrectly (fixed)." in text


def test_a_technology_the_session_migrated_from_is_not_kept_as_current(written):
    """The /init sub-agent's report "**Backend**: Node.js (CommonJS modules)" (filed after the main
    thread) before "Successfully migrated the entire project from CommonJS to TypeScript with ESM": the
    report's other items and its label stay."""
    text = "\n".join(b for bs in written.values() for b in bs)
    assert "migrated the entire project from CommonJS to TypeScript with ESM" in text
    assert "CommonJS modules" not in text
    assert "Main Technologies: Database is SQLite3 for metrics storage; Chart Generation:" in text


def test_a_migration_is_of_named_technologies_only():
    """"migrate/convert … from X to Y" of names (capitalised or code); people moving house are no migration,
    and a statement naming the new technology too is no stale one."""
    change = changes("Successfully migrated the entire project from CommonJS to TypeScript with ESM: Updated …")
    assert [(c.old, c.new) for c in change] == [("commonjs", {"typescript", "esm"})]
    assert change[0].stale("Backend is Node.js (CommonJS modules)")
    assert not change[0].stale("Converted CommonJS `require()` calls to ESM imports")
    assert changes("Caroline moved from Sweden to the US four years ago.") == []
    assert changes("We converted the spare room from an office to a nursery.") == []


class _Said:
    def __init__(self, text: str) -> None:
        self.text, self.core, self.refers = text, False, False


def _once(*texts: str) -> list[str]:
    return [n.text for n in said_once([_Said(t) for t in texts], lambda n, text: _Said(text))]


def test_what_another_note_says_in_full_goes_but_another_thing_stays():
    """The session's own lines: a shorter note all of whose words a fuller one says goes (its later
    copy when the two are the same); a code name or a file the other does not say makes it another
    thing: `npm run capture` is not `npm start`, ChartGenerator.ts's imports are not Scheduler.ts's."""
    fuller = "`logger.ts` is already exporting an instance on line 48 (`export default createLogger();`)."
    listed = ("Files that didn't need changes: `logger.ts`: Already exports an instance with `export default "
              "createLogger();`; `rollup.ts`: Receives logger as a constructor parameter, doesn't import it directly.")
    assert _once(fuller, listed) == [fuller, "Files that didn't need changes: `rollup.ts`: Receives logger as a "
                                             "constructor parameter, doesn't import it directly."]
    assert _once("Use `/theme` and select \"custom\" to activate it.", "Use `/theme` to select \"custom\".") == [
        "Use `/theme` and select \"custom\" to activate it."]
    commands = ["`npm run capture` - Starts the data capture process (cd data-capture && npm start).",
                "`npm start` - Runs the data capture process (node index.js)."]
    assert _once(*commands) == commands
    imports = ["Scheduler.ts (4 imports updated): `./database.js` → `./database.ts` (type import); "
               "`./config.js` → `./config.ts` (type import).",
               "ChartGenerator.ts (2 imports updated): `./database.js` → `./database.ts` (type import); "
               "`./config.js` → `./config.ts` (type import)."]
    assert _once(*imports) == imports
    # a note alone is said by a list's item with its label; an item's place in its list is a fact of its own
    assert _once("`rollup.ts` also receives the logger in its constructor, so no changes needed.", listed) == [listed]
    phase = ("Phase 1 (MVP): Implement Hybrid (C + Heuristics): Global registry for claim coordination; Time-window "
             "heuristics as fallback.")
    assert _once(phase, "Global Claim Registry: Scope: Cross-process coordination; Lifecycle: per session.")[0] == phase
    # the opposite said later stands; said earlier, it does not undo the later one
    assert _once("The `Text` component doesn't implement `invalidate()` at all.",
                 "Fixed `Text` component to implement `invalidate()` so theme changes work correctly.") == [
        "Fixed `Text` component to implement `invalidate()` so theme changes work correctly."]
