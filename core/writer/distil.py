"""The offline note-taker: what a careful person keeps of a conversation, deterministically.

Each turn is cut into sentences (sentencex). A sentence is dropped when it carries no
fact: greetings, thanks, acknowledgements and filler; questions that ask rather than
tell ("What happened?" — but "scrolling still does not work?" reports something); an
agent narrating its next tool step ("Let me check the file"). What stays is written as
a standalone sentence naming its subject: a speaker's "I" becomes the speaker's name,
"you" the other speaker's, leading interjections and vocatives go ("Wow, that's cool,
Caroline!" → nothing left; "Hey Mel! I went to a support group" → "Caroline went to a
support group"). Code blocks and tool output are left to the files they came from.

Notes are then grouped: the notes of a batch that share their main subject word (the
content word most notes of the batch mention, by stem) become one block cited to all
their turns. Rules, preferences and identity facts are marked for the core.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from . import verbatim
from .agreement import agree, is_adverb, split_punct
from .asked import completed, fragment, subject_clause
from .fixed import about, as_fixed, fixing, hedged, how, names_issue, problem, same_problem, takes_correction, target
from .keywords import COMMON_WORDS, FILLER, content_words, is_content, keyphrases, phrases, stem, word_count
from .pasted import without_listing
from .people import compact, concrete, keeps_company, news_told
from .moved import moved_away
from .overturned import corrected, done_later, unmade
from .hype import measured_only
from .repeated import said_once
from .replies import answered
from .revalued import superseded
from .standing import APOLOGY, is_identity, is_rule, without_anger
from .steps import ADVICE, DIRECTING, PROCESS, first_word
from .stopwords import STOPWORDS_EN_PLUS
from .verbatim import inside, lower_first, spans, upper_first

MAX_BLOCK_SENTENCES = 6  # a block of notes sharing a subject
MAX_BLOCK_WORDS = 80  # a working session's block never grows past it: a note that would starts the next block
MAX_THREAD_SENTENCES = 6  # a block of a conversation's thread: small, so a hit is a few turns, not a session
MAX_THREAD_WORDS = 60
THREAD_GAP = 3  # turns between two notes of one thread block
MAX_SENTENCE_CHARS = 400
MIN_CONTENT_WORDS = 2
MIN_WORK_WORDS = 5  # words of a note in a working session, unless it names a path, a number or code

_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.M | re.S)
_DOTTED = re.compile(r"\w\.(?=\w)")
_RELATIVE_DOTS = re.compile(r"(?<![\w.])\.{1,2}(?=/)")  # `./config.ts`, ../logs: a path, no sentence's end
_OWNER = "\ue003"  # between a list label's owning section and the label, until the note is made (_with_owner)
_SECTION = "\ue004"  # after the report's sections a line is under (their subjects, outermost first), until its note
_PATH = "\x1f"  # between those subjects
_DOT = "\ue000"  # a private-use character stands for a dot inside a name while sentences are cut
_BANG, _ASK = "\ue001", "\ue002"  # and for "!" and "?" inside a code span
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#{1,6})\s+")
_WORD = re.compile(r"[\w'’]+")
_FILLER_INSIDE = re.compile(r"\s*(?::\)|:D|:\(|;\)|\b(?:really|just|totally|definitely|actually|absolutely|truly|"
                            r"basically|literally|super|pretty much)\b)(?=[\s,.!?])"
                            , re.I)
_INTENSIFIER = re.compile(r"\b(is|was|am|are|were|be|feel|feels|felt|looks?|seems?|sounds?|got|get) (?:so|very) (?=\w)",
                          re.I)  # "it was so powerful" -> "it was powerful"
_CONJUNCTIONS = frozenset({"so", "and", "but", "also", "then", "now", "btw", "plus", "anyway"})
_ASKS = re.compile(r"\b(?:what|why|how|where|which|who|when)\b", re.I)
_REPORTS = re.compile(r"\b(?:not|still|never|broken|fail\w*|crash\w*|error\w*|wrong|missing)\b|n't\b", re.I)
# "can't we get that from the settings manager?": a negated auxiliary before its subject asks
_INVERTED = re.compile(r"\b(?:ca|could|should|would|do|does|did|is|are|was|were|wo|have|has)n[’']t (?:we|you|i|it|they|he|"
                       r"she|this|that|there)\b", re.I)
_TAG_QUESTION = re.compile(r"(?:,\s*(?:aren't|isn't|don't|doesn't|won't|right|no|ok|okay|yes)\b[\w\s']{0,12}|"
                           r"^(?:i think|i believe|i guess|maybe|perhaps)\b.*)\?$", re.I)
_MIXED_CASE = re.compile(r"\b[A-Za-z]*[a-z][A-Z]\w*")  # MarkdownTheme, LiveView, SQLite: a name in code
# a finding that says why, or what must be (kept though it names no file or symbol)
_BECAUSE = re.compile(r"\b(?:because|since|so that|instead of|rather than|must|should|never|always|decided|chose|"
                      r"the fix|fixed by|root cause|caused by|due to|requires?|needs?)\b", re.I)
_PRONOUN_LEAD = re.compile(r"^(?:it|that|this|they|those|these|he|she|there|which|what)\b", re.I)
_QUESTION_OPENERS = frozenset("""
what what's whats how how's why when where who whose whom which do does did is are was were am can could would will
should shall have has had any anything anyone got wanna want ever isn't aren't don't doesn't didn't won't wouldn't
can't couldn't shouldn't may might you u r right ok okay so and or hey
""".split())
# The agent narrating its work: what it is about to do or just did. The step itself is in the
# tool calls; the facts it found are said in other sentences. Never a note, never "X decided to".
_NARRATION = re.compile(
    r"^(?:(?:ok(?:ay)?|great|good|perfect|excellent|alright|right|so|done|also|and|but|still|yes|sure)[,!.:—–-]*\s+)*"
    r"(?:(?:now|next|then|first|finally|afterwards)\b"
    r"|here(?:'s| is| are)\b|(?:now )?looking at\b|one more\b|another one\b"
    r"|(?:let me|let's|lets|i'll|i will|i'm going to|i am going to|i'm gonna|i need to|i have to|i should|i must|"
    r"(?:still |also )?need to|(?:we )?still need|"
    r"i want to|i can now|i'd like to|we need to|we'll|time to|going to|starting|continuing|moving on|back to|"
    r"next up|proceeding|working on)\b"
    r"|i(?:'m| am) (?:now |also |just |still )?(?:going|about|ready|done|on it|\w{2,}ing)\b"
    r"|(?:i|we)(?:'ve| have)(?: now)? (?:a |the |full |all |enough |successfully |now )?"
    r"(?:(?:thoroughly|carefully|extensively|closely) )?(?:clear|good|full|complete|"
    r"better|thorough|understanding|picture|context|everything|read|reviewed|looked|checked|explored|examined|"
    r"finished|completed)\b)", re.I)
# tool bookkeeping and status: tests/builds/linters passing, files updated, work committed
_STATUS = re.compile(
    r"\b(?:tests?|specs?|suites?|doctests?|compil\w*|builds?|credo|dialyzer|lint\w*|tsc|type[- ]?check\w*|"
    r"checks?|migrations?|formatt\w*|commit\w*|push\w*|todos?|todo list|task list|file|files|changes|edits?|"
    r"everything|all)\b[^.!?]{0,60}?\b(?:pass(?:es|ed|ing)?|green|clean(?:ly)?|succeed\w*|successful\w*|"
    r"complete[ds]?|done|updated|created|applied|saved|written|fine|ok|works?|working|compiles?|ran)\b|"
    r"^(?:all green|clean compile|compiles clean|no (?:new )?(?:errors|issues|warnings|failures)|pushed|committed|"
    r"done|expected|still compiling|progress|almost done|none of (?:the |my |our )?(?:changes|edits))\b", re.I)
_DONE = re.compile(r"\b(?:done|closed|pushed|committed|merged|finished|passing|found \d+|running now|uncommitted|"
                   r"(?:is|are) (?:now )?ready|"

                   r"unstaged|untracked|is running|is building|\d+ of \d+|\d+ (?:tests?|doctests?|failures?|"
                   r"errors?|warnings?))\b", re.I)
# it went well: "The project has been created successfully." (unless it says where or what: a port, a path)
_FINE = re.compile(r"\b(?:successfully|seems? to be (?:running|working)|is working|works now|now works|went (?:well|fine))\b",
                   re.I)
# an imperative addressed to itself: the agent's plan, step by step
_STEP = re.compile(
    r"^(?:[\w.-]+(?: [\w.-]+){0,2}(?::|\s+[—–-])\s*)?(?:add|update|replace|close|run|fix|create|remove|rename|move|write|"
    r"implement|check|mark|build|merge|extract|wire|register|apply|commit|push|stage|install|edit|delete|refactor|"
    r"rewrite|verify|read|open|claim|review|clean|restore|revert|re-run|rerun|wait|try|search|toggle|switch)\b(?!\s*(?:is|are|was|were|has|had)\b)", re.I)
_STATUS_WORDS = 16  # a status line is short; a longer sentence says more than the status
# a line that is no prose: a table, a quote, code, markup, a heading, a file tree, a shell prompt
_NOT_PROSE = ("|", ">", "    ", "\t", "<", "#", "├", "└", "│", "┌", "➜", "$ ", "// ", "/*")
_STACK_FRAME = re.compile(r"^at [\w.<>$]+ \(|^File \"[^\"]+\", line \d+|^[\[(]\w+[\])] [A-Z]\w+ ")  # "[theme] Detected ..."
_SYMBOLS = re.compile(r"^[^\w\s`'\"(\[/.~@$<-]+\s*")  # a leading ✅, 🏗️, →: decoration, not words
_QUOTE = re.compile(r"^\s*(?:>\s?)+")  # a markdown blockquote's marks
_CHECKBOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*\[[ xX✓]?\]\s")
_HEADER_LINE = re.compile(r"^\s*(?:\*\*[^*]+\*\*|__[^_]+__)\s*:?\s*$")  # a reasoning header or a bold label
_EMPHASIS = re.compile(r"\*\*|__(?=\w)|(?<=\w)__")
_COMMON = COMMON_WORDS

# "I <verb>" becomes "<name> <verb>s" for these common present-tense verbs
_SECOND = {"you": "i", "you're": "i'm", "you've": "i've", "you'll": "i'll", "you'd": "i'd", "your": "my",
           "yours": "mine", "yourself": "myself"}


@dataclass
class Turn:
    ref: str
    role: str  # "user" | "assistant"
    speaker: str  # the name notes use for this speaker ("Caroline", "The user")
    other: str  # the name of the one spoken to ("" when unknown)
    text: str
    time: str  # YYYY-MM-DD or "undated"
    index: int = 0
    work: bool = False  # a user working with an agent (not people talking): the agent's narration is no note
    delegated: bool = False  # the agent's prompt to a sub-agent: its instructions are no note, its facts are
    at: str = ""  # when it was said (ISO), to order a sub-agent's turns among the main thread's


@dataclass
class Note:
    text: str
    turn: Turn
    core: bool = False
    subject: str = ""  # the person the sentence is about, when a speaker's name is its subject
    words: list[str] = field(default_factory=list)  # content words
    prompted_by: tuple[str, ...] = ()  # the question this answers, when it left no note of its own
    refers: bool = False  # its subject is a pronoun for what the note before it (same turn) says: never apart
    section: str = ""  # the subjects of the report's sections it was cut from, outermost first (_PATH between)


@dataclass
class Block:
    notes: list[Note]
    key: str  # the stem of what the block is about ("" when alone)
    dated: bool = False  # its notes tell events: the text says when

    @property
    def refs(self) -> list[str]:
        """The turns the block says, each after the question it answers (when that said nothing itself)."""
        return list(dict.fromkeys(r for n in self.notes for r in (*n.prompted_by, n.turn.ref)))

    @property
    def time(self) -> str:
        return next((n.turn.time for n in self.notes if n.turn.time != "undated"), "undated")

    @property
    def text(self) -> str:
        text = " ".join(_one_label(list(dict.fromkeys(n.text for n in self.notes))))
        day = _day(self.time)
        if self.dated and day is not None and spoken_date(day) not in text and not OWN_DATE.search(self.notes[0].text):
            return f"On {spoken_date(day)}, {_lower_first(text)}"  # a note that says its own date is not dated twice
        return text

    @property
    def core(self) -> bool:
        return all(n.core for n in self.notes)


def _one_label(texts: list[str]) -> list[str]:
    """Two parts of one list, side by side in a block, say their label once: a long list is cut
    into sentences that each repeat it, so that one standing alone still says what its items are
    ("Successfully restructured the project …: Moved `/charts` to `/web/charts` …; Updated all
    import paths …. Successfully restructured the project …: Updated documentation …")."""
    out: list[str] = []
    for text in texts:
        label, colon, items = text.partition(": ")
        if out and colon and items and " " in label and out[-1].startswith(label + ": "):
            out[-1] = f"{out[-1].rstrip('.')}; {items}"
        else:
            out.append(text)
    return out


_OPENERS = frozenset("""
the a an this that these those it its it's they they're their them we we're our us he his she her there there's
that's some all each every one
""".split())


def _lower_first(text: str) -> str:
    """ "They fire up …", "Sometimes Nate …" after "On 2 October 2023, " read on in lower case; a name stays."""
    first = text.split(" ", 1)[0]
    low = first.casefold().rstrip(",")
    common = low in _OPENERS or low in STOPWORDS_EN_PLUS and low not in ("will", "may") or is_adverb(low)
    return text[:1].lower() + text[1:] if common and first[1:].rstrip(",").islower() else text


def distil(turns: list[Turn]) -> list[Note]:
    """The notes worth keeping of these turns, in order."""
    notes: list[Note] = []
    seen: dict[str, Note] = {}
    asked: Turn | None = None  # the last turn, when it asked and left no note
    named: tuple[str, int] = ("", -9)  # the file last named, and in which turn
    last: Turn | None = None
    unfixed: list[Note] = []  # the problems the agent's turn before this one said and did not fix
    for turn in turns:
        kept: list[Note] = []
        before: tuple[str, Note | None] = ("", None)  # the turn's sentence before, and its note
        found = 0  # the first of the turn's notes since it last fixed what it found
        wrong: list[bool] = []  # which of the turn's notes say something is wrong
        named_issue: list[bool] = []  # which say it is the problem ("That's the bug - …", after "I found the issue!")
        finds = turn.work and turn.role == "assistant" and not takes_correction(turn.text)
        said = _sentences(turn.text, turn.work, quoted=turn.role == "assistant", owned=True)
        if not (finds and last is not None and last.work and last.role == "assistant" and last.index == turn.index - 1):
            unfixed = []
        for sentence in said if turn.work else news_told(said):
            section, _, sentence = sentence.rpartition(_SECTION)  # the report's sections over the sentence
            owner, _, sentence = sentence.rpartition(_OWNER)  # and the one owning a list's label
            if finds and fixing(sentence):  # "… Let me fix this:": the problem said before it was
                fix = how(sentence, before[0] if before[1] is None else "")
                fix = _third_person(fix, turn)[0] if fix else ""
                what = target(sentence)  # "Let me fix the test …": a note about something else is how things are
                fixes = [w and (not what or said_so or about(n.text, what))
                         for n, w, said_so in zip(kept[found:], wrong[found:], named_issue[found:])]
                kept[found:] = [_said_fixed(n, fix) if f else n for n, f in zip(kept[found:], fixes)]
                now = [n.text for n, f in zip(kept[found:], fixes) if f]
                for earlier in [p for p in unfixed if any(same_problem(p.text, t) for t in now)
                                and (not what or about(p.text, what))]:
                    # said in the turn before and again in this one ("The color should be a function! Let me fix it:")
                    notes = [_said_fixed(n, fix) if n is earlier else n for n in notes]
                    unfixed.remove(earlier)
                found = len(kept)
            note = _note(sentence, turn)
            if note is not None and owner:
                note = _with_owner(note, owner)
            if note is not None and section:
                note.section = section
            if note is not None and turn.work:
                note = _with_antecedent(note, named[0] if turn.index - named[1] <= 1 else _UNKNOWN)
            if note is not None and turn.work and _REFERS.match(note.text):
                if before[1] is not None and before[1] is kept[-1] and before[1].core == note.core:
                    note.refers = True  # "X is Y. It is large": kept and grouped with the note before it
                elif before[0] and before[1] is None:
                    note = _referred(before[0], note, turn)
            if note is not None:
                kept.append(note)
                wrong.append(problem(note.text) or before[1] is None and problem(before[0]))
                named_issue.append(names_issue(sentence) or before[1] is None and names_issue(before[0]))
            before = (sentence, note)
            files = set(_FILE_NAME.findall(sentence))
            # the file a sentence names, when it names one ("like `oauth-selector.ts` and `theme-selector.ts`": none)
            named = (files.pop() if len(files) == 1 else _UNKNOWN, turn.index) if files else named
        kept_said = list(kept)  # as the sentences gave them (`wrong` is of these)
        if turn.work:
            kept = _one_template(kept)
        elif last is not None and last.speaker != turn.speaker:
            kept = [n for n in kept if not _echoes(n, last)]
        last = turn
        # a working session's long answer is its notes; Chinese is written without spaces: its words are counted
        short = word_count(turn.text) <= (12 if turn.work else 8)
        if asked is not None and asked.speaker != turn.speaker and (short or not kept and not turn.work):
            kept = _answered(asked, turn) or kept  # a short answer means something only with its question
        if kept and asked is not None and asked.speaker != turn.speaker:
            kept[0].prompted_by = (asked.ref,)
            notes = _subject_given(kept, asked, notes)
        # a turn ending in a question its next turn may answer briefly: one that left no note, or in a working
        # session one that asks more than leave to go on (the agent's "The release process is: ... Or do you want
        # a patch release (0.7.29 -> 0.7.30)?", not "Would you like me to continue with WP15 ...?")
        asked = turn if re.search(r"[?？]\s*$", turn.text.strip()) and (not kept or turn.work and not _OFFER.search(
            turn.text.strip().splitlines()[-1])) else None
        # a working session's rule is kept anyway (the core's): the turn's best note is the best of the rest ("TODO
        # is not acceptable, implementation must be full. comments about performance also valid, need to look only
        # for current date while performing matching for session."); between people as tuned (LoCoMo)
        best = min((i for i in range(len(kept)) if not (turn.work and kept[i].core)),
                   key=lambda i: (-_weight(kept[i]), i), default=None)
        chosen = [i == best or n.core or _specific_undated(n) or _full_chinese(n) for i, n in enumerate(kept)]
        for i in range(len(kept) - 1, 0, -1):  # a note kept for what it says keeps the one its pronoun stands for
            chosen[i - 1] = chosen[i - 1] or chosen[i] and kept[i].refers
        # what this turn says is wrong and did not fix: the next turn of the agent's may fix it
        problems = {id(n) for n, w in zip(kept_said[found:], wrong[found:]) if w and not hedged(n.text)} if finds else set()
        unfixed = []
        for note in (n for i, n in enumerate(kept) if chosen[i]):
            norm = " ".join(note.words)
            if norm in seen:  # said again (a later turn repeats it): one note
                continue
            seen[norm] = note
            notes.append(note)
            if id(note) in problems:
                unfixed.append(note)
        if turn.work and turn.role == "user" and _REJECTED.search(turn.text[:200]):
            notes = _rejected(notes, turn)
    return _revalued(_overturned(_superseded(notes), turns))


def _subject_given(kept: list[Note], asked: Turn, notes: list[Note]) -> list[Note]:
    """An answer that is a place or a time without a clause ("In the team vault under `staging/`,
    …") takes its question's subject (asked.py); the sentence that said it ("New engineers keep
    asking where the staging credentials live.") is then no note of its own: the answer says it."""
    if not fragment(kept[0].text):
        return notes
    found = subject_clause(_sentences(asked.text, asked.work, quoted=asked.role == "assistant"))
    if found is None:
        return notes
    clause = _third_person(found[0], asked)[0]
    text = completed(kept[0].text, clause)
    kept[0] = replace(kept[0], text=text, words=content_words(text))
    return [n for n in notes if not (n.turn is asked and clause.casefold() in n.text.casefold())]


_NAMED = re.compile(r"`[^`\n]+`")
TEMPLATE_WORDS = 4  # what the sentences say beside the name they differ in, at least


def _one_template(kept: list[Note]) -> list[Note]:
    """One turn's sentences that say the same of different things ("`scheduler.ts` also receives
    the logger in its constructor, so no changes needed." for three files, "`x.ts`: Receives logger
    as a constructor parameter, doesn't import it directly." for four) are one note, naming them
    all at the first one's place: each alone repeats the rest of it."""
    out: list[Note] = []
    groups: dict[tuple[str, ...], tuple[int, list[str]]] = {}
    for note in kept:
        spans = _NAMED.findall(note.text)
        key = tuple(content_words(_NAMED.sub(" ", note.text)))
        if len(spans) != 1 or len(key) < TEMPLATE_WORDS or note.core:
            out.append(note)
        elif key in groups:
            groups[key][1].append(spans[0])
        else:
            groups[key] = (len(out), [spans[0]])
            out.append(note)
    for at, spans in groups.values():
        if len(spans) > 1:
            note = out[at]
            text = note.text.replace(spans[0], ", ".join(dict.fromkeys(spans)), 1)  # "`a.ts`, `b.ts` also receives …"
            out[at] = replace(note, text=text, words=content_words(text))
    return out


def _said_fixed(note: Note, fix: str) -> Note:
    """A problem the turn goes on to fix, said as fixed, and how when it says so (fixed.py)."""
    if note.core:
        return note
    text = as_fixed(note.text, fix)
    return replace(note, text=text, words=content_words(text))


def _revalued(notes: list[Note]) -> list[Note]:
    """In a working session, a value a later turn changed is not kept (revalued.py), nor a
    place a later turn moved, renamed or replaced (moved.py), and a fact said again is kept
    once (repeated.py)."""
    if not notes or not notes[0].turn.work:
        return notes

    def rewrite(n: Note, text: str) -> Note:
        return Note(text, n.turn, n.core, n.subject, content_words(text), n.prompted_by)

    # a sub-agent's report is planned after the main thread: a move is later by when it was said
    kept = moved_away(superseded(notes, lambda n: n.turn.index, rewrite), lambda n: (n.turn.at, n.turn.index), rewrite)
    return said_once(kept, rewrite)


def _overturned(notes: list[Note], turns: list[Turn]) -> list[Note]:
    """In a working session, the agent's statement that a named thing is not done which a later turn
    of its says is done, and its denials a later turn marked as its correction is about, are not kept
    (overturned.py), nor what nobody measured: grades, praise and forecasts of the work (hype.py)."""
    if not notes or not notes[0].turn.work:
        return notes

    def rewrite(n: Note, text: str) -> Note:
        return Note(text, n.turn, n.core, n.subject, content_words(text), n.prompted_by)

    def stand(line: str, name: str, turn: Turn) -> Note | None:
        """The later statement as a note of its turn: "Fixed! Now `userMessageText` is actually used - it
        sets …" is "`userMessageText` is used - it sets …"."""
        said = next((x for x in _sentences(line, True, True) if name in x.casefold()), "")
        said = _NOW_LEAD.sub("", said)
        return _note(upper_first(said), turn) if said else None

    kept = unmade(corrected(done_later(notes, turns, rewrite, stand), turns, rewrite), turns, rewrite)
    return measured_only(kept, rewrite)


_NOW_LEAD = re.compile(r"^(?:(?:fixed|done|perfect|great|ok(?:ay)?|good)[!.,:]?\s+)*(?:now|so now)\s*,?\s+", re.I)


# a note whose subject is a pronoun for what the sentence before named ("They are large, branch-specific ...")
_REFERS = re.compile(r"^(?:it|they)\b(?!\s+(?:is|was)\s+(?:\w+\s+)?(?:to|that)\b)|"  # not "It is hard to ..."
                     r"^(?:这样|这些|那些|它们?|此时)|"  # Chinese: "this way", "these", "it"
                     r"^(?:these|those|this|that)(?:'s|'re|’s|’re)?\s+(?:(?:also|still|now|only|just|then|"
                     r"already|always|never|actually|really|probably|usually|all|both)\s+)?(?:is|are|was|were|has|have|"
                     r"had|can|could|should|would|will|may|might|must|does|do|did|doesn't|don't|isn't|aren't|won't|"
                     r"can't|[a-z]{3,}(?:s|ed))\b|^(?:it|they)(?:'s|'re|’s|’re)\s", re.I)
_ABOUT = re.compile(r"^(?:and |so |but |ok(?:ay)?,? )?(?:what|how) about (?:the )?([^?,;:]{3,60}?)\s*\?$", re.I)


def _joined(note: Note, text: str) -> Note:
    text = f"{note.text} {text}"
    return Note(text, note.turn, note.core, note.subject, content_words(text), note.prompted_by)


def _referred(before: str, note: Note, turn: Turn) -> Note:
    """A note whose subject is a pronoun for what the turn's sentence before named, when that
    sentence left no note: "What about the Rust target directories? They grow to about 30 GB
    per branch." names them ("The Rust target directories grow ..."); a statement the writer
    passed over ("Keep target directories out of the shared cache.", said without a path or a
    reason) goes before it. A question, a working step or code before it names nothing to keep."""
    about = _ABOUT.match(before.strip())
    if about is not None:
        if len(about.group(1).split()) > 6:
            return note
        named = about.group(1).strip()
        text = re.sub(r"^\w+(?:['’](?:s|re))?", lambda m: upper_first(named) + (
            " is" if m.group(0)[-2:] in ("'s", "’s") else " are" if m.group(0)[-3:] in ("'re", "’re") else ""),
            note.text, count=1)
        text = text if text[:1].isupper() else upper_first(text)
        return Note(f"The {lower_first(text)}" if not named[:1].isupper() else text, note.turn, note.core,
                    note.subject, content_words(text), note.prompted_by)
    said = _strip_chatter(before, turn)
    if (not said or said.endswith(("?", "？", ":")) or _code_like(said) or len(said.split()) < 3
            or turn.role == "assistant" and (_working_step(said) or _working_step(before))
            or turn.role == "user" and _request(said) != said):
        return note
    said, _ = _third_person(said, turn)
    said = upper_first(said)
    return _joined(Note(said if said.endswith((".", "!", "…", "。")) else said + ".", note.turn, note.core,
                        note.subject, [], note.prompted_by), note.text)


_FILE_NAME = re.compile(r"(?<![\w.@/-])((?:[\w@.-]+/)*[\w-]+\.(?:tsx?|jsx?|mjs|cjs|py|exs?|rb|go|rs|java|kt|swift|cs|c|h|"
                        r"cpp|hpp|md|json|jsonl|toml|ya?ml|css|scss|html|heex|sh|sql|lock|txt))(?![\w/])")
_THE_FILE = re.compile(r"^(?:The|This|That) file\b")


_UNKNOWN = "\0unknown"  # no file named in this turn or the one before, or a sentence named several


def _with_antecedent(note: Note, file: str) -> Note | None:
    """"The file still uses `chalk`" said of the file the turn (or the one before) named:
    the note names it (`tui-renderer.ts` still uses `chalk`). Said after a sentence naming
    several ("like `oauth-selector.ts` and `theme-selector.ts`"), or with none named since the
    turn before (the file the agent just opened, in a tool call), which one is not said: no note."""
    if not _THE_FILE.match(note.text):
        return note
    if not file or file == _UNKNOWN:
        return None
    text = _THE_FILE.sub(f"`{file.lstrip('@')}`", note.text, count=1)
    return Note(text, note.turn, note.core, note.subject, content_words(text), note.prompted_by)


# A theory about a cause, said before it was checked; a finding that settles one.
_THEORY = re.compile(
    r"^(?:so,?\s+|i see,?\s+|ah,?\s+)?(?:(?:the|this|that|my|one)\s+)?(?:[\w-]+\s+)?(?:issue|problem|error|cause|bug|"
    r"culprit|reason)\s*(?:is|was|might|may|seems|could|must|-|:|—)|\b(?:false positive|might be|may be|could be|"
    r"might not|may not|"
    r"probably|likely|seems to|(?:looks|seems|appears) (?:correct|right|fine|ok|valid)|i suspect|my guess|i think|i believe|(?:\w+ )?(?:bets?|suspects?)(?= (?:\w+ ){1,3}(?:is|are|was|"
    r"were|has|had|does|did|uses?|using|gets?|getting)\b)|\w+'s (?:guess|hunch|bet)|i'd bet)\b", re.I)
# a guess of what the problem is: the agent's next turn saying what it is settles it
_GUESSED_ISSUE = re.compile(r"\b(?:issue|problem|cause|culprit|bug)\s+(?:might|may|could)\b", re.I)
_FINDING = re.compile(r"\b(?:that's the (?:bug|issue|problem|cause|fix)|root cause|the real (?:issue|problem|cause|bug)|"
                      r"turns out|actually|was wrong|wasn't the|not the (?:issue|problem|cause)|the fix (?:is|was)|"
                      r"fail(?:s|ed)? because)\b",
                      re.I)
# the user saying the agent's last theory or fix was wrong
_REJECTED = re.compile(r"^\W*(?:no|nope|wrong)\b|\bthat(?:'s| is) not it\b|\bnot the (?:issue|problem|cause)\b|"
                       r"\bstill (?:broken|fails|failing|the same|doesn't)\b|\bdidn't (?:help|work|fix)\b", re.I)
_NOT_DISTINCT = frozenset({"issu", "problem", "error", "caus", "bug", "reason", "fix", "code", "function", "file"})


def _rejected(notes: list[Note], turn: Turn) -> list[Note]:
    """The user rejected what the agent said last: its theories since the user's previous
    turn are not kept."""
    since = max((n.turn.index for n in notes if n.turn.role == "user" and n.turn.index < turn.index), default=-1)
    return [n for n in notes if not (n.turn.role == "assistant" and n.turn.index > since and _THEORY.search(n.text))]


def _superseded(notes: list[Note]) -> list[Note]:
    """A theory a later theory or finding about the same thing replaced is not kept as fact."""
    stems_of = [{stem(w) for w in n.words} - _NOT_DISTINCT for n in notes]
    kept = []
    for i, note in enumerate(notes):
        if note.turn.work and note.turn.role == "assistant" and _THEORY.search(note.text):
            later = range(i + 1, len(notes))
            if any(notes[j].turn.index > note.turn.index and notes[j].turn.role == "assistant"
                   and len(stems_of[i] & stems_of[j]) >= (1 if _FINDING.search(notes[j].text) else 2)
                   and (_THEORY.search(notes[j].text) or _FINDING.search(notes[j].text)) for j in later):
                continue
            if _GUESSED_ISSUE.search(note.text) and any(  # "The issue might be with …", the next turn "The issue is on line 42"
                    0 < notes[j].turn.index - note.turn.index <= 1 and notes[j].turn.role == "assistant"
                    and names_issue(notes[j].text) and not hedged(notes[j].text) for j in later):
                continue
        kept.append(note)
    return kept


# the agent offering the next step or asking leave to go on: no subject an answer needs
_OFFER = re.compile(r"\b(?:ready (?:for|to)|want (?:me|us|\w+) to|shall (?:i|we)|should (?:i|we) (?:proceed|continue|go|"
                    r"start|move on)|would you like|do you want (?:me|us|to)|anything else|what(?:'s| is| should be) next|"
                    r"next (?:tasks?|steps?)|proceed|go ahead|carry on|continue|sounds? good|looks? good|ok(?:ay)?\s*\?|"
                    r"merge (?:it )?(?:to|into) main|commit (?:it|this|these|them))\b", re.I)


# between people, a question that asks for news, not about a thing: the answer needs none of it
_SMALL_TALK = re.compile(
    r"^\W*(?:(?:so|and|hey|well|anyway)\b[,!]?\s+)*(?:anything (?:new|fun|exciting|interesting|cool|good)|"
    r"what(?:'s| is| has been| have you been) (?:up|new|going on|happening)|what(?:'ve| have) you been up to|"
    r"how(?:'s| is| are| have| has| was) (?:it going|you|things|life|everything|your (?:day|week|weekend|month))|"
    r"any (?:news|plans|updates)|how (?:about|are) you)\b", re.I)


_NEWS_WORDS = frozenset("lately recently today tonight days week weekend month going new doing things life up "
                        "everything".split())


def _needless(question: str, asked: Turn) -> bool:
    """A question its answer does not need: the agent's offer of a next step, or small talk."""
    if asked.work:
        return _offers(question)
    return _small_talk(question) or _small_talk(_strip_chatter(question, asked))


def _small_talk(question: str) -> bool:
    """"Anything fun going on?", "How was your weekend?" — but not "How are you doing with
    the adoption?": after the phrase, no word of a subject."""
    m = _SMALL_TALK.search(question)
    return m is not None and all(w in _NEWS_WORDS for w in content_words(question[m.end():]))


def _offers(question: str) -> bool:
    """A question that offers the next step or asks leave ("Ready for next task or want to
    merge to main?", "Should I proceed?"): it names no value, option or file of its own."""
    return bool(_OFFER.search(question)) and not _specific(question)


def _answered(asked: Turn, turn: Turn) -> list[Note]:
    """A short answer is a fact only with its question: "Where do the backups go?" "To
    glacier." is one note."""
    question = " ".join(_sentences(asked.text)[-1:])
    if _needless(question, asked):
        return []  # "Ready for next task or want to merge to main?", "Anything fun going on?": the answer says it all
    said = _sentences(turn.text, turn.work, quoted=turn.role == "assistant")
    if turn.work and turn.role == "assistant":  # "One uncommitted change. Let me check what it is:": no answer
        said = [s for s in said if not (_working_step(s) or _working_step(_strip_chatter(s, turn)))]
    if not turn.work:  # between people, the answer is its first sentence that is not company ("Glad you like it.")
        said = [s for s in said if not keeps_company(_strip_chatter(s, turn))][:1]
    answer = _strip_chatter(" ".join(said), turn)
    if turn.work and ("?" in answer or turn.role == "user" and _request(answer) is None):
        return []  # "are we all commited? if yes, do it": no answer, another question and a step
    if not question or not answer or not content_words(answer) or len(answer) > MAX_SENTENCE_CHARS:
        return []
    q, _ = _third_person(_strip_chatter(question, asked) or question, asked)
    a, subject = _third_person(answer, turn)
    a = resolve_dates(a, _day(turn.time))
    text = f"{upper_first(q)} {upper_first(a)}"
    text = text if text.endswith((".", "!", "?", "…", "。")) else text + "."
    return [Note(text, turn, False, subject, content_words(text))]


def _weight(note: Note) -> float:
    """How much a sentence tells: its content words, more for names, numbers and identifiers."""
    specific = sum(1 for w in re.findall(r"\S+", note.text)[1:] if w[:1].isupper() or _specific(w))
    words = set(note.words) if note.turn.work else concrete(note.words)  # between people, feelings tell little
    return len(words) + specific + (5 if note.core else 0)


def group(notes: list[Note], names: set[str], *, thread: bool = False) -> list[Block]:
    """Notes become blocks. In a work session, the notes sharing their main subject word
    (the one most notes of the batch mention), else consecutive notes about the same
    person. In a conversation between people (`thread`), consecutive notes: its thread of
    subjects, in order, in blocks of at most a paragraph's size."""
    # a speaker named by a description ("The user") is no subject either: every request of theirs says "user"
    lowered = {w for n in names for w in (n.casefold(), *(n.casefold().split()[1:] if n.startswith("The ") else ()))}
    df: Counter[str] = Counter()
    candidates: list[list[str]] = []
    for note in notes:
        keys = list(dict.fromkeys(stem(w) for w in note.words if _keyable(w, lowered) and (thread or w not in _GENERIC_WORK)))
        candidates.append(keys)
        df.update(keys)
    blocks: list[Block] = []
    by_key: dict[tuple[str, bool], Block] = {}
    for note, keys in zip(notes, candidates):
        shared = [k for k in keys if df[k] >= 2]
        key = max(shared, key=lambda k: (df[k], -keys.index(k))) if shared else ""
        block = by_key.get((key, note.core)) if key and not thread and not note.core else None
        if block is not None and _apart(block, note):
            block = None  # a word shared by two sections of reports is no shared subject
        referent = note.refers and bool(blocks) and blocks[-1].notes[-1].turn is note.turn
        if referent:
            block = blocks[-1]  # "They are large, ...": where the note it refers to is
        if block is None and blocks and not note.core and _continues(blocks[-1], note, key, thread):
            block = blocks[-1]
        reply_to = answered(note, blocks) if not thread and not referent else None
        if reply_to is not None:  # "No, we want to put it in …": with the proposal it turns down (replies.py)
            block = reply_to
        moved = None
        if block is not None and _full(block, thread, note):
            if referent and len(block.notes) > 1:  # full: the note it refers to starts the next block with it
                moved = block.notes.pop()
            block = None
        if block is None:
            block = Block([moved] if moved else [], key, dated=thread)
            blocks.append(block)
        elif blocks[-1] is not block:  # keep blocks in order of their latest note
            blocks.remove(block)
            blocks.append(block)
        if key and not block.key:
            block.key = key
        if key:
            by_key[(key, note.core)] = block
        block.notes.append(note)
    return blocks


def _apart(block: Block, note: Note) -> bool:
    """Whether a note cut from a report's section is about another thing than the block's notes,
    cut from other sections ("Integration tests in `tests/integration/` …" of the overview's testing
    section and "`executeTaskWithUI()` - Batch execution …" of the deep dive's built-in agent, joined
    by "execution"): one section is not within the other."""
    if not note.section:
        return False
    mine = note.section.split(_PATH)
    theirs = [n.section.split(_PATH) for n in block.notes if n.section]
    return bool(theirs) and not any(t[:len(mine)] == mine or mine[:len(t)] == t for t in theirs)


def _continues(block: Block, note: Note, key: str, thread: bool) -> bool:
    last = block.notes[-1]
    if thread:
        return last.core == note.core and note.turn.index - last.turn.index <= THREAD_GAP
    return (last.core == note.core and (last.subject or last.turn.speaker) == (note.subject or note.turn.speaker)
            and (not key or not block.key) and note.turn.index - last.turn.index <= 2)


def _full(block: Block, thread: bool, note: Note) -> bool:
    """Whether `note` must start a new block. In a working session a block is a search hit
    whose every word is read (and costs the reader as much as raw turns would), so a note
    that would carry it past MAX_BLOCK_WORDS starts the next one; a block grew to 80 + a
    long gathered list before (coding set: hits 235 -> 210 words, tune split raw at those
    words 30 -> 28, memory 34 -> 35 of 36). Between people (`thread`) the cap is the
    paragraph's size as it was tuned on LoCoMo: reached, not checked ahead."""
    words = sum(len(n.text.split()) for n in block.notes)
    if thread:
        return len(block.notes) >= MAX_THREAD_SENTENCES or words >= MAX_THREAD_WORDS
    return len(block.notes) >= MAX_BLOCK_SENTENCES or words + len(note.text.split()) > MAX_BLOCK_WORDS


def topic_phrase(blocks: list[Block]) -> dict[int, str]:
    """For each block (by index), its best key phrase among the batch's key phrases."""
    ranked = keyphrases([b.text for b in blocks])
    score = {p: s for p, s in ranked}
    out: dict[int, str] = {}
    for i, block in enumerate(blocks):
        speakers = {w.casefold() for n in block.notes for w in (n.turn.speaker + " " + n.turn.other).split()}
        options = phrase_options(block.text, speakers)
        if block.key:
            keyed = [p for p in options if any(stem(w) == block.key for w in p.split())]
            options = keyed or options
        if options:
            out[i] = max(options, key=lambda p: (score.get(p, 0.0), -options.index(p)))
    return out


def phrase_options(text: str, speakers: set[str], last: int | None = 2) -> list[str]:
    """The key phrases a block's text could be named by: the speakers' names and common
    words left out, at most the `last` two words of each (sleep names a topic from these
    too, renaming.py)."""
    options = [p for p in phrases(text) if not all(w in _COMMON or w in speakers for w in p.split())]
    options = [" ".join([w for w in p.split() if w not in speakers and w not in _COMMON][-last if last else 0:])
               for p in options]
    return [p for p in options if p]


# words of any working session: no subject to gather notes under (or to name a topic after)
_GENERIC_WORK = frozenset("""
issue issues problem problems error errors file files code test tests change changes function functions method methods
line lines thing things way need fix bug bugs read write run output input value values result results case cases type
types name names step steps part parts place work task tasks plan current existing new old instead approach
""".split())


def names_a_component(phrase: str) -> bool:
    """Whether a phrase can name a component's topic in a working session: not one word any
    session says (`file`, `issue`) nor a bare verb (`track`, `clear`)."""
    words = phrase.casefold().split()
    return not (len(words) == 1 and (words[0] in _GENERIC_WORK or words[0] in DIRECTING or words[0] in PROCESS
                                     or words[0] in ADVICE))


def _keyable(word: str, names: set[str]) -> bool:
    return word not in _COMMON and word not in names and not word.isdigit() and not is_adverb(word)


# -- one sentence --------------------------------------------------------------------------


def _sentences(text: str, work: bool = False, quoted: bool = False, owned: bool = False) -> list[str]:
    """The sentences of a turn's prose. `quoted`: the agent's markdown blockquotes ("> Add
    a `mix quality` alias to `mix.exs` ...", a plan or a spec it sets out) are prose; a user's
    are what someone else said, and no note of theirs. `owned`: a sentence under a report's
    sections opens with their subjects, then _SECTION, and a list label's with the section that
    owns it, then _OWNER (else without either)."""
    from sentencex import segment

    if work and quoted:  # a fence inside the quote ("> ```elixir") is code all the same
        text = "\n".join(_QUOTE.sub("", line) for line in text.splitlines())
    tree = _tree_folders(text) if work else {}
    text = _FENCE.sub(" ", text)
    out: list[str] = []
    lines = text.splitlines()
    if work:  # a diff or a file pasted as the screen showed it, line numbers and all: its text, nobody's words
        lines = without_listing(lines)
    lines = _unwrapped(lines)
    if work:  # a checklist is the agent's plan, its todo list: no note ("- [ ] Build project: `npm run build`")
        lines = [line for line in lines if not _CHECKBOX.match(line)]
    for line in _gathered(lines, tree) if work else lines:
        section, _, line = line.rpartition(_SECTION)
        line = line.strip()
        if not line or line.startswith(_NOT_PROSE) or _HEADER_LINE.match(line) or _STACK_FRAME.match(line):
            continue
        line = _SYMBOLS.sub("", verbatim.sub(_EMPHASIS, "", _LIST_MARK.sub("", line)))  # `__init__.py`, `**/*.ts` stay
        language = "zh" if re.search("[\u3040-\u30ff\u4e00-\u9fff]", line) else "en"
        guarded = _DOTTED.sub(lambda m: m.group(0).replace(".", _DOT), line)  # Spotter.Telemetry.Otel is one word
        guarded = _RELATIVE_DOTS.sub(lambda m: _DOT * len(m.group(0)), guarded)
        # nor does a sentence end inside a code span ("Block `!` commands while agent is streaming", "Added
        # `\x1b[0m` reset before `...` ellipsis to prevent style leaking")
        guarded = re.sub(r"`[^`\n]+`", lambda m: m.group(0).replace("!", _BANG).replace("?", _ASK).replace(".", _DOT),
                         guarded)
        out.extend((section + _SECTION if section and owned else "")
                   + s.strip().replace(_DOT, ".").replace(_BANG, "!").replace(_ASK, "?")
                   for s in segment(language, guarded) if s.strip())
    return out if owned else [s.rpartition(_OWNER)[2] for s in out]


GATHER_ITEM_WORDS = 14  # a list item short enough to join its list's sentence
GATHER_CHARS = 360  # one gathered sentence at most (MAX_SENTENCE_CHARS cuts longer ones)
_TERSE_WORDS = 6  # "accent #8abeb7": a line of a pasted list of values
_PAIR = re.compile(r"^(`[^`]+`|[\w.-]+)((?: \([^)]*\))?)\s*[:=]\s+(?=\S)")  # "`accent`: `#8abeb7`", "Teal: `#5f8787`"


# a list's label that says what was done to its items or what state they are in ("Deleted (cleanup):",
# "Removed:", "Renamed:", "Kept (Essential):", "New files:", "Before:", "Proposed:", "Cons:"): an item
# without it says the opposite of the turn ("DeltaWriter.ts (generic JSONL writer now)." of a file deleted)
_STATE_LABEL = re.compile(r"^(?:[\w`'.-]+ ){0,2}?(?:\w{3,}(?:ed|en)|made|kept|built|done|gone|left|split|cut|set|put|new|"
                          r"old|legacy|current|previous|before|after|now|was|not|no|todo|pending|planned|proposed|missing|"
                          r"broken|unused|deprecated|obsolete|optional|future|next|later|pros?|cons?|non-goals?)\b"
                          r"(?: [\w`'.-]+){0,2}(?: \([^)]*\))?:$", re.I)  # of the label's last sentence, a few words


# A report's section heading owns the lists under it: "### 2. **BaseAgentAdapter** (617 lines)" then
# "**Key Responsibilities**:" and its items. The heading's subject is its words without numbering, emphasis,
# decoration, a parenthesis ("(617 lines)") or a trailing description ("**Frameworks System** - Methodology
# Integration"); a heading of these words only names no thing, and its lists belong to the one above it.
_SECTION_LINE = re.compile(r"^\s*(#{1,6})\s+(.*\S)\s*$")
_SECTION_WORDS = frozenset("""
key main core new more other additional final summary overview details detail findings finding highlights notes note
results result status current recent changes change updates update next steps step what was were is are has have
delivered done team consensus discovered hidden gems available important notable general introduction background
context conclusion conclusions recommendation recommendations analysis deep dive quick reference tldr the a an of and
for to in on with by how why where when who it its this that these those our your my all some
architecture structure directory principle principles implementation components component features feature
responsibilities patterns pattern approach strategy goals goal plan plans decisions decision design technology
technologies stack repository statistics example examples usage complete ready problem problems solution solutions issue issues
benefits benefit pros cons option options proposal proposals fix fixes evidence actions action understanding part
phase section sections question questions answer answers idea ideas review reviews verdict impact risks risk
""".split())
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[A-Z][.)]|step \d+:?)\s+", re.I)
_NAMED_THING = re.compile(r"`[^`\n]+`|\b[A-Za-z]*[a-z][A-Z]\w*|\b[\w-]+\.[a-z]{1,5}\b|[\w.-]+/[\w.-]+")


def _section_subject(heading: str, names: frozenset[str] = frozenset()) -> str:
    """What a section heading names ("BaseAgentAdapter", "Claude Session Adapter", "CodeMie CLI"), or "":
    a heading holding no name (code, a file, a mixed-case word, or a word the report writes capitalised
    inside its sentences, `names`) is the document's own part ("Revised Approach", "Benefits")."""
    text = _NUMBERING.sub("", _SYMBOLS.sub("", verbatim.sub(_EMPHASIS, "", heading)).strip()).strip()
    glossed = bool(re.match(r"[A-Z][\w-]*(?: [A-Z][\w-]*)*(?: \([^()]+\)| [-–—] \S)", text))  # "Migration System - …"
    if not (glossed or _NAMED_THING.search(text) or any(w.casefold() in names for w in re.findall(r"[A-Za-z]+", text))):
        return ""
    if text.endswith("?"):  # "Why Not BaseAgentAdapter?": a question, no subject
        return ""
    text = re.sub(r"\s*\([^()]*\)", "", text).strip().rstrip(":").strip()
    text = re.split(r"\s+[-–—]\s+", text, maxsplit=1)[0].strip()
    lead, colon, rest = text.partition(": ")
    if colon and re.search(r"\d", lead):  # "Phase 4: Documentation & Finalization": the document's part
        return ""
    if colon:
        text = rest.strip() if not _names_thing_words(lead) and len(rest.split()) <= 5 else lead
    if re.search(r"\d", text):  # "Step 1.3", "Option 2", "Phase 4.1 Summary": the document's parts, not a thing
        return ""
    return text if _names_thing_words(text) and len(text.split()) <= 5 else ""


_INNER_NAME = re.compile(r"(?<![\w'’.-])[a-z]+ ([A-Z][a-z]+)\b")  # "Parses Claude's JSONL format": a name


def _proper_names(lines: list[str]) -> frozenset[str]:
    """The words a report writes capitalised after a lower-case word, outside its headings: its names."""
    return frozenset(m.group(1).casefold() for line in lines if not _SECTION_LINE.match(line)
                     for m in _INNER_NAME.finditer(verbatim.sub(_EMPHASIS, "", line)))


def _names_thing_words(text: str) -> bool:
    words = [w.casefold() for w in re.findall(r"[\w'’.+/-]+", text)]
    return any(w not in _SECTION_WORDS and w not in STOPWORDS_EN_PLUS and not w.isdigit()
               and not re.fullmatch(r"\w{3,}ed", w) for w in words)  # "Revised Approach", "Recommended Actions"


def _owned(label: str, owner: str) -> str:
    """A list's label with the section that owns it marked before it (_OWNER), when the label does
    not name a thing of its own: "Key Responsibilities:" under "### 2. BaseAgentAdapter";
    "`health`:", "CodeMieCode (index.ts) - Main orchestrator:" or "Deleted (cleanup):" stays as it is.
    The note is made of the label's sentence alone, then says its owner (`_with_owner`)."""
    words = {w.casefold() for w in re.findall(r"\w+", label)}
    if (not owner or _NAMED_THING.search(label) or _STATE_LABEL.match(re.split(r"(?<=[.!?])\s+", label)[-1])
            or len(re.sub(r"\s*\([^()]*\)", "", label).split()) > 5
            or all(w.casefold() in words for w in re.findall(r"\w+", owner))):
        return label
    return owner + _OWNER + label


def _with_owner(note: Note, owner: str) -> Note:
    """A note cut from a list under a report's section says whose it is: "BaseAgentAdapter's Key
    Responsibilities: Installation management …", "Built-in Agent: Integration tests > Unit tests: …"."""
    label = note.text.split(": ", 1)[0] if ": " in note.text else ""
    phrase = re.sub(r"\s*\([^()]*\)", "", label).strip()
    if label and len(phrase.split()) <= 4 and re.fullmatch(r"[A-Za-z][\w&/ -]*", phrase) and owner[-1:].isalnum():
        mark = "'" if re.search(r"[^s]s$", owner) else "'s"  # "Best-Effort Heuristics'", "AgentCLI's"
        return replace(note, text=f"{owner}{mark} {note.text}")
    return replace(note, text=f"{owner}: {note.text}")


def _under(under: str, label: str) -> str:
    """A label under the one that says what was done to its items, its section's owner first:
    "Fixed TruncatedText Component" + "Fixes Applied: " + "Pad all lines to width:"."""
    owner, marked, label = label.rpartition(_OWNER)
    return owner + marked + under + label


def _flat(lines: list[str], j: int) -> bool:
    """The list from line j (or after one blank line) has no item indented under another."""
    if j < len(lines) and not lines[j].strip():
        j += 1
    depth = len(lines[j]) - len(lines[j].lstrip()) if j < len(lines) else 0
    while j < len(lines) and _LIST_MARK.match(lines[j]) and not lines[j].lstrip().startswith("#"):
        if len(lines[j]) - len(lines[j].lstrip()) > depth:
            return False
        j += 1
    return True


_TREE_ENTRY = re.compile(r"^((?:[│|]   |    )*)(?:├──|└──)\s+([^\s#→]+)")
_TREE_ROOT = re.compile(r"^\s*((?:~|\.{1,2})?/?[\w@.-]+(?:/[\w@.-]+)*/)\s*$")


def _tree_folders(text: str) -> dict[str, list[str]]:
    """The folders a file tree in the turn's code names ("src/agents/" over "├── codemie-code/" over
    "│   ├── ui/"), each under its own name: {"ui/": ["src/agents/codemie-code/ui/"], …}."""
    out: dict[str, list[str]] = {}
    for fence in _FENCE.finditer(text):
        root = ""
        stack: list[str] = []
        for line in fence.group(0).splitlines()[1:]:
            entry = _TREE_ENTRY.match(line)
            if entry is None:
                root = root or (m.group(1) if not stack and (m := _TREE_ROOT.match(line)) else "")
                continue
            if not root:  # a tree without its root says no folder's whole path
                break
            stack = stack[:len(entry.group(1)) // 4] + [entry.group(2)]
            if entry.group(2).endswith("/"):
                out.setdefault(entry.group(2), []).append(root + "".join(stack))
    return out


def _placed(label: str, tree: dict[str, list[str]]) -> str:
    """A label's folder said whole when the turn's file tree holds one folder of that name:
    "UI Components (ui/):" is "UI Components (src/agents/codemie-code/ui/):"."""
    def whole(m: re.Match[str]) -> str:
        paths = tree.get(m.group(1), [])
        return f"({paths[0]})" if len(paths) == 1 else m.group(0)
    return re.sub(r"\((\w[\w.-]*/)\)", whole, label) if tree else label


def _gathered(lines: list[str], tree: dict[str, list[str]] | None = None) -> list[str]:
    """In a working session, a short list is one sentence with what introduces it: "Updated
    the dark theme:" then "- `accent`: `#8abeb7`", "- `green`: `#b5bd68`" becomes "Updated the
    dark theme: `accent` is `#8abeb7`; `green` is `#b5bd68`." What introduces a list is a line
    ending in a colon, or a list item whose own items are indented below it ("spotter-dov.2 —
    Upgraded TranscriptRenderer" and what that task changed; a heading is no item). A run of
    three or more terse lines without punctuation (values pasted one a line) is one sentence
    the same way. An item alone tells nothing of what it is a value of.

    An item not gathered with its label (the list is long, its items are, or a blank line
    parts them: "**Deleted (cleanup):**", a blank line, "- DeltaWriter.ts (generic JSONL writer
    now)") says the label all the same when the label says what was done to the items or what
    state they are in (_STATE_LABEL): "Deleted (cleanup): DeltaWriter.ts (generic JSONL writer
    now)", not a fact about a file that is gone."""
    out: list[str] = []
    owners: list[tuple[str, int, bool]] = []  # the labels over the items here (innermost last), their items' depth,
    # and whether the innermost says what was done to them
    sections: list[tuple[int, str]] = []  # the report's headings over this line: their level and subject
    names = _proper_names(lines)
    i = 0
    while i < len(lines):
        bare = _bare(lines[i])
        section = _SECTION_LINE.match(lines[i])
        if section:
            level = len(section.group(1))
            sections = [s for s in sections if s[0] < level] + [(level, _section_subject(section.group(2), names))]
        owner = next((s for _, s in reversed(sections) if s), "")
        path = _PATH.join(s for _, s in sections if s)
        at = len(out)
        stripped = lines[i].lstrip()
        depth = len(lines[i]) - len(stripped)
        listed = bool(_LIST_MARK.match(lines[i])) and not stripped.startswith("#")
        if not stripped:
            owners = owners if _items_follow(lines, i + 1) else []
        else:
            owners = [o for o in owners if listed and depth >= o[1]]
        # an item cut from its list, under a label saying what was done to it
        under = owners[-1][0] + " " if owners and listed and depth == owners[-1][1] and owners[-1][2] else ""
        label = bare.endswith(":") and bool(bare[:-1].strip()) and not stripped.startswith(_NOT_PROSE)
        heading = _HEADING.match(lines[i]) or (None if stripped[:1] in "*_#" else _HEADING.match(_DECORATION.sub("", stripped)))
        if heading and not label and _items_follow(lines, i + 1):  # "## Next steps", "✅ **Zero TODOs**" over its list
            bare, label = heading.group(1).strip().rstrip(":") + ":", True
        elif (section and not label and sections[-1][1] and _items_follow(lines, i + 1)
              and _flat(lines, i + 1)):
            # "### **Claude Session Adapter** (442 lines)" over a plain list: what it names is the list's label
            bare, label = sections[-1][1] + ":", True
        if label and _OWNER not in under:
            bare = _owned(_placed(bare, tree or {}), owner)
        if label and stripped and _items_follow(lines, i + 1):
            first = i + 1 if lines[i + 1].strip() else i + 2
            says = (bool(under) or bool(_STATE_LABEL.match(re.split(r"(?<=[.!?])\s+", bare)[-1]))
                    or _OWNER in bare)  # or a section owns it: "AgentCLI's Main Commands: `health`: …"
            owners.append((_under(under, bare), len(lines[first]) - len(lines[first].lstrip()), says))
        j = i + 1 if label else i
        if label:  # "Completed tasks:", a blank line, then the list: the label is still the list's
            while (j < len(lines) and not lines[j].strip() and _items_follow(lines, j + 1)
                   and _titled_items(lines, j + 1)):
                j += 1
        parent = (not label and bool(_LIST_MARK.match(lines[i])) and not stripped.startswith("#")
                  and j + 1 < len(lines) and bool(_LIST_MARK.match(lines[j + 1]))
                  and len(lines[j + 1]) - len(lines[j + 1].lstrip()) > depth)
        if (not label and not parent and _BOLD_LEAD.match(stripped) and not _LIST_MARK.match(lines[i])
                and i + 1 < len(lines) and _LIST_MARK.match(lines[i + 1]) and not lines[i + 1].lstrip().startswith("#")):
            parent, depth = True, -1  # "**Option A (Simple):** Block `!` commands" over its pros and cons
        if parent:
            j += 1
        items: list[str] = []
        while j < len(lines) and (not parent or len(lines[j]) - len(lines[j].lstrip()) > depth) and (
                not lines[j].lstrip().startswith("#")) and (item := _item(lines[j], listed=label or parent)) is not None:
            if item:  # "" is an item cut inside code: the list goes on without it
                items.append(item)
            j += 1
        items = _same_said(items)
        if len(items) >= (1 if parent else 2 if label else 3):
            head = _under(under, bare if bare.endswith(":") else bare.rstrip(".") + ":") + " " if label or parent else ""
            group: list[str] = []
            for item in items:
                if group and len(head) + sum(len(g) + 2 for g in group) + len(item) > GATHER_CHARS:
                    out.append(head + "; ".join(group) + ".")
                    group = []
                group.append(item)
            out.append(head + "; ".join(group) + ".")
            out[at:] = [path + _SECTION + line for line in out[at:]] if path else out[at:]
            i = j
            continue
        mark = _LIST_MARK.match(lines[i]) if under else None
        out.append(lines[i][:mark.end()] + under + lines[i][mark.end():] if mark else lines[i])
        out[at:] = [path + _SECTION + line for line in out[at:]] if path else out[at:]
        i += 1
    return out


_DECORATION = re.compile(r"^[^\w\s*_#`'\"(\[/.~@$<-]+\s*")  # a leading ✅ before a bold title
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*|__)(?!.*\*\*\s*\S.*\*\*)(.+?)(?:\*\*|__)?\s*$")


_BOLD_LEAD = re.compile(r"^(?:\*\*[^*]+\*\*|__[^_]+__)\s*:?\s*\S")  # a bold title, then what it is


_ITEM_LABEL = re.compile(r"^(`[^`]+`|[\w./-]+):\s+(?=\S)")


def _same_said(items: list[str]) -> list[str]:
    """Items of one list saying the same of different names ("`executor.ts`: Receives logger as a
    constructor parameter", the same for `scheduler.ts`, `rollup.ts`) are one item naming them all."""
    out: list[str] = []
    names: dict[str, list[str]] = {}
    for item in items:
        m = _ITEM_LABEL.match(item)
        rest = item[m.end():] if m else ""
        if m and rest in names:
            names[rest].append(m.group(1))
            continue
        if m:
            names[rest] = [m.group(1)]
        out.append(item)
    return [f"{', '.join(names[item[m.end():]])}: {item[m.end():]}" if (m := _ITEM_LABEL.match(item))
            and len(names.get(item[m.end():], ())) > 1 else item for item in out]


def _titled_items(lines: list[str], j: int) -> bool:
    """The list from line j on names things: each item opens with a bold title ("1. **spotter-a0y.1**:
    Lifecycle hooks ...", "- **Phase 1-2:** Session metadata ...")."""
    items = []
    while j < len(lines) and _LIST_MARK.match(lines[j]):
        items.append(_LIST_MARK.sub("", lines[j].strip()))
        j += 1
    return bool(items) and all(_BOLD_LEAD.match(item) for item in items)


def _items_follow(lines: list[str], j: int) -> bool:
    """A list item starts at line j, or after one blank line."""
    if j < len(lines) and not lines[j].strip():
        j += 1
    return j < len(lines) and bool(_LIST_MARK.match(lines[j])) and not lines[j].lstrip().startswith("#")


_AUXILIARY = re.compile(r"\b(?:is|are|was|were|be|has|have|had|does|do|did|should|must|will|would|can|could)\b", re.I)


def _bare(line: str) -> str:
    return _SYMBOLS.sub("", verbatim.sub(_EMPHASIS, "", _LIST_MARK.sub("", line.strip()))).strip()


def _item(line: str, listed: bool) -> str | None:
    """A line as one item of a gathered list, or None when it is none: under a label, a list
    item of at most GATHER_ITEM_WORDS words; else a terse line of a pasted list."""
    if not line.strip() or line.lstrip().startswith(_NOT_PROSE) and not _LIST_MARK.match(line):
        return None
    if listed != bool(_LIST_MARK.match(line)):
        return None
    bare = _bare(line).rstrip(".;,")
    size = len(bare.split())
    if bare.count("`") % 2 or bare.count("(") != bare.count(")") or bare.count("[") != bare.count("]"):
        return "" if listed and size <= GATHER_ITEM_WORDS else None
    if not bare or bare.endswith(":") or size > (GATHER_ITEM_WORDS if listed else _TERSE_WORDS):
        return None
    if not listed and (bare[-1:] in "!?…" or size < 2 or not _specific(bare) or not re.search(r"[A-Za-z]{3}", bare)):
        return None  # a pasted value has a name and a value ("user bg 343541"); a status bar or log line is none
    pair = _PAIR.match(bare)
    value = bare[pair.end():] if pair else ""
    key = pair.group(1).casefold() if pair else ""
    if key in DIRECTING or key in PROCESS or key in ADVICE:  # "Search: `x`" says what to do, not what search is
        return bare
    if (pair and len(value.split()) <= 4 and not _AUXILIARY.search(value)  # "`accent`: `#8abeb7`" -> "`accent` is `#8abeb7`"
            and (pair.group(1).startswith("`") or re.search(r"[`\d]|\w[./]\w", value))):  # "Pros: Simple, safe" is a label
        return f"{pair.group(1)}{pair.group(2)} is {value}"
    return bare


def _unwrapped(lines: list[str]) -> list[str]:
    """A hard-wrapped paragraph is one line again: a line that goes on in lower case after a
    line ending mid-sentence continues it ("Invalid themes no longer crash the" / "app.")."""
    out: list[str] = []
    for line in lines:
        bare = line.strip()
        if (out and bare[:1].islower() and len(out[-1].strip()) >= 60  # wrapped at a column, not a list of lines
                and not out[-1].rstrip().endswith((".", "!", "?", ":", ";"))
                and not out[-1].lstrip().startswith(_NOT_PROSE) and not _LIST_MARK.match(line)):
            out[-1] = out[-1].rstrip() + " " + bare
        else:
            out.append(line)
    return out


# A sub-agent's prompt tells it what to do ("Create a types/ directory with: …", "Bisect the 14
# commits …", "Return a concise summary"): what it made or found, it reports. A sentence that
# states a fact ("The files are in `types/`", "Our API returns JSON") opens with its subject.
_STATES = re.compile(r"^(?:(?:the|this|that|these|those|it|its|it's|our|we|they|their|there|all|each|both|every|"
                     r"no|some|most|an?)\b|[`/~@\"']|\S+ (?:is|are|was|were|has|have|had|uses|lives|runs|holds|"
                     r"contains|returns|needs|depends)\b)", re.I)


def _instructs(sentence: str) -> bool:
    return not _STATES.match(_SYMBOLS.sub("", _LIST_MARK.sub("", sentence.strip())))


# where the work stands, said by git or by whoever ran it: never what the next session needs
_GIT_STATE = re.compile(
    r"^(?:(?:now|currently|still|we're|we are|i'm|i am|you're|you are)\s+)?on (?:the )?(?:branch|main|master)\b|"
    r"^(?:switched to|created|checked out) (?:a )?(?:new )?branch\b|^head is (?:now )?at\b|"
    r"\bworking (?:tree|directory|copy) (?:is )?(?:now |still )?clean\b|^nothing (?:added )?to commit\b|"
    r"^your branch is (?:up to date|ahead|behind)\b|^(?:already|everything) up[- ]to[- ]date\b|"
    r"\b\d+ files? changed\b|\b\d+ insertions?\(\+\)|"
    r"\b(?:was|were|is|are|been|got)\s+(?:already\s+|now\s+)?(?:committed|pushed|staged)\b|"
    r"\b(?:is|are) now (?:un)?blocked\b|\b(?:running|runs|ran|builds|compiles) clean(?:ly)?\b", re.I)
_COUNTED = re.compile(r"\b\d+ (?:new |total |more |passing |failing |[A-Z]\w+ )?(?:[a-z]+ )?(?:tests?|doctests?|specs?|"
                      r"failures?|errors?|warnings?|assertions?|suites?)\b")
_PASSING = re.compile(r"\b(?:all )?(?:pass(?:es|ed|ing)?|green|0 failures|no (?:issues|failures|errors)|clean)\b", re.I)


def _status_line(sentence: str) -> bool:
    """Git's or a tool's account of where the work stands: "On branch `refactor` now.",
    "Working tree clean", "3 files changed", "Spotter-fum.2 is now unblocked.", test counts
    ("6 new builder tests, 4 controller tests, 1 LiveView test.", "65 tests + 14 doctests, 0
    failures"), a status bar pasted ("880 ↓68k R29394k W3499k 22.966 73.5% ...")."""
    bare = re.sub(r"`([^`]*)`", r"\1", sentence)
    size = len(bare.split())
    if size <= _STATUS_WORDS and _GIT_STATE.search(bare):
        return True
    counted = len(_COUNTED.findall(bare))
    if size <= 24 and (counted >= 2 or counted and _PASSING.search(bare)):
        return True
    numeric = [t for t in re.sub(r"`[^`]*`", " ", sentence).split() if re.search(r"\d", t)]
    return len(numeric) >= 4 and len(numeric) * 2 >= size and not re.search(r"#[0-9a-fA-F]{3,8}\b", sentence)


# a finding without its content: what was found, checked or is there, but not what it is
_CHECKED = re.compile(r"^(?:good|great|ok(?:ay)?|perfect|nice|excellent|alright|right)[,!.]\s+(?:so,?\s+)?(?:only|no other|"
                      r"none of|nothing else|no more|no remaining|just)\b", re.I)  # "Good, only config.ts uses `__dirname`."
_VAGUE = re.compile(r"\b(?:has|have|had|there (?:is|are|was|were)|needs?|found|finds|shows?) (?:some |a few |several |many |"
                    r"more |other |additional |existing |various |a couple of |an? (?:existing |other )?)?"
                    r"(?:more |other |additional |existing |some )?(?:\w+ )?(?:properties|issues|problems|changes|things|logic|"
                    r"fields|methods|options|places|errors|differences|cases|parts|functions|features|settings|stuff|"
                    r"details|bits)\b(?! (?:like|such as|including|named|called)\b)", re.I)
_DISCOVERED = re.compile(r"\b(?:is|was|are|were) an? (?:\w+ )?(?:refinement|issue|bug|problem|finding|follow-up|followup) "
                         r"(?:discovered|found|noticed|spotted|identified)\b", re.I)
_CLEAR_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|so|ah|i see),?\s+)?(?:the (?:issue|problem|bug|cause|fix|reason|error)|it|this) "
                         r"(?:is|was|seems|looks) (?:now )?(?:clear|obvious|simple|straightforward)(?: now)?\s*(?:[—–:-]+|\.)\s*",
                         re.I)  # "The issue is clear — <what it is>": what it is


def _thin(sentence: str) -> bool:
    """A finding that says something was found or is there without what: "The MarkdownTheme
    interface has more properties now.", "There is existing logic for scanning history.",
    "Spotter-fum.5 is a refinement discovered during testing.", "Good, only config.ts uses
    `__dirname`." (the result of a search, said between two steps of it)."""
    if _CHECKED.match(sentence) or _DISCOVERED.search(sentence):
        return True
    bare = re.sub(r"`[^`]*`", "", sentence)
    return (len(sentence.split()) <= 12 and bare == sentence and ":" not in sentence and "(" not in sentence
            and bool(_VAGUE.search(sentence)))


# the agent offering what it could do next ("I can explore: Built-in LangGraph agent …; …", "If you'd like, I
# could also review …"): no fact of the project
_OFFERED = re.compile(r"^(?:(?:if you(?:'d| would)? (?:like|want)|if (?:that|this) helps|(?:want|need) to dive deeper[^?]*\?)"
                      r"[,\s]*)?(?:i|we) (?:can|could) (?:also |further |then )?(?:explore|dive|look|help|investigate|walk|"
                      r"show|explain|go|continue|proceed|review|check|dig|elaborate|expand|provide|assist)\b", re.I)
# a line of `git log` ("3243610 - Expand conversation sync tests: …"): git keeps it
_COMMIT_LINE = re.compile(r"^`?[0-9a-f]{7,12}`?\s+[-–—:]\s+\S")
# a reference to numbered steps the note does not say ("Steps 1-5 assume manual execution.")
_NUMBERED_REF = re.compile(r"^(?:steps?|tasks?|items?|points?)\s+\d+(?:\s*[-–,&]\s*\d+)*\s+(?![(:])", re.I)


def _note(sentence: str, turn: Turn) -> Note | None:
    if turn.work and turn.role == "assistant" and (
            _OFFERED.match(sentence) or _COMMIT_LINE.match(sentence)
            or _NUMBERED_REF.match(sentence) and len(sentence.split()) <= 8 and not re.search(r"[`/]", sentence)):
        return None
    if turn.delegated and _instructs(sentence):
        return None  # the agent's task for a sub-agent, not the user's request nor a fact
    if turn.work and _status_line(_SYMBOLS.sub("", sentence)):
        return None
    if turn.work and _CLEAR_LEAD.match(sentence):
        sentence = upper_first(_CLEAR_LEAD.sub("", sentence, count=1))
    if turn.work and _thin(sentence):
        return None
    if len(sentence) > MAX_SENTENCE_CHARS:
        sentence = sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + "…"
    if turn.work and turn.role == "assistant" and _working_step(sentence):
        sentence = _after_narration(sentence)  # "I'm going to X first: <what was decided>" keeps what follows
        if not sentence:
            return None
    sentence = _strip_chatter(sentence, turn)
    if sentence and not turn.work:
        sentence = compact(sentence)
    if sentence and turn.role == "user":
        sentence = without_anger(sentence)
    if not sentence or APOLOGY.search(sentence) and len(sentence.split()) < 12:
        return None
    speakers = {turn.speaker.casefold(), turn.other.casefold()}
    words = [w for w in content_words(sentence) if w not in _COMMON and (turn.work or w not in speakers)]
    named = any(w[:1].isupper() and not _is_name(w.casefold(), speakers) for w in _WORD.findall(sentence)[1:])
    timed = bool(_RELATIVE.search(sentence)) and any(w not in _COMMON for w in content_words(_RELATIVE.sub("", sentence)))
    ruled = turn.work and turn.role == "user" and is_rule(sentence)  # "Don't overcomplicate.": short, and a rule
    if len(words) < MIN_CONTENT_WORDS and not (words and (_specific(sentence) or named or timed or ruled)):
        return None
    if _REACTION.match(sentence) and not _specific(sentence):  # "Sounds like a blast!": the listener's echo
        return None
    if not turn.work and keeps_company(sentence):
        return None
    if len(words) < 4 and _PRONOUN_LEAD.match(sentence):  # "It was so powerful": says little without its context
        return None
    if sentence.endswith(("?", "？")):
        first = _WORD.match(sentence)
        opener = re.sub(r"(\w)\1{2,}", r"\1", first.group(0).casefold()) if first else ""  # "Sooo, why ..."
        if first is None or opener in _QUESTION_OPENERS or sentence.endswith("？"):
            return None
        if turn.work and (_ASKS.search(" ".join(sentence.split()[:4])) or _TAG_QUESTION.search(sentence)
                          or _INVERTED.search(sentence) or not _REPORTS.search(sentence)):
            return None  # "Sooo, why are we using X?", "ready to merge?": it asks ("scrolling still fails?" reports)
    elif turn.work and "?" in sentence:  # "`runSingleShotMode()` doesn't do it (maybe intentional?)."
        return None
    if turn.work and turn.role == "assistant" and _working_step(sentence):
        return None
    if sentence.endswith(":") or _code_like(sentence):  # a label introducing a list, or a code/log line
        return None
    if turn.work and _specimen(sentence):  # "Italic item with a link.": the sample the user asked to see rendered
        return None
    if turn.work and (_IF_SO.match(sentence) or _ASKING.match(sentence)):
        return None  # "If that's the case, it's a VS Code bug": which case, the turn before said; a question without "?"
    unglossed = re.sub(r"\s*\([^()]*\)", "", sentence).split()  # "`high` → `accent` (most prominent)."
    if turn.work and len([t for t in unglossed if t not in _ARROWS]) <= 3 and any(a in unglossed for a in ("→", *_ARROWS)):
        return None  # "`minimal` → `borderMuted`.": a mapping without what it maps
    if turn.work and (sentence.count("`") % 2 or sentence.count("(") != sentence.count(")")):
        return None  # a piece of a line cut inside code or a parenthesis: no whole sentence
    if _CUT_OFF.search(sentence):
        return None  # "Gray levels: `#303030` (darkGray),": the turn stopped mid-list (interrupted), no whole sentence
    core = turn.role == "user" and (
        is_identity(sentence)
        or ruled)
    size = word_count(sentence)  # Chinese has no spaces between its words
    chinese = size > len(sentence.split())  # the English cues below (a code span, "because", a verb's -ed) say nothing
    if turn.work and turn.role == "assistant" and not (_specific(sentence) or _MIXED_CASE.search(sentence)
                                                       or _BECAUSE.search(sentence) or chinese):
        return None  # "The TS errors are config issues.": the agent's finding names the thing it is about, or why
    if turn.work and not core and size < MIN_WORK_WORDS and not (size >= 3 and _specific(sentence)):
        return None  # "Stage and commit.": a fragment of a working session tells the next one nothing
    if turn.work and not core and not chinese and (sentence.count("\\n") >= 2
                                   or size <= 7 and not _VERBISH.search(sentence)
                                   and not re.search(r"[`/_]|\w\.\w|(?<![A-Za-z])\d", sentence)
                                   and not re.search(r"[,;]", sentence)):
        return None  # a log pasted with its escapes, or no clause at all ("E2E testing checklist at the end.")
    sentence = verbatim.sub(_INTENSIFIER, r"\1 ", verbatim.sub(_FILLER_INSIDE, "", sentence))  # never in `just check`
    if turn.work and turn.role == "user" and not core:
        asked = _request(sentence)
        if asked is None:
            return None
        sentence = asked
    if not turn.work:
        sentence = verbatim.sub(_ELIDED, _with_i, sentence, count=1)
    text, subject = _third_person(sentence, turn)
    text = resolve_dates(text, _day(turn.time))
    text = upper_first(text)  # "registry.test.ts …", "fe5d0ee …" stay as said
    if not text.endswith((".", "!", "?", "…", "。", "！", "？")):
        text += "."
    return Note(text, turn, core, subject, content_words(text))


def _echoes(note: Note, said: Turn) -> bool:
    """Between people, a note that says again what the other just said, with at most one word of its
    own ("Mixed emotions are rough!" after "Mixed emotions - excited but also a bit anxious", "We rock
    as a team!"): what it is about is the other's note. After a question it is an answer ("Gina has
    been only to Rome once."), and a name or a number of its own tells something."""
    if re.search(r"[?？]\s*$", said.text.strip()):
        return False
    spoken = {n.casefold() for n in (note.turn.speaker, note.turn.other) if n}
    heard = {stem(w) for w in content_words(said.text)}
    own = {w for w in concrete(note.words) - spoken if stem(w) not in heard}
    names = {w.casefold() for w in re.findall(r"(?<=\s)[A-Z][\w'’]*", note.text)}
    return len(own) <= 1 and not any(_specific(w) or w in names for w in own)


# a sentence that stops on a comma, a semicolon or a dash: cut off where the turn (or its line) stopped
_CUT_OFF = re.compile(r"(?:,|;|\s[-–—])\s*$")


# a casual sentence that drops its "I": "Dyed my hair last week", "Just been helping some friends"
_ELIDED = re.compile(r"^\s*(?:(?:just|finally|recently|also)\s+)*(?:(?P<been>been)|(?P<did>\w+ed|got|went|made|took|bought|"
                     r"found|saw|met|won|had|gave|built|wrote|sold|tried)(?=\s+(?:my|a|an|the|some|our|this|these|that|"
                     r"to|\d+)\b))\b", re.I)


def _with_i(m: re.Match[str]) -> str:
    return "I've been" if m.group("been") else "I " + m.group("did").lower()


# The user's requests in a working session (the verbs: steps.py).
_LEADING_FILLER = re.compile(r"^(?:(?:ok(?:ay)?|alright|all right|so|then|well|cool|perfect|nice|yes|yeah|hm+|please|"
                             r"let's|lets|let us|also|instead|now|next)\b[,!.]*\s+)+(?=[a-z])", re.I)
# Claude Code's mention of a sub-agent the prompt is for ('@"solution-architect (agent)" analyze …', '@agent-x …')
_AGENT_MENTION = re.compile(r'^@(?:"[^"\n]{1,80}\(agent\)"|agent-[\w-]+)\s+')
# the user telling the agent they changed something, without what: "I made some additional updates to the README"
_VAGUE_CHANGE = re.compile(r"^i(?:'ve| have)? (?:made|did|pushed|added|applied) (?:some|a few|a couple of|a bit of)\s+"
                           r"(?:(?:additional|more|small|minor|further|other|quick)\s+)?(?:updates?|changes?|edits?|tweaks?|"
                           r"fixes|modifications?)\b(?:\s+(?:to|in|on)\s+(?:the\s+)?\S+)?[.!]*$", re.I)
# the user leaving a step to the agent: "You can review …", "Feel free to look …"
_LEAVE = re.compile(r"^(?:you can|you could|you may|you might want to|feel free to)\s+(?:also\s+)?", re.I)
# a short reply whose subject was the other's turn: "yes need to be fully clean", "should be dimmer"
_SUBJECTLESS = re.compile(r"^(?:needs? to|has to|have to|should|must|shall|would|could|can)\b", re.I)


def _request(sentence: str) -> str | None:
    """A user's sentence in a working session as a note's text: a request to make something
    said as "The user asked to …", a request for a step of the work dropped (None), any
    other sentence as it is."""
    if sentence.startswith("/"):  # "/compact and continue with the remaining tasks": a command to the agent
        return None
    if re.search(r"\b(?:here in (?:the |this )?chat|in this chat|here in the conversation)\b", sentence, re.I):
        return None  # "write some markdown here in chat": something to see in that session, not to make
    sentence = _AGENT_MENTION.sub("", sentence) or sentence  # '@"solution-architect (agent)" analyze …': to whom
    if _VAGUE_CHANGE.match(sentence):
        return None  # what they changed, the files say; the next session learns nothing from it
    sentence = _LEADING_FILLER.sub("", sentence) or sentence  # "ok write markdown, ..." asks as "write markdown"
    first = _WORD.match(sentence)
    verb = first.group(0).casefold() if first else ""
    if verb in DIRECTING and _specimen(sentence[first.end():] if first else ""):
        return None  # "write markdown, including code, tables, lists nested": a sample to look at
    if re.search(r"\b(?:via|in|with|using) (?:bash|the shell|a shell|the terminal)\b", sentence, re.I):
        return None  # "sleep 5 seconds via bash": a command to run then
    if _SUBJECTLESS.match(sentence) and (len(sentence.split()) < 8 and not _specific(sentence)
                                         or len(sentence.split()) < 5):  # "Should be 8ABeB7.": the value of what?
        return None  # "Need to be fully clean.": of what, the question before said
    if verb in PROCESS or any(first_word(c) in PROCESS for c in re.split(r"[,;]\s*", sentence)[1:]):
        return None  # "I undid your changes, try again": what to do next in that session
    if (leave := _LEAVE.match(sentence)) and first_word(sentence[leave.end():]) in PROCESS:
        return None  # "You can review the existing commit messages using git log for examples": a step left to it
    if verb in DIRECTING and first is not None and first.start() == 0:
        return f"I asked to {lower_first(sentence)}"
    return sentence


# a reaction to what the other said, telling nothing new
_REACTION = re.compile(
    r"^(?:sounds|sound|seems|looks) (?:like|great|good|fun|amazing|awesome|lovely|wonderful)|^(?:so |really )?"
    r"(?:glad|happy|proud|sorry|excited|thrilled) (?:to hear|for|of|that|you)|^can't wait|^(?:i )?(?:love|loved) "
    r"(?:that|this|it|the way|hearing|how)|^(?:that's|that is|that was|it's|it is|what an?|how) (?:so |really |very )?"
    r"(?:great|awesome|amazing|cool|nice|wonderful|sweet|lovely|fantastic|incredible|inspiring|beautiful|"
    r"impressive|fun|exciting|a great|an amazing|an awesome|a wonderful)\b|^good (?:for|luck|job)|^keep (?:it up|going)|"
    r"^(?:i'm|i am) (?:so )?(?:glad|happy|proud|sorry|thrilled)|^you (?:should be|must be|deserve)|^take care", re.I)
_RUNNING = re.compile(r"^(?:`[^`]+`|the (?:build|tests?|suite|linter|check))\s+(?:is|are) (?:now )?(?:running|building|"
                      r"compiling|in progress)\b", re.I)  # "`npm run build` is running now to catch ..."
# the machine's state at that moment, not the project's: "Port 8080 is in use.", "There's already a node
# process on 8080.", "The dev server is already running."
_MOMENT = re.compile(r"\b(?:port|address)\s+`?:?\d+`?\s+(?:is\s+)?(?:already\s+|still\s+)?(?:in use|taken|busy|occupied)\b|"
                     r"\bthere(?:'s| is) (?:already |still )?(?:an?|another) [\w.-]+ (?:process|server|instance)\b"
                     r"(?: (?:running|listening))? on\b|\b(?:is|are) (?:already|still) running\b|\bEADDRINUSE\b|"
                     r"\b(?:is|are) (?:still |now )?waiting for (?:input|confirmation|a response|user input|the user)\b", re.I)
_NEEDS = re.compile(r"^(?:so,? )?(?:(?:i|we) )?(?:still |also )?need to (?!check|look|read|see|find|investigate|explore|"
                    r"examine|verify|wait|run|test|understand|figure|update|fix|add|make|get|do|go|try)\w+\b[^`]*`", re.I)
_LET_ME = re.compile(r"(?:^|[,;:—–-]\s*)let me\b", re.I)
_GIVEN = re.compile(r"^(?:since|because|as|given that|now that|once)\b[^,;:]{3,120},[”\"']?\s+", re.I)
_VERBISH = re.compile(r"\b(?:is|are|was|were|be|been|should|must|will|would|can|could|has|have|had|does|do|did|"
                      r"isn't|aren't|doesn't|don't|won't|can't|\w{3,}(?:es|ed))\b", re.I)


def _after_narration(sentence: str) -> str:
    """What a narrating sentence says after its colon, when that is a sentence of its own."""
    looking = re.match(r"(?i)^(?:now |so )?looking at\b[^,:]{0,60},\s+", sentence)  # "Looking at this, X is Y"
    head, colon, tail = ("", ", ", sentence[looking.end():]) if looking else sentence.partition(": ")
    tail = tail.strip()
    if not colon or len(tail.split()) < MIN_WORK_WORDS or not _VERBISH.search(tail) or _working_step(tail):
        return ""
    if first_word(tail) in PROCESS or first_word(tail) in ADVICE:  # "Check GPU acceleration: Search: `x`; Try ...": steps
        return ""
    return upper_first(tail)


# a piece of work said to be finished: "The Phase 4.1 proposal is now complete and ready for implementation ..."
_COMPLETE = re.compile(r"^(?:the |this |that |our |my |both |all )?[^,;:]{0,60}?\b(?:is|are|has been|have been) (?:now )?"
                       r"(?:fully |all )?(?:complete|completed|ready|done|finished|in place|up to date)\b"
                       r"(?!\s+(?:when|if|once|because|since|unless|but|only|before|after)\b)", re.I)


def _working_step(sentence: str) -> bool:
    """The agent narrating a step, telling itself the next one ("Add the route to the
    router."), or reporting tool status ("All 43 tests pass", "gqc.6 done and pushed")."""
    sentence = sentence.replace("’", "'")
    if _NEEDS.match(sentence):  # "I need to use `:auto` mode": the fix, not a step
        return False
    if _NARRATION.match(sentence) or _STEP.match(sentence) or _LET_ME.search(sentence) or _RUNNING.match(sentence):
        return True
    given = _GIVEN.match(sentence)  # "Since no custom commands are available, I'll decompose …": the step, its reason
    if given and _NARRATION.match(sentence[given.end():]):
        return True
    size = len(_FILLER_INSIDE.sub("", sentence).split())  # "That's just the notification ...": "just" says nothing
    if size <= _STATUS_WORDS and _MOMENT.search(sentence):
        return True
    if size <= _STATUS_WORDS and _COMPLETE.match(sentence):
        return True
    return (size <= _STATUS_WORDS and bool(_STATUS.search(sentence)) or size <= 10 and bool(_DONE.search(sentence))
            or size <= 10 and bool(_FINE.search(sentence)) and not _specific(sentence))


_PATH_TOKEN = re.compile(r"^['\"`(]?(?:/|~/|\./|https?://|[A-Za-z]:\\)")
_JSON_PAIR = re.compile(r'"[\w-]+":\s*["{\[\d]')
_ARROWS = frozenset({"->", "=>", "<-", "<->"})  # "tools -> core/tools": prose's arrows
_CODE_CHARS = re.compile(r"[{}();=<>$\\]")  # brackets are prose's too: markdown, markup, citations


# the words of a sample of formatting ("Bold item with `inline code`.", "Nested item 2.1", "~~Strikethrough
# text~~ and <u>underlined text</u>"): a demo of how text renders says nothing about the project
_SPECIMEN_WORDS = frozenset("""
bold italic italics underline underlined strikethrough strike text item items nested double triple heading headings
subheading header level link links url urls code inline block blocks blockquote blockquotes quote quotes list lists
bullet bullets numbered ordered unordered table tables row rows column columns cell cells rule rules horizontal
formatting format formatted markdown sample samples example examples demo placeholder lorem ipsum dolor sit amet foo
bar baz qux hello world first second third fourth another more back sub step steps combination mixed emphasis
paragraph paragraphs line lines multiple span spans nest element elements feature features https http www com org
including include etc various anything everything all
""".split())
_MARKUP = re.compile(r"~~\w|<(?:u|s|b|i|em|strong|mark|sub|sup|del|ins|kbd)>", re.I)


# a sentence about the one before it ("If that's the case, ...", "If yes → ..."), or asking without a "?"
_IF_SO = re.compile(r"^(?:if (?:that's|that is|this is)\b|if (?:so|yes|not)\s*[,→:-]|in that case\b)", re.I)  # not "If not set, ..."
_ASKING = re.compile(r"^(?:do|does|did|is|are|can|could|should|would|will|shall)\s+(?:it|we|you|i|this|that|there|they)\s"
                     r"(?!.*\b(?:because|since)\b)", re.I)


def _specimen(sentence: str) -> bool:
    """A sentence made only of the words of formatting and placeholders (two at least), or
    holding markup outside code ("You can also use ~~strikethrough~~ and <u>underlined</u>")."""
    if _MARKUP.search(re.sub(r"`[^`]*`", "", sentence)):
        return True
    words = [w.casefold().strip("'’") for w in re.findall(r"[A-Za-z][A-Za-z'’]*", sentence)]
    content = [w for w in words if is_content(w) or w in _SPECIMEN_WORDS]
    return len([w for w in content if w in _SPECIMEN_WORDS]) >= 2 and all(w in _SPECIMEN_WORDS for w in content)


def _code_like(sentence: str) -> bool:
    """Code or a log line rather than a sentence: most of its words are code, or a long
    code span (a short one naming a path or symbol is fine)."""
    tokens = sentence.split()
    paths = sum(len(t) for t in tokens if _PATH_TOKEN.match(t))
    if paths > 0.6 * len(sentence):  # a pasted path or URL alone
        return True
    if _JSON_PAIR.search(sentence):  # a record pasted: '"type":"message","timestamp":...'
        return True
    codey = sum(1 for t in tokens if t not in _ARROWS and _CODE_CHARS.search(t.strip("`").rstrip(",;.")) or t.startswith("--"))
    spans = re.findall(r"`([^`]*)`", sentence)
    return codey * 2 > len(tokens) or any(len(span) > 60 and not _one_call(span) for span in spans)


# `handle_event("transcript_view_toggle_tool_result_group", params, socket)`: a function and its arguments
_CALL = re.compile(r"^[A-Za-z_][\w.:!?]*\((?:[^(){};=|&]|\([^(){};=|&]*\))*\)$")


def _one_call(span: str) -> bool:
    """A code span that is one call (a name and its arguments, no statement, block or
    pipeline in it) names a symbol however long its arguments are."""
    return len(span) <= 120 and bool(_CALL.match(span.strip()))


def _full_chinese(note: Note) -> bool:
    """A whole Chinese sentence of a working session: no code span, capital or number marks
    it specific the way English shows it ("建议把常规发布窗口改到周二到周四的上午。")."""
    return note.turn.work and word_count(note.text) >= 8 + len(note.text.split())


def _specific_undated(note: Note) -> bool:
    """Specific for more than the date a relative time was resolved to: "It was fun on 7 May
    2023." ("yesterday") is no more specific than "It was fun."."""
    undated = OWN_DATE.sub("", note.text)
    if undated == note.text:
        return _specific(note.text)
    return _specific(undated) or len([w for w in content_words(undated) if w not in _COMMON]) >= 3


def _specific(sentence: str) -> bool:
    """A number, a path, an identifier or code: specific even when short."""
    return bool(re.search(r"\d|`|/|\w\.\w|_", sentence))


_LEAD = re.compile(r"^[^\w]*?([\w'’]+)([\s,!.…~:;-]*)")
_LEAD_PHRASE = re.compile(
    r"^(?:i see|i understand|got it|makes sense|no problem|of course|sounds good|good to see you|"
    r"nice to meet you|good to hear|by the way|to be honest|you know|i mean|i think so|i can see(?: that)?|"
    r"i noticed?(?: that)?|i found(?: that)?(?! out)|(?:good|nice|great) (?:catch|point|question|idea)|iiuc|afaict|imho|imo|"
    r"i hear (?:you|ya|that)|i get (?:it|you|that)|i feel you|you got that right|(?:you're|you are) (?:so )?right|"
    r"(?:it|that|they|you) (?:really |sure |totally |definitely )?(?:is|are|can|do|does|did)(?=[,!]))"
    r"\b[\s,!.…:;-]*", re.I)


def _strip_chatter(sentence: str, turn: Turn) -> str:
    """Drop leading interjections and vocatives ("Hey Mel!", "Wow,") and trailing vocatives."""
    names = {n.casefold() for n in (turn.other, turn.speaker) if n}
    names |= {n.split()[0] for n in names if n.split()}
    while True:
        sentence = verbatim.sub(_LEAD_PHRASE, "", sentence.lstrip())
        m = _LEAD.match(sentence)
        if m is None:
            return ""
        if inside(spans(sentence), m.start(1), m.end(1)):
            break  # "`just check` runs …": a name's word is no filler
        word = m.group(1).casefold()
        rest = sentence[m.end():]
        vocative = _is_name(word, names) and m.group(2).strip()[:1] in {",", "!"}
        following = _LEAD.match(rest)
        run_on = following is not None and (following.group(1).casefold() in FILLER or word in _CONJUNCTIONS
                                            or _is_name(following.group(1).casefold(), names))
        if word in FILLER and (m.group(2).strip() or not rest or run_on) or vocative:
            sentence = rest
            continue
        break
    sentence = verbatim.sub(_VOCATIVE_END, r"\1", sentence.strip())
    if sentence and all(not is_content(w.casefold()) for w in _WORD.findall(sentence)):
        return ""
    return sentence.strip()


_VOCATIVE_END = re.compile(r",\s*[A-Z][a-z]+\s*([!.?]*)\s*$")


def _is_name(word: str, names: set[str]) -> bool:
    return word in names or len(word) >= 3 and any(n.startswith(word) for n in names)


def _third_person(sentence: str, turn: Turn) -> tuple[str, str]:
    """First and second person made explicit with the speakers' names."""
    me, you = turn.speaker, turn.other
    subject = ""
    # "The user" is a description, not a name: "the user" inside a sentence (the note's first letter is raised)
    me_said, you_said = (_described(n) for n in (me, you))
    words = re.split(r"(\s+)", sentence)
    kept = spans(sentence)
    starts = [0]
    for w in words:
        starts.append(starts[-1] + len(w))
    frozen = [inside(kept, starts[k], starts[k + 1]) for k in range(len(words))]  # a word of a name or code
    out: list[str] = []
    i = 0
    while i < len(words):
        token = words[i]
        if frozen[i]:  # "`rm -rf ~/my dir`", "my_config": not the speaker's
            out.append(token)
            i += 1
            continue
        core, trail = split_punct(token)
        low = core.casefold().replace("’", "'")
        repl = None
        if low in ("i", "i'm", "i've", "i'll", "i'd", "i'm", "me", "myself", "my", "mine"):
            repl, subject = _person(low, me_said), subject or me
        elif you and low in _SECOND:
            if not (low == "you" and _generic_you(words, i)):
                repl, subject = _person(_SECOND[low], you_said), subject or you
        before = words[i - 2].casefold() if i >= 2 and not frozen[i - 2] else ""
        if repl is not None and low in ("i", "you") and before in _ASKING_AUX:  # "do you want" -> "does the user want"
            token = repl + trail
            if before in _AUX_THIRD:
                third = _AUX_THIRD[before]
                out[i - 2] = (third[:1].upper() if words[i - 2][:1].isupper() else third[:1]) + third[1:]
        elif repl is not None:
            token = repl + trail
            if low in ("i", "you"):  # "I really love" -> "Caroline really loves"
                said = list(words)
                agree(words, i, subject="I" if core == "I" else "you")
                words = [said[k] if frozen[k] else w for k, w in enumerate(words)]  # "I `run` it": code as said
        out.append(token)
        i += 1
    return "".join(out), subject  # "we" stays a group: its members are not known


_ASKING_AUX = frozenset({"do", "does", "did", "can", "could", "will", "would", "should", "shall", "may", "might", "must",
                         "are", "were", "have"})
_AUX_THIRD = {"do": "does", "are": "is", "were": "was", "have": "has"}  # "are you" -> "is Melanie"


def _described(name: str) -> str:
    return "the " + name[4:] if name.startswith("The ") else name


def _person(form: str, name: str) -> str:
    if form in ("my", "mine"):
        return name + "'s"
    if form in ("me", "myself"):
        return name
    if form == "i'm":
        return name + " is"
    if form == "i've":
        return name + " has"
    if form == "i'll":
        return name + " will"
    if form == "i'd":
        return name + " would"
    return name


def _generic_you(words: list[str], i: int) -> bool:
    """'you know', 'thank you', 'see you': not a person being talked about."""
    before = words[i - 2].casefold().strip(",.!") if i >= 2 else ""
    after = words[i + 2].casefold().strip(",.!?") if i + 2 < len(words) else ""
    return before in ("thank", "thanks", "see", "miss", "love", "bless") or after in ("know", "guys", "too")


# -- when ------------------------------------------------------------------------------------

_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7}
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "few": 3, "couple of": 2}
_RELATIVE = re.compile(
    r"\b(?:(?P<prep>since|until|till|from|by|before|after|on|in|of)\s+)?(?P<when>yesterday|today|tonight|tomorrow|"
    r"last night|this (?:morning|afternoon|evening)|(?:last|this|next) (?:week|weekend|month|year)|last (?P<weekday>mon|tue|"
    r"wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?|"
    r"(?P<count>\d+|an?|one|two|three|four|five|six|few|couple of) (?P<unit>days?|weeks?|months?|years?) ago|"
    r"(?P<which>last|this|next) (?P<mname>January|February|March|April|May|June|July|August|September|October|"
    r"November|December))\b", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
# a date a note says itself ("on 7 May 2023", "in June 2025", "the week before 8 May 2023", "in 2022")
OWN_DATE = re.compile(r"\b(?:\d{1,2} )?(?:January|February|March|April|May|June|July|August|September|October|"
                      r"November|December) \d{4}\b|\b(?:in|since|until|by|before|after) (?:19|20)\d\d\b")


_NAMES_A_TIME = re.compile(r"['’]s\b|\s+(?:was|is|will|has|had|would)\b")  # the time is the subject, not when


def _day(stamp: str) -> date | None:
    try:
        return date.fromisoformat(stamp[:10])
    except ValueError:
        return None


def spoken_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _month(day: date, delta: int) -> str:
    index = day.year * 12 + day.month - 1 + delta
    return f"{date(index // 12, index % 12 + 1, 1):%B %Y}"


def resolve_dates(text: str, day: date | None) -> str:
    """Relative times said against the turn's date: "yesterday" -> "on 7 May 2023",
    "last week" -> "the week before 8 May 2023", "last year" -> "in 2022"."""
    if day is None:
        return text

    def replace(m: re.Match[str]) -> str:
        prep, when = (m.group("prep") or ""), m.group("when").casefold()
        on = spoken_date(day)
        if m.group("mname"):  # "last June": the June before the turn's month; "this may break" is no month
            if not m.group("mname")[:1].isupper():
                return m.group(0)
            month = _MONTHS.index(m.group("mname").casefold()) + 1
            which = m.group("which").casefold()
            year = day.year - (which == "last" and month >= day.month) + (which == "next" and month <= day.month)
            said = f"in {m.group('mname').capitalize()} {year}"
        elif m.group("count"):
            count = int(m.group("count")) if m.group("count").isdigit() else _COUNTS.get(m.group("count").casefold(), 1)
            unit = m.group("unit").casefold()
            if unit.startswith(("day", "week")):
                said = f"on {spoken_date(day - timedelta(days=count * _UNITS[unit]))}"
            elif unit.startswith("month"):
                said = f"in {_month(day, -count)}"
            else:
                said = f"in {day.year - count}"
        elif m.group("weekday"):  # "last Saturday": the Saturday before the turn's day
            back = (day.weekday() - _WEEKDAYS.index(m.group("weekday").casefold())) % 7 or 7
            said = f"on {spoken_date(day - timedelta(days=back))}"
        elif when in ("yesterday", "last night"):
            said = f"on {spoken_date(day - timedelta(days=1))}"
        elif when in ("today", "tonight") or when.startswith("this ") and when.split()[1] in ("morning", "afternoon",
                                                                                              "evening"):
            said = f"on {on}"
        elif when == "tomorrow":
            said = f"on {spoken_date(day + timedelta(days=1))}"
        else:
            which, unit = when.split()
            if unit == "month":
                said = f"in {_month(day, {'last': -1, 'this': 0, 'next': 1}[which])}"
            elif unit == "year":
                said = f"in {day.year + {'last': -1, 'this': 0, 'next': 1}[which]}"
            else:
                said = f"the {unit} {({'last': 'before', 'this': 'of', 'next': 'after'})[which]} {on}"
        if prep:  # "since yesterday" -> "since 7 May 2023"
            said = f"{prep} {said.removeprefix('on ').removeprefix('in ')}"
        elif not text[:m.start()].strip() and _NAMES_A_TIME.match(text, m.end()):  # "Yesterday was fun" -> "7 May 2023 was fun"
            said = said.removeprefix("on ").removeprefix("in ")
        return said

    return verbatim.sub(_RELATIVE, replace, text)  # `git log --since yesterday` is no date
