"""Between people talking: what is company rather than content, and a note said short.

A conversation between friends carries its facts among sentences that keep the other
company: a wish or advice ("Have fun and stay safe!"), thanks and praise of the other
("Your friendship means so much to me", "Your hard work will pay off!", "I'm impressed by
your dedication"), resolve ("I'm not gonna give up"), a mood made of the words of
feelings and values ("Their love has helped me grow into my true self"), a creed ("We can
tackle life's challenges together!"), a verdict about life in general ("Hard work pays
off eventually."), a greeting after a while ("Long time no talk!"). Those are no notes.
What stays is said without its padding: the catching-up that opens a turn ("A lot's
happened since we last chatted - "), and an evaluation trailing after a dash ("... on 20
May 2023 – it was rewarding."). Of a turn's sentences the note is the one with the most
concrete words (`concrete`): words of feelings tell little."""

from __future__ import annotations

import re

from .keywords import COMMON_WORDS, content_words

_WISH = re.compile(
    r"^(?:have|enjoy|wish|wishing|stay|take care|keep|cherish|spill|make sure|let's|lets|tell|remember|don't|do not|"
    r"thank|thanks|congrats|congratulations|hope|hang in|feel free|give|trust|believe|be|treat|stick|catch|reach|"
    r"talk|appreciate|good luck|best of luck|go for it|you got this|you've got this|you can do it|can't wait|"
    r"looking forward|long time|see you|bye|take it|hugs|sending|here's to|cheers)\b", re.I)
_ABOUT_US = re.compile(
    r"\b(?:friendship|means? (?:a lot|so much|the world)|meant (?:a lot|so much)|grateful (?:for|to have)|"
    r"glad (?:to have|we|you)|thank(?:s| you) for|appreciate (?:you|it|that|your|our|the support)|"
    r"(?:proud|happy|stoked|thrilled|excited) (?:of|for) you|you(?:'re| are) (?:so |such |really |an? )*"
    r"(?:amazing|awesome|great|kind|strong|brave|talented|inspiring|sweet|lucky|right|welcome|the best)|"
    r"here for you|always there for|support(?:s|ing)? (?:each other|you)|"
    r"(?:i|we) (?:totally |completely |100% )?agree)\b", re.I)
_VERDICT = re.compile(
    r"^(?!.*\b(?:i|my|me|we|our|you|your)\b)[^,;:]{0,60}?\b(?:is|are|'s|can be|must be) (?:so |really |very |super |"
    r"truly |just |such |a |an |the )*(?:important|key|special|the best|worth it|everything|amazing|awesome|great|"
    r"inspiring|powerful|tough|hard|huge|vital|essential|necessary|beautiful|wonderful|precious|fun|cool)\b", re.I)
_LISTENER = re.compile(r"\b(?:you|you're|you've|you'll|you'd|your|yours|yourself|yourselves)\b", re.I)
_SPEAKER = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|we'll|we'd|us|our|ours|ourselves)\b",
                      re.I)
_PERSON = re.compile(r"\b(?:he|she|him|her|his|hers|they|they're|they've|they'd|them|their|theirs)\b", re.I)
_TIME_WORD = re.compile(r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|week|weekend|month|year|since|until)\b",
                        re.I)
_PAST = re.compile(r"\b(?:was|were|had|did|went|got|\w{3,}ed)\b", re.I)
_DEICTIC = re.compile(r"^(?:it|it's|this|that|that's|these|those|there|there's|here|here's)\b|\b(?:this|these|those)\b",
                      re.I)
_NAMED = re.compile(r"\d|[\"“”]")


def keeps_company(sentence: str) -> bool:
    """A sentence of company rather than content (see above); `sentence` as its speaker said it."""
    said = sentence.replace("’", "'")
    if said.endswith(("?", "？")):  # a question asks; the answer tells (an answer too short alone takes it along)
        return True
    if _WISH.match(said) or _ABOUT_US.search(said) or _VERDICT.match(said) and not _NAMED.search(said):
        return True
    if _NAMED.search(said):
        return False
    if _of_the_listener(said) or _general(said) or _feelings(said) or _GUESS.match(said):
        return True
    return bool(_RESOLVE.search(said) or _WE_ALL.match(said) or _THANKS_FOR.match(said)) and not _TIME_WORD.search(said)


# "We can tackle life's challenges together!", "We all have unique paths": a group's creed
_WE_ALL = re.compile(r"^(?:and |but |so |together,? )?(?:we|us)(?: all| both)? "
                     r"(?:can|could|should|must|have to|need to|gotta|all|both|are all|are in this)\b", re.I)
# "(Thanks) for letting me join your journey": thanks with its "thanks" cut off
_THANKS_FOR = re.compile(r"^for (?:letting|being|all|the|your|everything|sharing|listening|having)\b", re.I)
# the words of feelings and values: what a sentence made mostly of them tells is a mood
_FEELING_WORDS = frozenset("""
love loving loved support supportive supporting supported joy happy happiness proud pride strength strong courage
brave journey journeys dream dreams passion passionate difference impact positive positivity motivation motivate
motivated motivates motivating inspire inspired inspiring inspires inspiration grateful gratitude thankful peace
peaceful hope hopeful kindness kind acceptance accepted accept accepting together life moments moment memories
memory energy vibes vibe feel feeling feelings felt emotional emotions emotion special meaningful fulfilling
rewarding heart heartwarming amazing awesome incredible beautiful wonderful great best hard work tough challenge
challenges growth grow growing true self authentic comfort comforting safe understanding understand caring care
encouragement encourage encouraging blessed lucky fun exciting excited blast nice cool lovely goal goals success
successful determined determination resilient resilience power powerful important matters matter worth keep push
pushing going believe belief others people someone everyone things thing way ways
""".split())


def concrete(words: list[str]) -> set[str]:
    """The content words of a note that are not words of feelings and values: what a
    turn's most telling sentence has most of."""
    return set(words) - _FEELING_WORDS - COMMON_WORDS


def _feelings(said: str) -> bool:
    """Mostly the words of feelings and values, nothing concrete ("Their love and
    encouragement has helped me grow into my true self.")."""
    if _NAMED.search(said) or any(w[:1].isupper() for w in re.findall(r"[\w'’]+", said)[1:]):
        return False
    words = [w for w in content_words(said) if w not in COMMON_WORDS]
    return bool(words) and sum(w in _FEELING_WORDS for w in words) > 0.5 * len(words)


# resolve and encouragement: "I'm not gonna give up", "keep pushing", "chase your dreams"
_RESOLVE = re.compile(
    r"\b(?:keeps? (?:going|pushing|at it|trying|plugging|shining|dreaming|moving forward|fighting|working hard|"
    r"(?:me|us|you|him|her|them) (?:going|motivated|inspired))|won't (?:quit|give up|stop|let)|"
    r"(?:not|never) (?:gonna |going to )?(?:give up|quit|stop trying)|"
    r"stay(?:ing)? (?:positive|motivated|focused|determined|strong|resilient|optimistic)|"
    r"(?:chase|chasing|reach|reaching|follow|following|pursue|pursuing|achieve|make|live|living) "
    r"(?:\w+'s |my |our |your |their |his |her )?(?:own )?(?:dreams?|goals?)\b)", re.I)
# the speaker's regard for the other: "I'm impressed by your ...", "I bet you ...", "I know you'll ..."
_REGARD = re.compile(
    r"^(?:(?:wow|man|oh|gosh)\W+)?(?:i'm|i am|i was|i feel)\s+(?:so |really |very |super |totally )?"
    r"(?:impressed|amazed|inspired|proud|glad|happy|thrilled|touched|moved|sure|confident|certain|excited|stoked|sorry|"
    r"blown away)\b|"
    r"^i (?:bet|hope|know|believe|can see|can tell|admire|love how|love that|love your|love seeing|can't wait|"
    r"can imagine|wish)\b", re.I)


def _of_the_listener(said: str) -> bool:
    """What one says of the other (praise, reassurance, advice: "Your hard work will pay
    off!"): the other's life is told by the other."""
    if not _LISTENER.search(said):
        return False
    return not _SPEAKER.search(said) or bool(_REGARD.match(said)) and not _SPEAKER.search(_REGARD.sub("", said))


_GUESS = re.compile(r"^(?:i can imagine|i bet|i'm sure|i am sure|i guess)\b", re.I)  # a guess at the other's life
_ALL_OF_US = re.compile(r"\b(?:us|our|ours|ourselves)\b", re.I)  # "Pets have a way of touching our hearts"


def _general(said: str) -> bool:
    """A verdict about life or things in general ("Hard work pays off eventually.", "Horses
    have such grace!", "Pets have a way of touching our hearts."): no one of the
    conversation in it (an "us" is everyone), nothing particular (a name, a number, a
    time, this or that), said in the present."""
    if _LISTENER.search(said) or _PERSON.search(said) or _DEICTIC.search(said):
        return False
    if _SPEAKER.search(_ALL_OF_US.sub("", said)) or _ALL_OF_US.search(said) and re.match(r"(?i)(?:we|our)\b", said):
        return False
    if _NAMED.search(said) or _TIME_WORD.search(said) or _PAST.search(said):
        return False
    return not any(w[:1].isupper() for w in re.findall(r"[\w'’]+", said)[1:])


# "A lot's happened since we last chatted - ", "Since we last spoke, ", "since our last chat"
_CATCHING_UP = re.compile(
    r"^(?:(?:a lot|lots|so much|much|a bunch|tons)(?:'s| has)? (?:happened|been going on|going on)|"
    r"(?:it's |it has )?been (?:a while|ages|forever|a (?:busy|crazy|hectic|wild) (?:few days|week|month|time))|"
    r"(?:i've|i have|we've|we have) had (?:a lot|lots|so much|tons)(?: of (?:things|stuff))? (?:going on|happening)"
    r"(?: (?:to|with|for) (?:me|us))?)"
    r"(?: since (?:we|i) (?:last )?(?:chatted|spoke|talked|caught up)| since our last (?:chat|talk|conversation))?"
    r"\s*(?:[-–—:,!.]+\s*|$)|\s*,?\s*\bsince (?:we|i) (?:last )?(?:chatted|spoke|talked|caught up)\b,?|"
    r"\s*,?\s*\bsince our last (?:chat|talk|conversation)\b,?", re.I)
_TAIL = re.compile(r"(\s+[-–—]+\s+|\s*;\s+|"
                   r",\s+(?:and\s+)?(?=(?:it|that|this|which)(?:'s|\s+(?:is|was|has been|felt|feels))))")
_EVALUATION = re.compile(r"^(?:it|that|this|which)(?:'s|\s+(?:is|was|has been|felt|feels|looks|seems))\b", re.I)
_EVALUATION_WORDS = 8


def compact(sentence: str) -> str:
    """The sentence without its catching-up and without an evaluation trailing after a
    dash or a semicolon ("it was rewarding", "can't wait!"); what tells stays."""
    short = _CATCHING_UP.sub(" ", sentence).strip(" ,-–—")
    if len(content_words(short)) < 2:
        return "" if short != sentence.strip(" ,-–—") else sentence  # nothing but catching up
    parts = _TAIL.split(short)  # clause, separator, clause, ...
    if len(parts) > 1:
        short = parts[0] + "".join(sep + clause for sep, clause in zip(parts[1::2], parts[2::2])
                                   if not _evaluation(clause))
        short = short.rstrip(" ,;-–—")
        if short and short[-1] not in ".!?…" and sentence.rstrip()[-1:] in ".!?…":
            short += "." if sentence.rstrip()[-1] == "?" else sentence.rstrip()[-1]
    return short[:1].upper() + short[1:] if short and len(content_words(short)) >= 2 else sentence


def _evaluation(clause: str) -> bool:
    """A trailing clause that only judges ("it was rewarding", "so much fun!", "love it!")."""
    clause = clause.strip(" .!…")
    if _NAMED.search(clause) or any(w[:1].isupper() for w in re.findall(r"[\w'’]+", clause)[1:]):
        return False
    if _EVALUATION.match(clause) and len(clause.split()) <= _EVALUATION_WORDS:
        return True
    return len(content_words(clause)) <= 1 or bool(_WISH.match(clause))
