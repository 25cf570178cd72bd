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
from dataclasses import dataclass, field

from .keywords import FILLER, content_words, is_content, keyphrases, phrases, stem

MAX_BLOCK_SENTENCES = 6  # a block of notes sharing a subject
MAX_BLOCK_WORDS = 80
MAX_THREAD_SENTENCES = 16  # a block of a conversation's consecutive notes
MAX_THREAD_WORDS = 240
MAX_SENTENCE_CHARS = 400
MIN_CONTENT_WORDS = 2

_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.M | re.S)
_DOTTED = re.compile(r"\w\.(?=\w)")
_DOT = "\ue000"  # a private-use character stands for a dot inside a name while sentences are cut
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#{1,6})\s+")
_WORD = re.compile(r"[\w'’]+")
_FILLER_INSIDE = re.compile(r"\s*(?::\)|:D|:\(|;\)|\b(?:really|just|totally|definitely|actually|absolutely|truly|"
                            r"basically|literally|super|pretty much)\b)(?=[\s,.!?])", re.I)
_CONJUNCTIONS = frozenset({"so", "and", "but", "also", "then", "now", "btw", "plus", "anyway"})
_PRONOUN_LEAD = re.compile(r"^(?:it|that|this|they|those|these|he|she|there|which|what)\b", re.I)
_QUESTION_OPENERS = frozenset("""
what what's whats how how's why when where who whose whom which do does did is are was were am can could would will
should shall have has had any anything anyone got wanna want ever isn't aren't don't doesn't didn't won't wouldn't
can't couldn't shouldn't may might you u r right ok okay so and or hey
""".split())
# an agent announcing a look-around step: the step itself is in the tool calls, not worth a note
_NARRATION = re.compile(
    r"^(?:(?:ok(?:ay)?|now|first|next|then|great|good|perfect|alright|so)[,!.]?\s+)*"
    r"(?:let me|let's|i'll|i will|i'm going to|i am going to|i need to|we need to|i should|i'm|i am)\s+"
    r"(?:now\s+|first\s+|also\s+|quickly\s+|just\s+)*"
    r"(?:check|look|read|re-read|search|fetch|try|wait|run|verify|explore|see|examine|find|view|open|inspect|"
    r"review|investigate|understand|confirm|get|start|continue|take|grep|list|scan|make sure|double-check|"
    r"checking|looking|reading|searching|fetching|trying|waiting|running|verifying|exploring)\b", re.I)
_IDENTITY = re.compile(r"\b(?:my name is|i am an? |i'm an? |i work as|i live in|i'm from|i am from|years old|"
                       r"allergic to|i'm vegetarian|i'm vegan)", re.I)
_PREFERENCE = re.compile(r"\b(?:i prefer|my favou?rite|i always|i never)\b", re.I)
_RULE = re.compile(r"^(?:please\s+)?(?:always|never|don't|do not|from now on|make sure to)\b|\bfrom now on\b", re.I)
_NOT_IDENTITY = re.compile(r"\b(?:i'?m an? (?:bit|little|lot|huge|big|fan)|i am an? (?:bit|little|lot))", re.I)
# words that make a bad subject for a block (verbs and adverbs found everywhere)
_COMMON = frozenset("""
went go goes going gone made make makes making need needs needed call called want wants wanted feel feels felt
take took taken come came see saw seen know knew think thought said say says tell try tried use used using start
started put give gave find found keep kept work worked working help helped show showed learn learned mean meant
decided decide add added adds create created fix fixed update updated configure configured remove removed
implement implemented wire wired set sets run runs check checked needs can time times day days today yesterday week weeks month months year years last next new first recently lately
able always never ever often sometimes usually wanted lot great people person guy guys life world
""".split())

# "I <verb>" becomes "<name> <verb>s" for these common present-tense verbs
_PRESENT = frozenset("""
love like want need think know feel enjoy hope plan prefer use work live believe mean wish miss agree remember
understand play paint write teach study volunteer care find make take keep run own spend visit practice cook
read watch listen collect dance sing draw support suggest recommend
""".split())
_IRREGULAR = {"have": "has", "do": "does", "go": "goes"}
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


@dataclass
class Note:
    text: str
    turn: Turn
    core: bool = False
    subject: str = ""  # the person the sentence is about, when a speaker's name is its subject
    words: list[str] = field(default_factory=list)  # content words
    prompted_by: tuple[str, ...] = ()  # the question this answers, when it left no note of its own


@dataclass
class Block:
    notes: list[Note]
    key: str  # the stem of what the block is about ("" when alone)

    @property
    def refs(self) -> list[str]:
        """The turns the block says, each after the question it answers (when that said nothing itself)."""
        return list(dict.fromkeys(r for n in self.notes for r in (*n.prompted_by, n.turn.ref)))

    @property
    def time(self) -> str:
        return next((n.turn.time for n in self.notes if n.turn.time != "undated"), "undated")

    @property
    def text(self) -> str:
        return " ".join(dict.fromkeys(n.text for n in self.notes))

    @property
    def core(self) -> bool:
        return all(n.core for n in self.notes)


def distil(turns: list[Turn]) -> list[Note]:
    """The notes worth keeping of these turns, in order."""
    notes: list[Note] = []
    seen: dict[str, Note] = {}
    asked: Turn | None = None  # the last turn, when it asked and left no note
    for turn in turns:
        kept = [n for n in (_note(s, turn) for s in _sentences(turn.text)) if n is not None]
        if asked is not None and asked.speaker != turn.speaker and (not kept or len(turn.text.split()) <= 8):
            kept = _answered(asked, turn) or kept  # a short answer means something only with its question
        if kept and asked is not None and asked.speaker != turn.speaker:
            kept[0].prompted_by = (asked.ref,)
        asked = turn if not kept and re.search(r"[?？]\s*$", turn.text.strip()) else None
        best = min(range(len(kept)), key=lambda i: (-_weight(kept[i]), i), default=None)
        for note in (n for i, n in enumerate(kept) if i == best or n.core or _specific(n.text)):
            norm = " ".join(note.words)
            if norm in seen:  # said again (a later turn repeats it): one note
                continue
            seen[norm] = note
            notes.append(note)
    return notes


def _answered(asked: Turn, turn: Turn) -> list[Note]:
    """A short answer is a fact only with its question: "Where do the backups go?" "To
    glacier." is one note."""
    question = " ".join(_sentences(asked.text)[-1:])
    answer = _strip_chatter(" ".join(_sentences(turn.text)), turn)
    if not question or not answer or not content_words(answer) or len(answer) > MAX_SENTENCE_CHARS:
        return []
    q, _ = _third_person(_strip_chatter(question, asked) or question, asked)
    a, subject = _third_person(answer, turn)
    text = f"{q[:1].upper() + q[1:]} {a[:1].upper() + a[1:]}"
    text = text if text.endswith((".", "!", "?", "…", "。")) else text + "."
    return [Note(text, turn, False, subject, content_words(text))]


def _weight(note: Note) -> float:
    """How much a sentence tells: its content words, more for names, numbers and identifiers."""
    specific = sum(1 for w in re.findall(r"\S+", note.text)[1:] if w[:1].isupper() or _specific(w))
    return len(set(note.words)) + specific + (5 if note.core else 0)


def group(notes: list[Note], names: set[str], *, thread: bool = False) -> list[Block]:
    """Notes become blocks. In a work session, the notes sharing their main subject word
    (the one most notes of the batch mention), else consecutive notes about the same
    person. In a conversation between people (`thread`), consecutive notes: its thread of
    subjects, in order, in blocks of at most a paragraph's size."""
    lowered = {n.casefold() for n in names}
    df: Counter[str] = Counter()
    candidates: list[list[str]] = []
    for note in notes:
        keys = list(dict.fromkeys(stem(w) for w in note.words if _keyable(w, lowered)))
        candidates.append(keys)
        df.update(keys)
    blocks: list[Block] = []
    by_key: dict[tuple[str, bool], Block] = {}
    for note, keys in zip(notes, candidates):
        shared = [k for k in keys if df[k] >= 2]
        key = max(shared, key=lambda k: (df[k], -keys.index(k))) if shared else ""
        block = by_key.get((key, note.core)) if key and not thread else None
        if block is None and blocks and _continues(blocks[-1], note, key, thread):
            block = blocks[-1]
        if block is not None and _full(block, thread):
            block = None
        if block is None:
            block = Block([], key)
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


def _continues(block: Block, note: Note, key: str, thread: bool) -> bool:
    last = block.notes[-1]
    if thread:
        return last.core == note.core and note.turn.index - last.turn.index <= 3
    return (last.core == note.core and (last.subject or last.turn.speaker) == (note.subject or note.turn.speaker)
            and (not key or not block.key) and note.turn.index - last.turn.index <= 2)


def _full(block: Block, thread: bool) -> bool:
    sentences, size = (MAX_THREAD_SENTENCES, MAX_THREAD_WORDS) if thread else (MAX_BLOCK_SENTENCES, MAX_BLOCK_WORDS)
    return len(block.notes) >= sentences or sum(len(n.text.split()) for n in block.notes) >= size


def topic_phrase(blocks: list[Block]) -> dict[int, str]:
    """For each block (by index), its best key phrase among the batch's key phrases."""
    ranked = keyphrases([b.text for b in blocks])
    score = {p: s for p, s in ranked}
    out: dict[int, str] = {}
    for i, block in enumerate(blocks):
        speakers = {w.casefold() for n in block.notes for w in (n.turn.speaker + " " + n.turn.other).split()}
        options = [p for p in phrases(block.text)
                   if not all(w in _COMMON or w in speakers for w in p.split())]
        options = [" ".join([w for w in p.split() if w not in speakers and w not in _COMMON][-2:]) for p in options]
        options = [p for p in options if p]
        if block.key:
            keyed = [p for p in options if any(stem(w) == block.key for w in p.split())]
            options = keyed or options
        if options:
            out[i] = max(options, key=lambda p: (score.get(p, 0.0), -options.index(p)))
    return out


def _keyable(word: str, names: set[str]) -> bool:
    return word not in _COMMON and word not in names and not word.isdigit() and not word.endswith("ly")


# -- one sentence --------------------------------------------------------------------------


def _sentences(text: str) -> list[str]:
    from sentencex import segment

    text = _FENCE.sub(" ", text)
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("|", ">", "    ", "\t")) or line.startswith("<"):
            continue
        line = _LIST_MARK.sub("", line)
        language = "zh" if re.search("[\u3040-\u30ff\u4e00-\u9fff]", line) else "en"
        guarded = _DOTTED.sub(lambda m: m.group(0).replace(".", _DOT), line)  # Spotter.Telemetry.Otel is one word
        out.extend(s.strip().replace(_DOT, ".") for s in segment(language, guarded) if s.strip())
    return out


def _note(sentence: str, turn: Turn) -> Note | None:
    if len(sentence) > MAX_SENTENCE_CHARS:
        sentence = sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + "…"
    sentence = _strip_chatter(sentence, turn)
    if not sentence:
        return None
    words = [w for w in content_words(sentence) if w not in _COMMON]
    speakers = {turn.speaker.casefold(), turn.other.casefold()}
    named = any(w[:1].isupper() and not _is_name(w.casefold(), speakers) for w in _WORD.findall(sentence)[1:])
    if len(words) < MIN_CONTENT_WORDS and not (words and (_specific(sentence) or named)):
        return None
    if len(words) < 4 and _PRONOUN_LEAD.match(sentence):  # "It was so powerful": says little without its context
        return None
    if sentence.endswith(("?", "？")):
        first = _WORD.match(sentence)
        if first is None or first.group(0).casefold() in _QUESTION_OPENERS or sentence.endswith("？"):
            return None
    if turn.role == "assistant" and _NARRATION.match(sentence) and not re.search(r"\b(?:because|instead|so that)\b",
                                                                                sentence, re.I):
        return None
    core = (bool(_IDENTITY.search(sentence) or _PREFERENCE.search(sentence)) and not _NOT_IDENTITY.search(sentence)
            or turn.role == "user" and bool(_RULE.search(sentence)))
    decided = turn.role == "assistant" and _DECIDED.match(sentence)
    if decided:  # the agent's choice of how to proceed: "Let me fix it by ..." -> "<agent> decided to fix it by ..."
        sentence = "I decided to " + sentence[decided.end():]
    sentence = _FILLER_INSIDE.sub("", sentence)
    text, subject = _third_person(sentence, turn)
    text = text[:1].upper() + text[1:]
    if not text.endswith((".", "!", "?", "…", "。", "！", "？", ":")):
        text += "."
    if text.endswith(":"):
        text = text[:-1] + "."
    return Note(text, turn, core, subject, content_words(text))


def _specific(sentence: str) -> bool:
    """A number, a path, an identifier or code: specific even when short."""
    return bool(re.search(r"\d|`|/|\w\.\w|_", sentence))


_LEAD = re.compile(r"^[^\w]*?([\w'’]+)([\s,!.…~:;-]*)")
_LEAD_PHRASE = re.compile(
    r"^(?:i see|i understand|got it|makes sense|no problem|of course|sounds good|good to see you|"
    r"nice to meet you|good to hear|by the way|to be honest|you know|i mean|i think so)\b[\s,!.…:;-]*", re.I)
_DECIDED = re.compile(r"^(?:(?:now|first|next|then|so),?\s+)?(?:let me|let's|i'll|i will|i'm going to|i am going to)\s+",
                      re.I)


def _strip_chatter(sentence: str, turn: Turn) -> str:
    """Drop leading interjections and vocatives ("Hey Mel!", "Wow,") and trailing vocatives."""
    names = {n.casefold() for n in (turn.other, turn.speaker) if n}
    names |= {n.split()[0] for n in names if n.split()}
    while True:
        sentence = _LEAD_PHRASE.sub("", sentence.lstrip())
        m = _LEAD.match(sentence)
        if m is None:
            return ""
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
    sentence = re.sub(r",\s*[A-Z][a-z]+\s*([!.?]*)\s*$", r"\1", sentence.strip())
    if sentence and all(not is_content(w.casefold()) for w in _WORD.findall(sentence)):
        return ""
    return sentence.strip()


def _is_name(word: str, names: set[str]) -> bool:
    return word in names or len(word) >= 3 and any(n.startswith(word) for n in names)


def _third_person(sentence: str, turn: Turn) -> tuple[str, str]:
    """First and second person made explicit with the speakers' names."""
    me, you = turn.speaker, turn.other
    subject = ""
    words = re.split(r"(\s+)", sentence)
    out: list[str] = []
    i = 0
    while i < len(words):
        token = words[i]
        core, trail = _split_punct(token)
        low = core.casefold().replace("’", "'")
        repl = None
        if low in ("i", "i'm", "i've", "i'll", "i'd", "i'm", "me", "myself", "my", "mine"):
            repl, subject = _person(low, me, words, i), subject or me
        elif you and low in _SECOND:
            if not (low == "you" and _generic_you(words, i)):
                repl, subject = _person(_SECOND[low], you, words, i), subject or you
        if repl is not None:
            token = repl + trail
            if low in ("i", "you") and i + 2 < len(words):  # "I love" -> "Caroline loves"
                verb, vtrail = _split_punct(words[i + 2])
                words[i + 2] = _inflect(verb) + vtrail
        out.append(token)
        i += 1
    text = "".join(out)
    if re.search(r"\b(?:we|our|us|ours)\b", text, re.I) and me.casefold() not in text.casefold():
        text = f"{me}: {text[:1].lower() + text[1:] if text[:2] != 'I ' else text}"
    return text, subject


def _person(form: str, name: str, words: list[str], i: int) -> str:
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
    if form == "i" and i + 2 < len(words):
        verb, trail = _split_punct(words[i + 2])
        if verb.casefold() in ("am", "are", "were"):
            words[i + 2] = ("was" if verb.casefold() == "were" else "is") + trail
    return name


def _generic_you(words: list[str], i: int) -> bool:
    """'you know', 'thank you', 'see you': not a person being talked about."""
    before = words[i - 2].casefold().strip(",.!") if i >= 2 else ""
    after = words[i + 2].casefold().strip(",.!?") if i + 2 < len(words) else ""
    return before in ("thank", "thanks", "see", "miss", "love", "bless") or after in ("know", "guys", "too")


def _split_punct(token: str) -> tuple[str, str]:
    m = re.match(r"^(.*?)([,.!?;:…)\"”’]*)$", token)
    return (m.group(1), m.group(2)) if m else (token, "")


def _inflect(verb: str) -> str:
    low = verb.casefold()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low not in _PRESENT:
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
