"""Sleep renames a topic whose name says nothing of what it holds (issue 24: topics are
"named by a noun phrase of what they are about, never a single stray word").

A name is weak when

1. by itself it names no subject: a stop word or a function word (`since.md`), hex or a
   number (`00d7ff.md`), a fragment of another script (`ート.md`), a filler or generic
   word (`notes.md`, `misc.md`, `tmp.md`, a folder that says nothing: `repo.md`), or a
   word any working session says (`file.md`, `fix.md`); or
2. (a component's topic, `<project>/<name>.md`) its blocks do not say it: fewer than a
   third of them hold a word of the name (a stray word of the session that made the
   topic, or a topic other topics were merged into since).

A top-level topic named after a generic folder (`repo.md`: the project topic of a session
in `/Users/user/repo`, as the writer named it before it read the turns for the project's
name, filing.named_project) is first named by the records its blocks cite: when they name
the project ("the codemie-code repository") it is merged into that project's topic, or
renamed to it when there is none.

Otherwise such a topic is renamed, in its folder, after what its blocks are about, the way the
writer names a new topic (distil.phrase_options, filing.good_name,
distil.names_a_component): each block's best key phrase among the topic's, and the phrase
most blocks choose, said by two blocks or more and by at least half of them (a topic of
one block: its block's phrase). When no phrase is that clear the name stays: a weak name
is better than a wrong one. Never renamed: `core.md`, a person's topic (`people/`), a
topic a person named or edited (the caller says which: reorganize.py reads the history),
a topic with a folder of components (its folder is its project's name), and a topic
whose new name is taken by another.

The renamed topic keeps every block and id, its citations (the folder is the same, so
their relative links still hold) and its machine-made title, retitled; links to its
blocks are repointed by the transaction. Its old name stays findable: the file says
`<!-- formerly: notes.md -->` under its title (memory/topics.py `former_names`), which
search matches (as it matches a topic's path) and which a read of the old name follows
(`Workspace.renamed_to`). A topic the writer later makes under that old name again (a
session in the same folder) is merged into the renamed one at the next sleep.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..memory.core_render import CORE_TOPIC
from ..memory.topics import FORMERLY, TopicDoc, former_names, parse_cached
from .distil import names_a_component, phrase_options
from .filing import FUNCTION_WORDS, GENERIC_DIRS, good_name, named_project, title
from .gather import PEOPLE, name_words
from .keywords import slug, stems
from .prompts import AGENT_NAMES

NAMING_SOURCES = 40  # a folder-named topic: at most this many of the records its blocks cite are read
STRAY_SHARE = 1 / 3  # rule 2: a name fewer than this share of its blocks say is stray
CLEAR_SHARE = 0.5  # the new name: at least this share of the blocks say it
SPEAKERS = frozenset({"user", "assistant", "agent", "sub-agent", "subagent", "human"}
                     | {n.casefold() for n in AGENT_NAMES.values()})
# names that say nothing by themselves: filler, a folder's generic name, a catch-all
WEAK_WORDS = frozenset("""
notes note misc miscellaneous general stuff other others tmp temp scratch todo todos untitled inbox new old draft
drafts random things thing items item info information memo memos unsorted unknown default topic topics log logs
more etc various sundry
""".split()) | GENERIC_DIRS


@dataclass(frozen=True)
class Rename:
    source: str  # relative to topics/
    target: str
    why: str
    merge: bool = False  # the target is where this name went before: its blocks join it

    def describe(self) -> str:
        verb, prep = ("merged", "into") if self.merge else ("renamed", "to")
        return f"{verb} {self.source} {prep} {self.target} ({self.why})"


def weak_name(rel: str, doc: TopicDoc) -> str | None:
    """Why the topic's name is weak (see the module docstring), or None (also for the core
    and a person's topic: their names are never weak)."""
    if rel == CORE_TOPIC or rel.split("/", 1)[0] == PEOPLE:
        return None
    raw = [w for w in PurePosixPath(rel).stem.casefold().replace("_", "-").split("-") if w]
    phrase = " ".join(raw)
    if not raw or not good_name(phrase):
        return "its name is no word of a subject"
    if len(raw) == 1 and (raw[0] in WEAK_WORDS or raw[0] in FUNCTION_WORDS or not names_a_component(raw[0])):
        return f"{raw[0]!r} names no subject"
    if ("/" in rel or former_names(doc.text)) and len(doc.blocks) >= 3:  # a component's name, or one sleep gave
        words = set(name_words(rel))
        said = sum(1 for b in doc.blocks if words & stems(b.content))
        if said < STRAY_SHARE * len(doc.blocks):
            return f"{said} of its {len(doc.blocks)} blocks say its name"
    return None


def subject_phrase(texts: list[str]) -> str | None:
    """The noun phrase most of these blocks are about, from the key phrases the writer
    names a new topic by (distil.phrase_options, whole): of their spans of one or two
    words, the one the most blocks say (and at least half of them, two or more), two
    words before one, then the earliest said; None when no phrase is that clear."""
    said: Counter[str] = Counter()
    first: dict[str, tuple[int, int]] = {}
    for k, text in enumerate(texts):
        spans: dict[str, None] = {}
        for option in phrase_options(text, set(SPEAKERS), last=None):
            words = option.split()
            for size in (2, 1):
                for i in range(len(words) - size + 1):
                    spans.setdefault(" ".join(words[i: i + size]))
        said.update(list(spans))
        for n, span in enumerate(spans):
            first.setdefault(span, (k, n))
    n = len(texts)
    need = 1 if n == 1 else max(2, math.ceil(CLEAR_SHARE * n))
    fit = [p for p in said if said[p] >= need and good_name(p) and names_a_component(p) and not _weak_words(p)]
    if not fit:
        return None
    return min(fit, key=lambda p: (-said[p], -len(p.split()), first[p], p))


def _weak_words(phrase: str) -> bool:
    words = phrase.split()
    return all(w in WEAK_WORDS or w in FUNCTION_WORDS or w in SPEAKERS for w in words)


def folder_named(rel: str) -> bool:
    """A top-level topic named after a working directory's generic folder (`repo.md`, `src.md`):
    the writer's project topic of a session whose folder said nothing of its project."""
    return "/" not in rel and PurePosixPath(rel).stem.casefold() in GENERIC_DIRS


def _cited(rel: str, doc: TopicDoc) -> list[str]:
    """The records the topic's blocks cite, relative to the workspace root, in order."""
    from ..memory.topics import topic_rel_to_root

    refs: dict[str, None] = {}
    for b in doc.blocks:
        for c in b.citations:
            definition = doc.definitions.get(c.id)
            for source in definition.sources if definition is not None else ():
                refs.setdefault(topic_rel_to_root(rel, source.target.strip()))
    return list(refs)


def naming_sources(texts: dict[str, str], kept: Iterable[str] = ()) -> list[str]:
    """The records sleep reads to name a folder-named topic by the project its turns name
    (`plan_renames`' `sources`): the first NAMING_SOURCES each such topic cites."""
    kept = set(kept)
    out: dict[str, None] = {}
    for rel, text in sorted(texts.items()):
        if folder_named(rel) and rel not in kept:
            out.update(dict.fromkeys(_cited(rel, parse_cached(rel, text))[:NAMING_SOURCES]))
    return list(out)


def plan_renames(texts: dict[str, str], kept: Iterable[str] = (),
                 sources: dict[str, str] | None = None) -> list[Rename]:
    """The renames of the weakly named topics among `texts` (relative path -> text);
    `kept`: the topics a person named or edited; `sources`: records (ref -> text) a
    folder-named topic's blocks cite (`naming_sources`): a topic named after a generic
    folder (`repo.md`) whose records name the project ("the codemie-code repository") is
    named after it, or merged into that project's topic when there is one."""
    kept = set(kept)
    docs = {rel: parse_cached(rel, text) for rel, text in sorted(texts.items())}
    homes: dict[str, str] = {}  # a former name -> the topic that has it now
    for rel, doc in docs.items():
        for old in former_names(doc.text):
            homes.setdefault(old, rel)
    folders = {posixpath.dirname(rel) for rel in docs if "/" in rel}
    taken = set(docs)
    out: list[Rename] = []
    for rel, doc in sorted(docs.items(), key=lambda kv: (-len(kv[1].blocks), kv[0])):  # the larger topic first
        if rel == CORE_TOPIC or rel in kept or rel.split("/", 1)[0] == PEOPLE or not doc.blocks \
                or any(b.legacy or not b.block_id for b in doc.blocks):
            continue
        home = homes.get(rel)
        if home is not None and home != rel and home in docs and home not in kept:
            out.append(Rename(rel, home, f"{home} was named {rel} before", merge=True))
            continue
        why = weak_name(rel, doc)
        if why is None or rel[: -len(".md")] in folders:
            continue
        named = named_project([sources[r] for r in _cited(rel, doc)[:NAMING_SOURCES] if r in sources],
                              plain=False) if sources and folder_named(rel) else ""
        if named and f"{named}.md" != rel and f"{named}.md" not in kept:
            target = f"{named}.md"
            said = f"its sessions name the project {named}"
            if target in docs and not any(o.source == target for o in out):
                out.append(Rename(rel, target, said, merge=True))
                continue
            if target not in taken:
                taken.add(target)
                out.append(Rename(rel, target, said))
                continue
        phrase = subject_phrase([b.content for b in doc.blocks])
        if phrase is None:
            continue
        folder = posixpath.dirname(rel)
        target = posixpath.join(folder, f"{slug(phrase)}.md")
        if target in taken or set(name_words(target)) == set(name_words(rel)):
            continue
        taken.add(target)
        out.append(Rename(rel, target, why))
    return out


def apply_renames(texts: dict[str, str], renames: list[Rename]) -> dict[str, str | None]:
    """The new text of every topic the renames change (None: the topic goes)."""
    from .gather import Gathering, Merge, apply_gathering

    out: dict[str, str | None] = {}
    merges = [Merge(r.source, r.target, r.why) for r in renames if r.merge]
    if merges:
        out.update(apply_gathering(texts, Gathering(merges, {})))
    for r in renames:
        if not r.merge:  # the text after the merges: a topic that took in its old name's blocks keeps them
            text = out.get(r.source) or texts[r.source]
            out[r.source] = None
            out[r.target] = renamed_text(text, r.source, r.target)
    return out


def renamed_text(text: str, old: str, new: str) -> str:
    """A topic's text under its new name: the title the writer gave it (from its old name)
    becomes the new name's, and a `formerly` line under it keeps every old name."""
    doc = parse_cached(old, text)
    lines = list(doc.lines)
    first = doc.blocks[0].start if doc.blocks else len(lines)
    heading = doc.headings[0] if doc.headings and doc.headings[0].level == 1 and doc.headings[0].index < first \
        else None
    names = [*former_names(text), old]
    names = list(dict.fromkeys(n for n in names if n != new))
    record = f"<!-- {FORMERLY} {', '.join(names)} -->"
    lines = [line for line in lines if not _formerly_line(line)]
    if heading is not None:
        at = next(i for i, line in enumerate(lines) if line == doc.lines[heading.index])
        if heading.title == title(old):
            lines[at] = f"# {title(new)}"
        lines[at + 1: at + 1] = ["", record]
    else:
        lines[0:0] = [f"# {title(new)}", "", record, ""]
    from .split import tidy

    return tidy(lines)


def _formerly_line(line: str) -> bool:
    return line.strip().startswith(f"<!-- {FORMERLY} ")


# -- who named a topic ------------------------------------------------------------------------

MACHINE_KINDS = ("write", "sleep", "migrate")  # transactions whose names are the writer's or sleep's


def named_by_people(ws: object) -> set[str]:
    """The topics (relative to topics/) a person named or edited: every path a commit
    touched that no writer, sleep or migration made (a human's `edit` in the TUI, the CLI
    or an agent's `remember`, a `revert`, a person's own git commit, a first commit of
    files that were there before), and any a person changed on disk and did not commit."""
    from ..memory import Workspace

    assert isinstance(ws, Workspace)
    try:
        repo = ws.repo
        grep = [arg for kind in MACHINE_KINDS for arg in ("--grep", f"^{kind}: ")]
        out = repo.git.execute(["git", "-c", "core.quotepath=off", "log", "--no-renames", "--format=%x1e",
                                "--name-only", "--invert-grep", *grep, "HEAD", "--", "topics/"])
        dirty = repo.git.execute(["git", "-c", "core.quotepath=off", "status", "--porcelain", "--no-renames",
                                  "--untracked-files=all", "--", "topics/"])
        splits = repo.git.execute(["git", "log", "--reverse", "--format=%s", "--grep=^sleep: split ", "HEAD"])
    except Exception:  # no history to read: every name is the writer's as far as anyone knows
        return set()
    paths = {line.strip() for line in str(out).splitlines() if line.strip().startswith("topics/")}
    paths |= {line[3:].strip() for line in str(dirty).splitlines() if line[3:].strip().startswith("topics/")}
    kept = {p[len("topics/"):] for p in paths}
    for subject in str(splits).splitlines():  # the parts of a person's topic that sleep split are the person's
        for m in _SPLIT.finditer(subject.removeprefix("sleep: ")):
            if m.group(1) in kept:
                kept.update(m.group(2).split(", "))
    return kept


_SPLIT = re.compile(r"(?:^|; )split (.+?) into (.+?)(?=; split |$)")  # split.SplitPlan.summary
