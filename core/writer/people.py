"""Between people talking: what is company rather than content, and a note said short.

A conversation between friends carries its facts among sentences that keep the other
company: a wish or advice ("Have fun and stay safe!"), thanks and praise of the other
("Your friendship means so much to me", "Your hard work will pay off!", "I'm impressed by
your dedication"), resolve ("I'm not gonna give up"), a mood made of the words of
feelings and values ("Their love has helped me grow into my true self"), a creed ("We can
tackle life's challenges together!"), a verdict about life in general ("Hard work pays
off eventually."), a greeting after a while ("Long time no talk!"), a mood about at most one
thing ("The day was full of love and joy."), news announced rather than told ("Something
massive happened!"), advice to the other ("You should come down and join me!"), hopes,
promises and offers ("Crossing my fingers for you!", "Let me know if there's anything I
can do"), a reassuring guess at how things will turn out ("I'm sure the rest will
follow", "Then I have no doubt they'll love it"), a creed ("It's all about the little
things"). Those are no notes. What stays is said without its padding: the catching-up or
discourse marker that opens a turn ("A lot's happened since we last chatted - ", "On
another note, ", "Been quite a ride - "), and a judgement trailing after a dash, a
semicolon, "and" or ", but" ("... on 20 May 2023 – it was rewarding.", "... and it was
powerful", "..., but I'm up for the challenge!"): a clause without a concrete word. Of a
turn's sentences the note is the one with the most concrete words (`concrete`): words of
feelings tell little."""

from __future__ import annotations

import re
from typing import Any, Protocol, TypeVar

from .creeds import creed
from .keywords import COMMON_WORDS, content_words
from .regard import regards
from .shown import only_shows, without_showing
from .stopwords import STOPWORDS_EN_PLUS
from .verbatim import upper_first


class _Thread(Protocol):
    """A block of a conversation's thread (distil.Block), as far as joining needs it."""

    notes: list[Any]
    key: str

    @property
    def core(self) -> bool: ...


B = TypeVar("B", bound=_Thread)

JOIN_NOTES = 6  # a small block of a conversation joins the one before it while both fit (distil's thread block size)
JOIN_WORDS = 60

_WISH = re.compile(  # "Just remember that ...", not "Just keep their area clean, feed them ..." (a how-to)
    r"^(?:just (?=(?:remember|hang in|stay|trust|believe|be|don't|take care|enjoy)\b))?"
    r"(?:have|enjoy|wish|wishing|stay|take care|keep|cherish|spill|make sure|let's|lets|tell|remember|don't|do not|"
    r"thank|thanks|congrats|congratulations|hope|hang in|feel free|give|trust|believe|be|treat|stick|catch|reach|"
    r"talk|appreciate|good luck|best of luck|go for it|you got this|you've got this|you can do it|can't wait|"
    r"looking forward|long time|see you|bye|take it|hugs|sending|here's to|cheers)\b", re.I)
_ABOUT_US = re.compile(
    r"\b(?:(?:appreciate|value|cherish) (?:your|our) friendship|friendship means?|means? (?:a lot|so much|the world|everything)|meant (?:a lot|so much)|grateful (?:for|to have)|"
    r"glad (?:to have|we|you)|thank(?:s| you) for|appreciate (?:you|it|that|your|our|the support)|"
    r"(?:proud|happy|stoked|thrilled|excited) (?:of|for) you|you(?:'re| are) (?:so |such |really |an? )*"
    r"(?:amazing|awesome|great|kind|strong|brave|talented|inspiring|sweet|lucky|right|welcome|the best)|"
    r"here for you|always there for|support(?:s|ing)? (?:each other|you|me)|(?:people|someone|friends?) like you|"
    r"cheering (?:me|us) on|"
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
_PAST = re.compile(r"\b(?:was|were|had|did|went|got|\w{3,}ed)(?:n't|n’t)?\b", re.I)  # "didn't make it": it happened
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
    if in_touch(said) or reassuring(said) or _HOPE.match(said) and _LISTENER.search(said):
        return True  # whatever it names: "I'll send you pics of my turtles", "Hoping your screenplay gets noticed"
    if only_shows(said):  # "Here's a pic from last week.": a photo shown, nothing said of it (shown.py)
        return True
    if regards(said):  # "Your faith in me is priceless!", "That's okay, I'll get 'em next time!" (regard.py)
        return True
    if creed(said):  # "Moments like these remind me ...", "Working together, we can ..." (creeds.py)
        return True
    if _NAMED.search(said):
        return False
    if _of_the_listener(said) or _general(said) or _of_us(said) or _feelings(said) or _GUESS.match(said) or _mood(said):
        return True
    if _MUST_HAVE.search(said) and not _I.search(said):
        return True
    if _ADVICE.match(said) or _teaser(said):
        return True
    if _PROMISE.match(said) and len(_concrete_beyond(said, frozenset()) - {_NAMED_MARK}) <= 2 and not _NAMED.search(said):
        return True
    if _ALL_ABOUT.match(said):
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


def _mood(said: str) -> bool:
    """A feeling with at most one thing it is about, nothing named ("The day was full of
    love and joy.", "Your words motivate me.", "We'll make some awesome memories!"): a mood,
    no fact. A feeling about two things ("The kids loved the dinosaur exhibit!"), or about
    something named, is one."""
    words = [w for w in content_words(said) if w not in COMMON_WORDS]
    beyond = _concrete_beyond(said, frozenset())
    return any(w in _FEELING_WORDS for w in words) and len(beyond) <= 1 and _NAMED_MARK not in beyond


# what the other should do ("You should come down and join me on the trails sometime!"): advice
_ADVICE = re.compile(r"^(?:maybe |so )?you (?:should|could|gotta|have to|ought to|might want to|must|need to|'ll have to)"
                     r"\b", re.I)
# hopes, promises and offers: "Hoping it gets noticed", "Crossing my fingers for you!", "I can't wait to see it",
# "Let me know if you need anything", "I can share the recipe if you'd like!"
_PROMISE = re.compile(
    r"^(?:(?:i'm |i am |i was )?(?:hoping|crossing (?:my )?fingers)|fingers crossed|i (?:really )?hope|"
    r"i (?:can't|cannot) wait to (?:see|hear|read|try|meet|check)|i have no doubt|no doubt|i promise|"
    r"(?:just )?let me know|keep me (?:posted|updated|in the loop)|i'll (?:keep you (?:posted|updated)|let you know)|"
    r"i (?:can|could) (?:share|send)|if you (?:ever )?(?:need|want)|if there's anything|i'm here (?:for|to)|"
    r"i will (?:definitely )?(?:keep you|let you)|i (?:really )?wish i (?:could|had|was|were))\b", re.I)
# news announced, not told: "Crazy things happened to me!", "Something awesome happened", "Been quite a ride"
_TEASER = re.compile(r"\b(?:happened|happening|going on|news|something|(?:quite|such|what) a (?:ride|week|day|time|journey))\b",
                     re.I)
# when the news was, or since when: "last Friday", "since we last talked" (the news itself is still untold)
_WHEN = re.compile(r"\b(?:(?:last|this|next|on|since)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                   r"night|week|weekend|month|year)\b|\bsince (?:we|i) (?:last )?(?:talked|chatted|spoke|caught up)\b", re.I)
_NEWS_WORDS = frozenset("""
happened happen happening news share sharing going ride week weekend day days time journey crazy wild quite
interesting exciting stuff something things thing lot much cool awesome big huge major massive tell
""".split())


def _concrete_beyond(said: str, words_too: frozenset[str]) -> set[str]:
    """The concrete words of what was said, less `words_too`; a name or a number is one."""
    if _NAMED.search(said) or any(w not in _I_FORMS for w in _NAME_WORD.findall(said)):
        return {_NAMED_MARK}
    return concrete([w for w in content_words(said) if w not in COMMON_WORDS]) - words_too


_NAME_WORD = re.compile(r"(?<![.!?…]\s)(?<!^)(?<![\w'’])[A-Z][\w'’]*")  # a capital inside a sentence: a name
_NAMED_MARK = "(named)"  # what _concrete_beyond counts for a name or a number
_I_FORMS = frozenset({"I", "I'm", "I've", "I'll", "I'd", "I’m", "I’ve", "I’ll", "I’d"})


# a promise of the conversation's next exchange, or to take up what the other said: "I'll definitely keep you
# updated", "I'll be sure to send you pics of my turtles", "If I need anything, I'll be sure to reach out",
# "I'll keep that in mind", "I'll check them out", "Lemme know when you got time", "shoot me a question anytime"
_IN_TOUCH = re.compile(
    r"^(?:(?:but|and|so|well|ok|okay|yeah|sure|also|then|maybe)\W+)*(?:if i (?:ever )?need [^,]{0,30},\s*)?"
    r"(?:i'll|i will|i'm gonna|i'm going to|i am going to)\s+(?:(?:\w+ly|definitely|also|for sure|totally|be sure to|"
    r"make sure to|try to)\s+)*(?:keep (?:you|that|this|it|those) (?:posted|updated|in the loop|informed|in mind)|"
    r"let you know|send (?:you|it|them|some|one)|give you a (?:shout|call|ring|holler|heads[- ]up)|get back to you|"
    r"reach out|(?:text|call|message|ping) you|check (?:it|them|that|those|this|these) out|think about it|"
    r"look into it|get (?:it|them|that|the \w+) to you|add (?:it|that|this|them|those) to (?:my|the) (?:\w+ )?list)\b|"
    r"^(?:(?:definitely|totally|def)\s+)?adding (?:it|that|this|them|those) to (?:my|the) (?:\w+ )?list\b|"
    r"^i(?:'d| would) (?:really )?love to (?:see|hear|read|try) (?:it|that|them|those|more|one of (?:your|the|those)|"
    r"some of (?:your|the|those)|your)\b|"
    r"(?:^|,\s*)(?:(?:so|and|just) )*(?:let me|lemme) know\b|\b(?:anytime|whenever) you (?:need|want|like)\b|"
    r"\bshoot me (?:a|an) (?:message|question|text|line|email)\b|\bhit me up\b|\bdon't hesitate to\b", re.I)
_HOPE = re.compile(r"^(?:(?:i'm |i am )?hoping|i (?:really |truly )?hope|fingers crossed|(?:i'm )?crossing (?:my )?fingers)\b",
                   re.I)


def in_touch(said: str) -> bool:
    """A promise to keep in touch or to take the other's word up, an offer to be asked: what it is
    about, the other's turn said."""
    return bool(_IN_TOUCH.search(said.replace("’", "'")))


# a confident guess at how things will turn out, said to reassure ("I'm sure the rest will follow", "You can make
# your studio work, I'm sure", "Then I have no doubt they'll love it", "Your hard work will pay off, I promise"):
# a marker of confidence with what will be; "I'm sure I left my keys at the gym" tells, it is kept
_CONFIDENT = re.compile(r"\b(?:(?:i'm|i am) (?:so |really |totally |absolutely |pretty )?(?:sure|certain|confident)\b(?! (?:of|about|in) )|"
                        r"(?:i have |i've got |there's |there is )?no doubt\b|without a doubt|i promise|i bet|i know (?:you|it|they|that)\b)",
                        re.I)
_WILL_BE = re.compile(r"\b(?:will|'ll|can|could|gonna|going to|would|'d)\b", re.I)
_TURNS_OUT_WELL = re.compile(r"(?<!\bi )(?<!\bwe )\bwill (?:definitely |surely |totally |all |eventually |so )?"
                             r"(?:pay off|work out|shine(?: through)?|do great|be fine|be okay|be a hit|come true|get noticed)\b",
                             re.I)
# a creed: "It's all about finding those little things and cherishing them"
_ALL_ABOUT = re.compile(r"^(?:it's|it is|life's|life is|that's|that is) (?:really |truly )?all about\b", re.I)


def reassuring(said: str) -> bool:
    """A guess at how the other's (or anyone's) things will turn out, made to reassure: company, whatever
    it names (a later turn tells how it did turn out)."""
    said = said.replace("’", "'")
    return bool(_TURNS_OUT_WELL.search(said) or _CONFIDENT.search(said) and _WILL_BE.search(said))


# resolve and encouragement: "I'm not gonna give up", "keep pushing", "chase your dreams"
_RESOLVE = re.compile(
    r"\b(?:keeps? (?:going|pushing|at it|trying|plugging|shining|dreaming|moving forward|fighting|working hard|"
    r"(?:me|us|you|him|her|them) (?:going|motivated|inspired))|won't (?:quit|give up|stop|let)|"
    r"(?:not|never) (?:gonna |going to )?(?:give up|quit|stop trying)|"
    r"stay(?:ing)? (?:positive|motivated|focused|determined|strong|resilient|optimistic)|"
    r"(?:chase|chasing|reach|reaching|follow|following|pursue|pursuing|achieve|make|live|living) "
    r"(?:\w+'s |my |our |your |their |his |her |those |these |the )?(?:own )?(?:dreams?|goals?)\b)", re.I)
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


# a guess at the other's life: "I can imagine ...", "I get how that would've been so annoying!"
_GUESS = re.compile(r"^(?:i can imagine|i bet|i'm sure|i am sure|i guess|i (?:get|understand|know|can see) how)\b", re.I)
# ... or at how it was for them: "Meeting him and seeing him play must've been awesome."
_MUST_HAVE = re.compile(r"\bmust(?:'ve| have)? been\b|\bmust be (?:so |such |really |a |an )*(?:\w+)", re.I)
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


_I = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself)\b", re.I)
_OWN = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|he|she|him|her|his|hers)\b", re.I)


# a past, but not a participle a determiner or "us" makes a word of a thing ("our loved ones", "gets us fired up")
_HAPPENED = re.compile(r"\b(?:was|were|had|did|went|got)\b|(?<!\bour )(?<!\bthe )(?<!\bus )(?<!\ban )(?<!\ba )\b\w{3,}ed\b",
                       re.I)


def _of_us(said: str) -> bool:
    """What things do to us all, said in the present ("Moments like these remind us how important our
    loved ones are.", "It gives us hope and reminds us we're not alone.", "Books can shift how we think and
    help us learn new things."): its only people are an "us" that is everyone, and it tells of no one's day.
    "Our team has seen ..." and "We organized a meal" are a group's; "It has helped our performances"
    happened."""
    if not _ALL_OF_US.search(said) or re.match(r"(?i)(?:we|our|us)\b", said):
        return False
    if _OWN.search(said) or _LISTENER.search(said) or _TIME_WORD.search(said) or _HAPPENED.search(said):
        return False
    return not any(w[:1].isupper() for w in re.findall(r"[\w'’]+", said)[1:])


# "A lot's happened since we last chatted - ", "Since we last spoke, ", "since our last chat", "Haven't talked to you
# in a bit but " (no punctuation after it: what was to be told follows the "but")
_CATCHING_UP = re.compile(
    r"^(?:(?:a lot|lots|so much|much|a bunch|tons)(?:'s| has)? (?:happened|been going on|going on)|"
    r"(?:it's |it has )?been (?:a while|ages|forever|a (?:busy|crazy|hectic|wild) (?:few days|week|month|time))|"
    r"(?:i've|i have|we've|we have) had (?:a lot|lots|so much|tons)(?: of (?:things|stuff))? (?:going on|happening)"
    r"(?: (?:to|with|for) (?:me|us))?|(?:i |we )?haven't (?:talked|chatted|spoken)(?: to you)? in (?:a bit|a while|ages|"
    r"forever|a few days|a couple of days|days|weeks)(?:,? but\s+)?)"
    r"(?: since (?:we|i) (?:last )?(?:chatted|spoke|talked|caught up)| since our last (?:chat|talk|conversation))?"
    r"(?:\s*(?:[-–—:,!.]+\s*|$)|(?<=\s))|\s*,?\s*\bsince (?:we|i) (?:last )?(?:chatted|spoke|talked|caught up)\b,?|"
    r"\s*,?\s*\bsince our last (?:chat|talk|conversation)\b,?", re.I)
# "(but) wanted to let you know (that) ...": what follows is what was to be told
_TELLING_YOU = re.compile(r"^(?:(?:but|and|just) )*(?:i )?(?:just )?wanted to (?:tell|let) (?:you|ya)(?: know)?(?: that)?\b"
                          r"(?! about)\s*", re.I)
_TAIL = re.compile(r"(\s+[-–—]+\s+|\s*;\s+|,\s+but\s+|"
                   r"(?:,\s+(?:and\s+)?|\s+and\s+)(?=(?:it|that|this|which)(?:'s|\s+(?:is|was|has been|felt|feels))))")
_EVALUATION = re.compile(r"^(?:it|that|this|which)(?:'s|'ll be|'d be|\s+(?:is|was|has been|felt|feels|looks|seems|will be|"
                         r"would be))\b", re.I)  # "- it'll be hectic but fun!": a judgement of what is to come too
_EVALUATION_WORDS = 8


def compact(sentence: str) -> str:
    """The sentence without its catching-up and without an evaluation trailing after a
    dash or a semicolon ("it was rewarding", "can't wait!"), nor the showing of a photo (shown.py); what
    tells stays."""
    sentence = without_showing(sentence)  # "Here, look at this cute pic - walking them ...": the showing goes
    short = _TELLING_YOU.sub("", _CATCHING_UP.sub(" ", _DISCOURSE.sub("", sentence)).strip(" ,-–—"))
    if len(content_words(short)) < 2:
        return "" if short != sentence.strip(" ,-–—") else sentence  # nothing but catching up
    parts = _TAIL.split(short)  # clause, separator, clause, ...
    while len(parts) > 2 and _LEAD_SEPARATOR.match(parts[1]) and (_teaser(parts[0]) or _HOW_ONE_IS.match(parts[0])) \
            and len(content_words(parts[2])) >= 2:  # "Been quite a ride - had an audition ...": the news is after
        # ("I've been doing great - I won another tournament": how one has been, before what happened)
        told = _TOLD_WHEN.search(parts[0])  # "On Friday, I got great news - I'm in ...": "On Friday, I'm in ..."
        parts = [f"{told.group(0)}, {parts[2]}" if told else parts[2], *parts[3:]]
    if len(parts) > 1 or parts[0] != short:
        short = parts[0] + "".join(sep + clause for sep, clause in zip(parts[1::2], parts[2::2])
                                   if not _evaluation(clause))
        short = short.rstrip(" ,;-–—")
        if short and short[-1] not in ".!?…" and sentence.rstrip()[-1:] in ".!?…":
            short += "." if sentence.rstrip()[-1] == "?" else sentence.rstrip()[-1]
    return upper_first(short) if short and len(content_words(short)) >= 2 else sentence


# a turn's discourse markers: "On another note, ", "In the meantime though, ", "As for me, ", "Agreed, "
_DISCOURSE = re.compile(r"^(?:on (?:a |an )?(?:different|another|other|side|related) note|in the meantime(?:,? though)?|"
                        r"besides that|apart from that|other than that|as for (?:me|us|you|myself)|anyways?|plus|fyi|"
                        r"agreed|for sure|no doubt)\b[,!.:;]*\s*", re.I)
# how one has been, said before what happened: "I've been doing great", "Things have been great", "I'm so excited"
_HOW_ONE_IS = re.compile(r"^(?:(?:lately|recently|honestly|well|so|oh)\W+)*(?:i've|i have|i'm|i am|things have|things've|"
                         r"things are|life has|life's|we've|we have|we're|we are)\s+(?:been\s+)?(?:doing\s+|going\s+)?"
                         r"(?:(?:really|so|pretty|super|totally|just)\s+)?(?:great|good|well|awesome|amazing|fine|okay|ok|"
                         r"busy|crazy|hectic|wild|excited|stoked|thrilled|pumped)\W*$", re.I)
_LEAD_SEPARATOR = re.compile(r"\s+[-–—]+\s+|\s*;\s+")


_TOLD_WHEN = re.compile(r"\b(?:(?:last|this|on) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
                        r"(?:last|this) (?:week|weekend|month|night)|yesterday|today|tonight|the other day|"
                        r"(?:a|an|one|two|three|a few|a couple of|\d+) (?:days?|weeks?|months?) ago)\b", re.I)


def news_told(sentences: list[str]) -> list[str]:
    """A turn's sentences without the news it announces before telling it ("Something exciting happened
    last Friday. I went to a game convention ..."): the time the announcement said goes to the sentence
    that tells the news ("Last Friday, I went to a game convention ..."), which alone is the note."""
    out: list[str] = []
    when = ""
    for sentence in sentences:
        if when and len(concrete(content_words(sentence))) >= 2 and not keeps_company(sentence):  # not "Wow!"
            first = sentence.split(" ", 1)[0]
            lower = first.casefold() in STOPWORDS_EN_PLUS and first.casefold() not in _I_LOWER
            sentence = f"{when[:1].upper()}{when[1:]}, {sentence[:1].lower() if lower else sentence[:1]}{sentence[1:]}"
            when = ""
        told = _TOLD_WHEN.search(sentence)
        if told and not when and _teaser(sentence.rstrip(".!…")) and len(out) < len(sentences) - 1:
            when = told.group(0)
            continue
        out.append(sentence)
    return out


_I_LOWER = frozenset(f.casefold() for f in ("I", "I'm", "I've", "I'll", "I'd"))


def _teaser(clause: str) -> bool:
    """A clause that announces or judges rather than tells ("Been quite a ride", "Something
    cool happened"): no concrete word beyond the words of news and feelings."""
    clause = _WHEN.sub(" ", clause)
    return bool(_TEASER.search(clause)) and not _concrete_beyond(clause, _NEWS_WORDS)


def _evaluation(clause: str) -> bool:
    """A trailing clause that only judges ("it was rewarding", "so much fun!", "love it!")."""
    clause = clause.strip(" .!…")
    if reassuring(clause) or _ALL_ABOUT.match(clause):  # "- when I do, I'm sure the rest will follow!"
        return True
    if _NAMED.search(clause) or any(w[:1].isupper() for w in re.findall(r"[\w'’]+", clause)[1:]):
        return False
    if _EVALUATION.match(clause) and len(clause.split()) <= _EVALUATION_WORDS:
        return True
    words = [w for w in content_words(clause) if w not in COMMON_WORDS]
    return len(content_words(clause)) <= 1 or bool(_WISH.match(clause)) or not concrete(words)


def joined(blocks: list[B]) -> list[B]:
    """A conversation's blocks with each small one joined to the one before it while both
    together fit a block (JOIN_NOTES notes, JOIN_WORDS words): a note said a few turns
    after the last is still that day's thread, and a block of its own would repeat its date
    and its footnote."""
    out: list[B] = []
    for block in blocks:
        last = out[-1] if out else None
        if (last is not None and not last.core and not block.core and len(last.notes) + len(block.notes) <= JOIN_NOTES
                and sum(len(n.text.split()) for n in (*last.notes, *block.notes)) <= JOIN_WORDS):
            last.notes.extend(block.notes)
            last.key = last.key or block.key
            continue
        out.append(block)
    return out
