"""What the offline writer keeps of real agent transcripts (Claude Code, Codex, pi; see
tests/fixtures/transcripts/SOURCES.md) and of people talking, in every shape a session
arrives in (issue 24): working steps are no memory, decisions, paths, fixes and the
user's rules are, speakers are right, events say when."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish

from .conftest import CC_COMPACT, CODEX, NARRATION, PI, chain, imported_session, topics_text, written_topics


def test_codex_narration_is_no_block_but_the_decision_it_announced_is(tmp_path):
    """'I'm going to codify the expected behavior first: generated OpenCode config should
    include ...' keeps what was decided; 'I'm running just that focused test now' is a step."""
    store, sid = imported_session(tmp_path, "codex", CODEX)
    topics = written_topics(store, sid)
    blocks = [b for bs in topics.values() for b in bs]
    text = "\n".join(blocks)
    assert "Generated OpenCode config should include `compaction.auto`, `compaction.prune`, and a `threshold` of " \
           "`0.9`." in text
    assert "The RED check failed exactly because `compaction` was absent." in text  # an error and its cause
    assert "The config now includes the 90% threshold in both adapters." in text
    assert not NARRATION.search(text), text
    assert "focused test" not in text  # "I’m running just that focused test now to confirm it fails ..."
    assert list(topics) == ["codemie-code.md"]  # the project, from the working directory


def test_pi_the_users_rule_is_in_the_core_and_paths_and_fixes_are_kept(tmp_path):
    store, sid = imported_session(tmp_path, "pi", PI)
    topics = written_topics(store, sid)
    core = "\n".join(topics["core.md"])
    # "i would only want e2e tests for AgentSession, anything else is shitty."
    assert "The user would only want e2e tests for AgentSession." in core
    assert "shitty" not in core and "idiot" not in core
    text = "\n".join(b for bs in topics.values() for b in bs)
    assert "docs/refactor.md" in text  # where the plan lives
    # the error ("ENOENT ... src/package.json") and what fixed it; the turn went on "Let me fix …": fixed, no state
    assert "The config.ts is now in `utils/` so the relative path to package.json is wrong (fixed)." in text
    assert "`getPackageDir()` - now walks up to find package.json." in text
    # the user's decision where files go, its lines ("tools -> core/tools", "tui -> ...") one sentence
    assert "Tools -> core/tools; tui -> modes/interactive/components; theme -> modes/interactive/theme" in text
    assert "The user:" not in text and "decided to" not in text
    assert not any(len(b.split()) < 3 for b in text.splitlines())
    names = [Path(p).stem for p in topics]
    assert all(not re.fullmatch(r"[0-9a-f]{5,}", n) for n in names), names
    # at most about one new topic per 2,000 words of transcript (the project's own and the core aside)
    words = sum(len(n.text.split()) for n in store.get_branch(sid) if n.kind in ("user", "assistant"))
    assert len(topics) - 2 <= words // 2000, (list(topics), words)


def test_claude_code_a_disproved_theory_is_not_kept(tmp_path):
    """The real session says three times that dialyzer reports a false positive; after
    compaction the agent found the bug in its own code (the session's next turns,
    quoted). The later finding stands; the theory is not kept as fact."""
    store, sid = imported_session(tmp_path, "claude-code", CC_COMPACT)
    head = store.head(sid)
    with store.batch(sid, message="the turns that followed"):
        store.append(sid, "assistant", "So `current_span_ctx()` returns a span context directly (not wrapped in "
                     "`{:ok, ...}`). That's the bug - my code was treating it as returning `{:ok, span_ctx}` when it "
                     "returns the span context struct directly.", predecessor=head, node_id="finding")
    topics = written_topics(store, sid)
    text = "\n".join(b for bs in topics.values() for b in bs)
    assert "returns a span context directly" in text
    assert "false positive" not in text, text
    assert not NARRATION.search(text), text
    assert "✅" not in text


def test_speakers_are_right_when_turns_begin_with_names(tmp_path):
    """A transcript file whose turns are 'Name: text' (no speakers metadata, a working
    directory): "I" is the speaker, "you" the one addressed, "we" stays a group, and the
    agent owns nobody's life."""
    project = tmp_path / "projects" / "-home-user-diary"
    project.mkdir(parents=True)
    turns = [("user", "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."),
             ("assistant", "Melanie: Wow! I painted a lake sunrise last year, you should see it."),
             ("user", "Caroline: We are going camping with my family in the mountains next month.")]
    records, parent = [], None
    for i, (role, text) in enumerate(turns):
        uid = f"t{i}"
        message = {"role": "user", "content": text} if role == "user" else {
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}]}
        records.append({"type": role, "uuid": uid, "parentUuid": parent, "sessionId": "s1", "cwd": "/home/user/diary",
                        "timestamp": f"2023-05-08T13:56:0{i}.000Z", "message": message})
        parent = uid
    (project / "s1.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    store = SessionStore(tmp_path / "state")
    (sid,) = import_sources(store, "claude-code", [project]).to_json()["session_ids"]
    topics = written_topics(store, sid)
    text = "\n".join(b for bs in topics.values() for b in bs)
    assert "Caroline went to a LGBTQ support group on 7 May 2023" in text
    assert "Melanie painted a lake sunrise in 2022" in text and "Caroline should see it" in text
    assert "We are going camping with Caroline's family in the mountains in June 2023." in text
    assert "The user" not in text and "Claude" not in text and "Caroline:" not in text
    assert set(topics) <= {"people/caroline.md", "people/melanie.md", "core.md"}, list(topics)
    # a block of events says when, and once: each note here says its own date, no "On 8 May 2023, " before it
    assert all(re.search(r"\b20(?:22|23)\b", b) for b in text.splitlines()), text
    assert not any(b.startswith("On 8 May 2023, ") for b in text.splitlines()), text


@pytest.mark.parametrize("said", [
    "Perfect! Now let me check the application environment configuration.",
    "Excellent! All tests pass.",
    "Clean compile. Now run tests.",
    "**Investigating ollama references**",
    "I'll use the TodoWrite tool to track my progress.",
    "The TypeScript compilation passed with no errors.",
    "Stage and commit.",
    "Now add the route and the Review button in the dashboard.",
    "/dynamic-border.js` (the shared one).",  # a piece of a line cut inside code: no sentence
    "Claude has uncommitted changes from spotter-4te.3 (controller instrumentation).",  # git status (spotter)
    "E2E testing checklist at the end.",  # no clause (pi-mono)
    'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.236 was rejected"}}',
])
def test_working_steps_never_become_blocks(tmp_path, said):
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("work", source="claude-code", cwd="/home/u/shop")
    chain(store, sid, ["u1", "a1"], text=lambda n: "Fix the cart total rounding." if n == "u1" else said)
    finish(store, sid)
    text = "\n".join(b for bs in topics_text(store).values() for b in bs)
    assert said.split()[-1].strip("*.") not in text, text
    assert "decided" not in text


def test_the_core_keeps_the_users_rules_once_and_never_the_agents_or_an_insult(tmp_path):
    store = SessionStore(tmp_path / "state")
    for n in range(2):  # the same rule in two sessions is kept once
        sid = store.create_session(f"s{n}", source="pi", cwd="/home/u/pi-mono")
        chain(store, sid, ["u1", "a1", "u2", "a2", "u3"], text={
            "u1": "my dude, this exploded when i restarted with -r. invalid themes must NEVER explode",
            "a1": "You must always run the tests before committing, I never skip them.",
            "u2": "no console logs! setTheme should return an error that the caller can display",
            "a2": "Sorry, I broke the theme loader.",
            "u3": "why do you go 100 lines at a time you idiot ..."}.__getitem__)
        assert finish(store, sid).outcome == "ok"
    core = topics_text(store)["core.md"]
    assert core.count("Invalid themes must NEVER explode.") == 1, core
    assert core.count("No console logs!") == 1, core
    assert not any("idiot" in b or "Sorry" in b or "run the tests" in b for b in core), core


def test_sleep_merges_topics_about_the_same_subject(tmp_path):
    """`theme.md` and `themes.md` (a hand-made topic beside a written one) become one topic,
    every block and its id kept."""
    from scriptorium.core.memory import Workspace, save_topic
    from scriptorium.core.writer import sleep

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("themes")
    chain(store, sid, ["u1", "a1"], text={"u1": "Which colors does the dark theme use for diffs?",
                                          "a1": "The dark theme draws green diffs in #b5bd68 and red diffs in #cc6666."
                                          }.__getitem__)
    assert finish(store, sid).outcome == "ok"
    for name, fact, node in (("theme", "Custom themes are JSON files loaded from the themes folder.", "u1"),
                             ("themes", "Invalid custom themes are reported, never raised.", "a1")):
        text = f"# {name}\n\n{fact}[^e1]\n\n[^e1]: Time: `2026-01-02`; Sources: [theme](openprogram/{sid}/{node})\n"
        assert save_topic(Workspace.open(store.state_dir), f"{name}.md", text, summary="by hand").ok
    before = {b for bs in topics_text(store).values() for b in bs}
    result = sleep(store.state_dir)
    assert result.outcome == "ok", result.message
    after = topics_text(store)
    assert not ({"theme.md", "themes.md"} <= set(after)), list(after)
    assert {b for bs in after.values() for b in bs} == before  # nothing lost, nothing doubled


def test_people_talking_keep_what_happened_not_the_company_they_keep(tmp_path):
    """LoCoMo conversation 26, session 2 (25 May 2023, a Thursday), as the speakers said it:
    a question, a wish, thanks and praise of the other, a verdict about life in general
    are no blocks; the events are, dated ("last Saturday" is 20 May 2023)."""
    from datetime import datetime, timezone

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("LoCoMo 26/2", speakers={"user": "Caroline", "assistant": "Melanie"})
    start = datetime(2023, 5, 25, 13, 14, tzinfo=timezone.utc).timestamp()
    said = [("assistant", "Hey Caroline, since we last chatted, I've had a lot of things happening to me. I ran a "
                          "charity race for mental health last Saturday – it was really rewarding."),
            ("user", "That charity race sounds great, Mel! Making a difference & raising awareness for mental health "
                     "is super rewarding - I'm really proud of you for taking part!"),
            ("assistant", "Thanks, Caroline! Taking care of ourselves is so important. What made you pick them?"),
            ("user", "I chose them 'cause they help LGBTQ+ folks with adoption. Your friendship means so much to me."),
            ("assistant", "Have fun and stay safe!")]
    with store.batch(sid, message="locomo"):
        for i, (role, text) in enumerate(said):
            store.append(sid, role, text, node_id=f"D2-{i + 1}", created_at=start + i)
    topics = written_topics(store, sid)
    text = "\n".join(b for bs in topics.values() for b in bs)
    assert "Melanie ran a charity race for mental health on 20 May 2023" in text, text
    assert "Caroline chose them 'cause they help LGBTQ+ folks with adoption." in text
    for company in ("stay safe", "friendship", "so important", "What made", "proud of"):
        assert company not in text, (company, text)


def _people(tmp_path: Path, said: list[tuple[str, str]], day: tuple[int, int, int]) -> str:
    """The blocks the offline writer keeps of Caroline (user) and Melanie talking on `day`."""
    return "\n".join(_people_blocks(tmp_path, said, day))


def _people_blocks(tmp_path: Path, said: list[tuple[str, str]], day: tuple[int, int, int]) -> list[str]:
    from datetime import datetime, timezone

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("friends", speakers={"user": "Caroline", "assistant": "Melanie"})
    start = datetime(*day, 13, 14, tzinfo=timezone.utc).timestamp()
    with store.batch(sid, message="friends"):
        for i, (role, text) in enumerate(said):
            store.append(sid, role, text, node_id=f"t{i + 1}", created_at=start + i)
    return [b for bs in written_topics(store, sid).values() for b in bs]


def test_people_talking_praise_resolve_moods_and_creeds_are_no_blocks(tmp_path):
    """What one says of the other ("Your hard work will pay off!", "I'm impressed by your
    ..."), resolve ("I'm not gonna give up"), a mood made of feelings and values, a verdict
    about things in general and a group's creed keep company; the facts beside them stay."""
    text = _people(tmp_path, [
        ("user", "I signed up for a pottery class at the community center on Elm Street."),
        ("assistant", "Your hard work and talent will pay off! I'm so impressed by your dedication."),
        ("user", "I'm not gonna give up on my dreams, no matter what."),
        ("assistant", "Their love and encouragement has helped me grow into my true self."),
        ("user", "Hard work pays off eventually. We can tackle life's challenges together!"),
        ("assistant", "Pets have a way of touching our hearts."),
        ("assistant", "My daughter started violin lessons with a teacher from Boston."),
    ], (2023, 7, 3))
    assert "Caroline signed up for a pottery class at the community center on Elm Street." in text, text
    assert "Melanie's daughter started violin lessons with a teacher from Boston." in text, text
    for company in ("pay off", "impressed", "give up", "true self", "Hard work", "challenges", "hearts"):
        assert company not in text, (company, text)


def test_people_talking_notes_drop_their_catching_up_and_trailing_evaluation(tmp_path):
    """"A lot's happened since we last chatted - " and a trailing "– it was so rewarding"
    go; a trailing clause that tells something stays. A day named as the subject is said
    as a date ("Yesterday was ..." on 14 August is "13 August 2023 was ..."), and a
    short sentence with only a time in it is kept with its date."""
    text = _people(tmp_path, [
        ("user", "A lot's happened since we last chatted - I joined a new LGBTQ activist group on Tuesday."),
        ("assistant", "I ran a charity race for the children's hospital in Denver – it was so rewarding."),
        ("user", "I took the first step towards becoming a mom - I applied to three adoption agencies!"),
        ("assistant", "Yesterday was my daughter's birthday concert at Millennium Park."),
        ("user", "I graduated last week!"),
    ], (2023, 8, 14))
    assert "Caroline joined a new LGBTQ activist group on Tuesday." in text, text
    assert "Melanie ran a charity race for the children's hospital in Denver." in text, text
    assert "applied to three adoption agencies" in text, text
    assert "13 August 2023 was Melanie's daughter's birthday concert" in text and "On 13 August 2023 was" not in text
    assert "Caroline graduated the week before 14 August 2023" in text, text
    for padding in ("happened", "chatted", "rewarding"):
        assert padding not in text, (padding, text)


def test_people_talking_a_turn_keeps_its_most_concrete_sentence_and_an_answer_its_first(tmp_path):
    """Of a turn's sentences the note is the one that tells (a shelter, food and supplies),
    not the longer one made of feelings; a name and an interjection are no note; a short
    answer is kept with its question, by its first sentence that is not company."""
    text = _people(tmp_path, [
        ("user", "Seeing the smiles on their faces made us feel so much joy and gratitude. "
                 "We went to a homeless shelter to give out food and supplies."),
        ("assistant", "Oof, Caroline."),
        ("assistant", "What's the backstory on that trophy?"),
        ("user", "Glad you like it! It commemorates my first marathon in Chicago. I love it so much."),
    ], (2023, 7, 3))
    assert "On 3 July 2023, we went to a homeless shelter to give out food and supplies." in text, text
    assert "smiles" not in text and "Oof" not in text, text
    assert "What's the backstory on that trophy? It commemorates Caroline's first marathon in Chicago." in text, text
    assert "Glad" not in text and "love it" not in text, text


def test_people_talking_a_mood_about_at_most_one_thing_is_no_note_but_one_event_is(tmp_path):
    """A sentence of feelings about at most one thing, nothing named ("The day was full of
    love and joy.", "Your words motivate me.", "We'll make some awesome memories!") keeps
    company; a feeling about two things or more is a fact ("The kids loved the dinosaur
    exhibit!"), and so is a named one."""
    text = _people(tmp_path, [
        ("assistant", "The day was full of love and joy."),
        ("user", "Your words motivate me. Bye!"),
        ("assistant", "We'll make some awesome memories!"),
        ("user", "It brings us together and brings us happiness."),
        ("assistant", "The kids loved the dinosaur exhibit!"),
        ("user", "We had a great time at the LGBT pride event last June."),
    ], (2023, 7, 17))
    assert "On 17 July 2023, the kids loved the dinosaur exhibit!" in text, text
    assert "We had a great time at the LGBT pride event" in text, text  # a feeling, but a named event
    for mood in ("love and joy", "motivate", "memories", "happiness"):
        assert mood not in text, (mood, text)


def test_people_talking_a_trailing_judgement_goes_even_after_and_or_but(tmp_path):
    """"... and it was powerful", "..., but I'm up for the challenge!" judge what was told:
    they go, what was told stays; a trailing clause that tells something stays."""
    text = _people(tmp_path, [
        ("user", "I went to a LGBTQ support group yesterday and it was so powerful."),
        ("assistant", "It'll be tough as a single parent, but I'm up for the challenge!"),
        ("user", "I joined a mentorship program for LGBTQ youth - I mentor a transgender teen in Portland."),
    ], (2023, 5, 8))
    assert "Caroline went to a LGBTQ support group on 7 May 2023." in text, text
    assert "It'll be tough as a single parent!" in text, text
    assert "Caroline mentors a transgender teen in Portland" in text, text  # the clause after the dash tells
    for judgement in ("powerful", "challenge"):
        assert judgement not in text, (judgement, text)


def test_people_talking_news_announced_advice_hopes_and_offers_are_no_notes(tmp_path):
    """"Something massive happened!" announces news (the next sentence tells it); "Been quite
    a ride - " and "On another note, " lead in; advice to the other, hopes, promises and
    offers ("Let me know if ...") are company. The news itself, and a hope that names its
    plan, stay."""
    text = _people(tmp_path, [
        ("user", "Something massive happened!"),
        ("user", "Been quite a ride - had an audition yesterday for a writing gig."),
        ("assistant", "You should come down and join me on the trails sometime!"),
        ("user", "Crossing my fingers for you!"),
        ("assistant", "I can't wait to see it all come together."),
        ("user", "Let me know if there's anything else I can do to help!"),
        ("assistant", "On another note, I adopted a pup from a shelter last week."),
        ("user", "I'm hoping to open my own dance studio near the river in the spring."),
    ], (2022, 3, 24))
    assert "Caroline had an audition on 23 March 2022 for a writing gig." in text, text
    assert "Melanie adopted a pup from a shelter the week before 24 March 2022." in text, text
    assert "open Caroline's own dance studio near the river" in text, text
    for company in ("massive", "ride", "trails", "fingers", "come together", "Let ", "anything else", "another note"):
        assert company not in text, (company, text)


def test_people_talking_a_note_said_a_few_turns_later_joins_the_block_before(tmp_path):
    """Notes more than a few turns apart start a new thread block; a small one joins the
    block before it while both fit a block (one date, one footnote, not two)."""
    blocks = _people_blocks(tmp_path, [
        ("user", "I signed up for a pottery class at the community center."),
        ("assistant", "Wow!"),
        ("user", "Thanks!"),
        ("assistant", "Awesome."),
        ("user", "Haha yes."),
        ("assistant", "My daughter started violin lessons with a teacher from Boston."),
    ], (2023, 7, 3))
    joined = [b for b in blocks if "pottery class" in b]
    assert len(joined) == 1 and "violin lessons" in joined[0], blocks


def test_people_talking_a_reassuring_guess_and_a_creed_are_no_notes_but_what_they_follow_is(tmp_path):
    """"I'm sure the rest will follow", "You can make your studio work, I'm sure", "Then I
    have no doubt they'll love it" guess at how things will turn out, to reassure; "It's all
    about ..." is a creed: company, cut from the sentence they end. A certainty about what
    was ("I'm sure I left my keys at the gym") is not a guess at what will be."""
    text = _people(tmp_path, [
        ("user", "Searching for a studio has been tricky, but I'm determined to find the right spot - "
                 "when I do, I'm sure the rest will follow!"),
        ("assistant", "You can make your studio work, I'm sure."),
        ("user", "It's been tough going since I lost my job at the bank, but I'm sure my business will pay off."),
        ("assistant", "Then I have no doubt they'll love the coconut ice cream!"),
        ("user", "It's all about finding those little things and cherishing them!"),
        ("assistant", "My husband and I painted the garden shed blue on Sunday."),
    ], (2023, 3, 6))
    assert "Searching for a studio has been tricky, but Caroline is determined to find the right spot!" in text, text
    assert "It's been tough going since Caroline lost Caroline's job at the bank." in text, text
    assert "painted the garden shed blue" in text, text
    for company in ("follow", "studio work", "pay off", "no doubt", "all about"):
        assert company not in text, (company, text)


def test_people_talking_promises_to_keep_in_touch_and_hopes_for_the_other_are_no_notes(tmp_path):
    """A promise of the next exchange or to take the other's word up ("I'll definitely keep you
    updated", "I'll be sure to send you pics of my turtles", "If I need anything, I'll be sure to
    reach out", "Definitely adding it to my list"), an offer to be asked, a hope for the other's
    things and a reassuring guess keep company whatever they name (LoCoMo 30, 41-43)."""
    text = _people(tmp_path, [
        ("user", "I'm organizing a gaming party two weekends later for my old teammates."),
        ("assistant", "Cheers! Your support means a lot. I'll definitely keep you updated."),
        ("user", "In the meantime though, I'll be sure to send you pics of my turtles so you can still watch them grow."),
        ("assistant", "If I need anything, I'll be sure to reach out."),
        ("user", "I love to help, so just shoot me a question anytime you need!"),
        ("assistant", "Definitely adding it to my list."),
        ("user", "Even if it happens to a few, I'm sure at least one will make it and be your 3rd published movie!"),
        ("assistant", "Hoping your screenplay gets noticed and makes it to the screen."),
        ("user", "My daughter started violin lessons with a teacher from Boston."),
    ], (2023, 7, 3))
    assert "gaming party two weekends later" in text and "violin lessons" in text, text
    for company in ("updated", "pics", "reach out", "shoot", "list", "3rd", "noticed"):
        assert company not in text, (company, text)


def test_people_talking_what_things_do_to_us_all_is_no_note_but_a_group_of_us_is(tmp_path):
    """ "Moments like these remind us how important our loved ones are", "It gives us hope and
    reminds us we're not alone": its only people are an "us" that is everyone, said in the
    present. "Our team has seen ..." is a group's; "It has helped our performances ..." happened;
    "They signed it to show our friendship" tells why (friendship alone is no thanks)."""
    text = _people(tmp_path, [
        ("user", "Life's unpredictable, but moments like these remind us how important our loved ones are."),
        ("assistant", "It gives us hope and reminds us we're not alone."),
        ("user", "Books really can shift how we think and help us learn totally new things."),
        ("assistant", "Our team has seen the most growth in communication and bonding."),
        ("user", "Did they sign the ball for a special reason?"),
        ("assistant", "They signed it to show our friendship and appreciation."),
    ], (2023, 7, 3))
    assert "our team has seen the most growth in communication and bonding." in text, text
    assert "signed it to show our friendship" in text, text
    for company in ("loved ones", "not alone", "shift how we think"):
        assert company not in text, (company, text)


def test_people_talking_news_announced_gives_its_time_to_the_news(tmp_path):
    """ "Something exciting happened last Friday. I went to a game convention ..." is one note, the
    news with the announcement's time (it was "Something exciting happened on 7 October 2022.",
    the convention left out); "On Friday, I got great news - I'm finally in the study abroad
    program" keeps its "On Friday" (LoCoMo 42, 43)."""
    text = _people(tmp_path, [
        ("user", "Hey Melanie, it's been a couple days since we last talked. Something exciting happened last "
                 "Friday. I went to a game convention and met new people who weren't from my normal circle."),
        ("assistant", "Hey Caroline, long time no talk. On Friday, I got great news - I'm finally in the study abroad "
                      "program I applied for!"),
    ], (2022, 10, 9))
    assert "On 7 October 2022, Caroline went to a game convention" in text, text
    assert "On Friday, Melanie is finally in the study abroad program" in text, text
    assert "Something exciting" not in text and "great news" not in text, text


def test_people_talking_lead_ins_and_guesses_at_the_others_day_go(tmp_path):
    """What leads in to what is said ("I wanted to tell ya ...", "I hear that, ...", "It really is,
    ...", "Haven't talked in a few days, wanted to let you know ...") goes; a guess at how it was
    for the other ("... must've been awesome", "I get how that would've been so annoying!"), a
    wish to see their photos and thanks for their support ("Knowing I've got people like you
    cheering me on ...") are company. "I found out recently" keeps its "found out"."""
    text = _people(tmp_path, [
        ("user", "Melanie, I wanted to tell ya I joined a writers group."),
        ("assistant", "I hear that, taking your mind off something like that is very challenging."),
        ("user", "It really is, I'm not sure I'll ever understand why watching my turtles walk makes me so happy."),
        ("assistant", "Haven't talked in a few days, wanted to let you know I joined a travel club!"),
        ("user", "Meeting him and seeing him play must've been awesome."),
        ("assistant", "I get how that would've been so annoying!"),
        ("user", "I'd love to see one of the epic shots you got!"),
        ("assistant", "Knowing I've got people like you cheering me on makes this journey way easier."),
        ("user", "I found out recently I'm allergic to cockroaches as well."),
    ], (2023, 7, 3))
    assert "Caroline joined a writers group." in text and "Melanie joined a travel club!" in text, text
    assert "Caroline is not sure Caroline will ever understand why watching" in text, text
    assert "Caroline found out recently Caroline is allergic to cockroaches" in text, text
    for company in ("wanted to", "challenging", "really is", "must've", "annoying", "epic shots", "cheering"):
        assert company not in text, (company, text)


def test_people_talking_a_reply_that_echoes_the_other_is_no_note(tmp_path):
    """A reply that says again what the other just said with at most one word of its own ("Mixed
    emotions are rough!" after "Mixed emotions - excited but also a bit anxious") keeps company.
    After a question a reply is an answer, kept ("I've been only to Rome once."); a name of its own
    tells something ("like the one Gina teaches") (LoCoMo 30, 41, 42)."""
    text = _people(tmp_path, [
        ("user", "Mixed emotions - excited but also a bit anxious about the audition."),
        ("assistant", "Yeah, I get it. Mixed emotions are rough!"),
        ("user", "Have you been to Italy?"),
        ("assistant", "I've been only to Rome once."),
        ("user", "I signed up for a pottery class at the community center on Elm Street."),
        ("assistant", "A pottery class at the community center, like the one Gina teaches!"),
    ], (2023, 7, 3))
    assert "audition" in text and "Melanie has been only to Rome once." in text, text
    assert "pottery class at the community center on Elm Street" in text and "Gina" in text, text
    assert "rough" not in text, text
