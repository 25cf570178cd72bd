"""What of the user's words belongs in the core: standing rules, preferences and identity.

A rule's words may stand anywhere in a sentence ("invalid themes must NEVER explode", "no
console logs!", "i would only want e2e tests for AgentSession", "performance is crucial"),
but never in a question, an apology, a hedge, a pasted error, a step to do now, or about
"this"/"that" the core's reader cannot see. The user's anger is no memory either: curses
go, a clause that insults is dropped.
"""

from __future__ import annotations

import re

from . import verbatim
from .steps import PROCESS, first_word

_IDENTITY = re.compile(r"\b(?:my name is|i am an? |i'm an? |i work as|i live in|i'm from|i am from|years old|"
                       r"allergic to|i'm vegetarian|i'm vegan)", re.I)
_PREFERENCE = re.compile(r"\b(?:i prefer|my favou?rite|i always|i never)\b", re.I)
_NOT_IDENTITY = re.compile(r"\b(?:i'?m an? (?:bit|little|lot|huge|big|fan)|i am an? (?:bit|little|lot))", re.I)
# A standing rule or preference, anywhere in what the user said: "invalid themes must NEVER
# explode", "no console logs!", "i would only want e2e tests for AgentSession"
_RULE = re.compile(
    r"\b(?:must|mustn't|must not|from now on|should (?:never|always|not)|"
    r"(?:^|(?<=[,;(]\s)|(?<=\band\s)|(?<=\bplease\s))(?:don't|do not) (?!think|know|tink|understand|see|get|care|"
    r"remember|like|mind|want)|"
    r"(?:i|we)(?: would|'d)? only (?:want|use|allow|run|write)|only (?:ever|use|allow)|i(?: would|'d)? prefer|"
    r"prefer to|i want you to always|avoid)\b|\bno [\w .'/-]{2,40}!", re.I)
# "always"/"never" as a rule: an imperative ("never log secrets"), after a modal or a person
# ("we always squash"); "hitting /clear always creates a file" tells how a thing behaves
_ALWAYS = re.compile(r"(?:^|[,;:(]\s*|\b(?:please|and|but|so|you|we|i|must|should|will|would|to|can|could|shall)\s+)"
                     r"(?:always|never)\b", re.I)
# a value the user holds: "performance is crucial", "important not to commit until the final step",
# "it's essential that the API stays backward compatible"
_MATTERS = re.compile(
    r"\b(?:is|are)\s+(?:(?:very|really|super|extremely|absolutely)\s+)?(?:crucial|critical|essential|paramount|vital|"
    r"mandatory|non-negotiable|important|a must|(?:a |the )?top priority)\b|"
    r"^(?:(?:very|really|super|extremely)\s+)?(?:important|crucial|critical|essential)[:,]?\s+(?:(?:not|never)\s+)?"
    r"(?:to|that)\b", re.I)
_MATTERS_LEAD = re.compile(r"^(?:it's|it is)\s+(?:(?:very|really|super|extremely)\s+)?(?:crucial|critical|essential|"
                           r"important|vital)\s+(?:(?:not|never)\s+)?(?:to|that)\b", re.I)
# a rule about the matter in hand ("the issue must be addressed", "option 1 must go"): the
# core's reader cannot see which one (a pronoun at the sentence's start, or such a noun in any clause)
_DEICTIC = re.compile(r"^(?:(?:however|but|and|so|also)\s+)?(?:(?:the|this|that)\s+(?:(?:main|current|first|second|"
                      r"last|new|old)\s+)?(?:issue|problem|bug|task|fix|plan|proposal|changes?|pr|error|solution|"
                      r"approach|idea|question|result|output|option|step)\b|option\s+\w+\b)", re.I)
_DEICTIC_PRONOUN = re.compile(r"^(?:this|that|it|these|those)\b", re.I)
# one task's definition of done or its scope, not a standing rule: "Don't stop until all functions are ported,
# tests pass, and you have 100% coverage", "keep going until the build is green", "no console logs in this PR!"
_TASK_SCOPED = re.compile(
    r"\b(?:(?:don't|do not|never|not)\s+(?:stop|quit|give up|finish|end|return|halt|rest|come back|report back)|"
    r"keep (?:going|working|trying|iterating|at it)|continue|carry on)\b[^.;!?]*\b(?:until|till|before|unless)\b|"
    r"\b(?:for|in|on|during|of)\s+(?:this|the current)\s+(?:pr|pull request|task|ticket|branch|port|migration|"
    r"refactor\w*|sprint|commit|run|session|step|spike|experiment|change|story)\b|"
    r"\b(?:for now|for the moment|for the time being|this time|right now|at the moment)\b|"
    r"\b(?:when|once|after)\s+(?:you(?:'re| are| have)|it(?:'s| is)|everything(?:'s| is)|that(?:'s| is))\s+"
    r"(?:all\s+)?(?:done|finished|complete|through)\b", re.I)
_CHATTER_DONT = frozenset({"worry", "bother", "mind", "forget", "stop", "go", "wait", "panic", "care", "know", "think"})
# the user's anger is not memory: intensifiers go; a clause that insults is dropped
_CURSE_WORDS = re.compile(r"\s*\b(?:fucking|fuckin|freaking|bloody|omfg|wtf|jesus|damn|goddamn|dude|my dude)\b[,!]*",
                          re.I)
_INSULT = re.compile(r"\b(?:fuck\w*|shit\w*|idiot\w*|stupid|dumb\w*|crap\w*|moron\w*|sucks?|lobotomi\w*|"
                     r"horrible|garbage)\b", re.I)
_HEDGE = re.compile(r"\b(?:i (?:think|believe|feel|suppose|guess|assume|would assume)|seems?|looks like|maybe|"
                    r"perhaps|probably|i'm not sure|not sure)\b", re.I)
_PASTED = re.compile(r"\b(?:error|exception|failed|traceback|warning)\b|/\S{30,}", re.I)  # an error pasted, a long path
APOLOGY = re.compile(r"\b(?:sorry|apologi[sz]e\w*|my bad|my mistake)\b", re.I)


def is_identity(sentence: str) -> bool:
    """A fact of who the user is or what they like ("I'm vegetarian", "my favourite editor is
    Helix", "I always squash"), not "I'm a bit tired"."""
    return bool(_IDENTITY.search(sentence) or _PREFERENCE.search(sentence)) and not _NOT_IDENTITY.search(sentence)


def is_rule(sentence: str) -> bool:
    """A standing rule or preference of the user's (never a question, an apology, or a
    sentence about "this"/"that" the reader of the core cannot see). Its words anywhere in
    the sentence: must, never, always (as a rule, not how a thing behaves), don't, no X!,
    only, prefer, avoid; a value held ("performance is crucial", "important not to commit
    until the final step"); a two-word "Don't overcomplicate.". Never one task's definition of
    done or its scope ("Don't stop until all functions are ported, tests pass, and you have 100%
    coverage", "no console logs in this PR!", "for now …")."""
    words = sentence.split()
    if sentence.endswith(("?", "？")) or APOLOGY.search(sentence):
        return False
    if len(words) < 3 and not (len(words) == 2 and re.match(r"(?i)(?:don't|do not|never)\s+[a-z]{4,}[.!]*$", sentence)
                               and words[1].strip(".!").casefold() not in _CHATTER_DONT):
        return False
    if _HEDGE.search(sentence) or _PASTED.search(sentence) or sentence.count("`") >= 4:
        return False
    if any(first_word(c) in PROCESS for c in re.split(r"[,;]\s*", sentence)):
        return False  # "don't modify the theme, look into the footer sources": what to do now, not a rule
    clauses = [c.strip() for c in re.split(r"[,;]\s*|:\s+|\s+(?:—|–|-)\s+", sentence) if c.strip()]
    ruling = [c for c in clauses if _RULE.search(c) or _ALWAYS.search(c) or _MATTERS.search(c) or _MATTERS_LEAD.match(c)]
    if _TASK_SCOPED.search(sentence):
        return False  # the task in hand's definition of done ("don't stop until …"), its scope ("in this PR")
    if _DEICTIC_PRONOUN.match(sentence) and not _MATTERS_LEAD.match(sentence):
        return False  # "That must never happen" alone: the core's reader cannot see what
    # a rule clause about the matter in hand ("the issue must be addressed") is none
    return any(_MATTERS_LEAD.match(c) or not _DEICTIC.match(c) for c in ruling)


def without_anger(sentence: str) -> str:
    """The sentence without curses, and without its clauses that insult."""
    sentence = verbatim.sub(_CURSE_WORDS, "", sentence).strip(" ,")
    if not _INSULT.search(sentence):
        return sentence
    clauses = re.split(r"(?<=[,;])\s+|\s+(?:—|–|-)\s+", sentence)
    kept = [c for c in clauses if not _INSULT.search(c)]
    return " ".join(kept).strip(" ,;") if kept else ""
