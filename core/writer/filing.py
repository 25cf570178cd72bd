"""Where the offline writer files its notes, and how a block is written.

Topics are named after what they are about, never after a message's first word:

* a coding session (the session knows its working directory): `<project>.md` for the
  project's notes, `<project>/<component>.md` for a component (a file, a module, a
  subject several notes share);
* a conversation between named people: `people/<name>.md`, the person the notes are
  about;
* otherwise the block's key phrase, reusing an existing topic whose name it shares.

Rules, preferences and identity facts go to `core.md` while its render budget lasts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from ..redact.placeholder import PLACEHOLDER_RE
from .distil import Block, Turn, distil, group, names_a_component, topic_phrase
from .keywords import COMMON_WORDS, is_content, phrases, slug, stems
from .people import joined
from .prompts import AGENT_NAMES
from .verbatim import CODE_SPAN

CORE = "core.md"
SUB_AGENT = "The sub-agent"
# folder names that say nothing of a project: its topic takes the nearest other folder's name
GENERIC_DIRS = frozenset({"src", "app", "repo", "code", "work", "workspace", "project", "projects", "home", "tmp"})


@dataclass(frozen=True)
class Record:
    ref: str
    role: str
    content: str
    time: str
    delegated: bool = False  # the agent's prompt to a sub-agent (the user's role in the session)


@dataclass(frozen=True)
class Context:
    user: str = ""
    assistant: str = ""
    cwd: str = ""
    core_budget: int = 0
    named_turns: bool = False  # both sides' turns begin with a person's name ("Caroline: ...")

    @property
    def people(self) -> bool:
        """A conversation between people the session names (not a user and an agent)."""
        if self.named_turns:
            return self.assistant not in AGENT_NAMES.values()
        return bool(self.user and self.assistant) and not self.cwd and self.assistant not in AGENT_NAMES.values()

    def name(self, role: str) -> str:
        if role == "user":
            return self.user or "The user"
        return self.assistant or "The assistant"


@dataclass
class Filed:
    block: Block
    path: str
    fallback: str  # where a core block goes when the core is full
    phrase: str


def project_name(cwd: str) -> str:
    """The project of a working directory: its last folder that is not a generic one (`src`,
    `repo`) nor the home folder's user name (`/Users/user/repo` → repo), or the repository a
    worktree belongs to (`spotter-worktrees/x` → spotter, `spotter/.worktrees/x` → spotter); none for a
    folder mkdtemp made (`/tmp/tmpqwh7888i`)."""
    parts = [p for p in PurePosixPath(cwd.replace("\\", "/")).parts if p not in ("/", "")]
    for i, part in enumerate(parts):
        if part.endswith("-worktrees") and len(part) > 10:
            return slug(part[: -len("-worktrees")])
        if part in (".worktrees", "worktrees") and i > 0:
            return slug(parts[i - 1])
    if len(parts) >= 2 and parts[0].casefold() in ("users", "home"):  # /Users/<name>/repo: the name is the person's
        parts = parts[2:]
    folders = [p for p in parts if not p.startswith(".")]
    if folders and _temporary(folders[-1]):  # a scratch folder (a test harness's run): no project
        return ""
    named = [p for p in folders if p.casefold() not in GENERIC_DIRS]
    return slug(named[-1]) if named else slug(folders[-1]) if folders else ""


def generic_folder(cwd: str) -> bool:
    """A working directory whose project name says nothing of the project: every folder of it
    generic (`/Users/user/repo`) or made by mkdtemp (`/tmp/tmpqwh7888i`)."""
    name = project_name(cwd)
    return not name or name in GENERIC_DIRS


# what the turns call the project: "the codemie-code repository", "this Python project", "the todo app"
_PROJECT_NOUNS = r"(?:project|repository|repo|codebase|monorepo|library|package|crate|app|application|service|cli)"
_NAMED_PROJECT = re.compile(r"\b(?:the|this|our|your|my)\s+((?:[A-Za-z][\w.-]*[A-Za-z0-9]\s+){1,2}?)" + _PROJECT_NOUNS
                            + r"\b(?!\s*(?:'s\s+)?(?:root|folder|directory|structure)\b)", re.I)
_NOT_A_NAME = frozenset("""
current whole entire same main existing new old other original overall full correct requested specific single first
last following given target upstream local remote parent sample example demo test real actual right wrong complete
standalone separate underlying rest base larger smaller bigger root top mature modern simple relevant
""".split()) | GENERIC_DIRS
# a name as a project spells it (`codemie-code`, `python_utils`, `CodeMie`): it is the name; plain words are a
# phrase with their noun ("this Python project" -> python-project)
_ITSELF = frozenset({"project", "repository", "repo", "codebase", "monorepo"})
_IDENTIFIER = re.compile(r"[-_.\d]|[a-z][A-Z]")


def named_project(texts: Iterable[str], plain: bool = True) -> str:
    """The project the turns name, for a session whose working directory says nothing of it
    (`/Users/user/repo`, a mkdtemp folder): "the codemie-code repository" -> `codemie-code`,
    "Port this Python project to Rust" -> `python-project`; the name said most often (a
    project's own spelling before a phrase of plain words; those only when `plain`: a session
    with no project folder at all), none when nothing names one."""
    said: Counter[str] = Counter()
    for text in texts:
        for m in _NAMED_PROJECT.finditer(text):
            words = m.group(1).split()
            if any(w.casefold() in _NOT_A_NAME or w.casefold() in FUNCTION_WORDS or not _IDENTIFIER.search(w)
                   and (not is_content(w.casefold()) or w.casefold().endswith("ed")) for w in words):
                # "the current repository", "the restructured application": which one, not its name
                continue
            noun = m.group(0).split()[-1].casefold()
            if len(words) == 1 and _IDENTIFIER.search(words[0]):
                if noun in _ITSELF:  # "the sqlite3 library" is one it uses
                    said[slug(words[0])] += 2  # the project's own name, as it spells it
            elif plain:
                said[slug(" ".join([*words, "repository" if noun == "repo" else noun]))] += 1
    if not said:
        return ""
    name, _ = min(said.items(), key=lambda kv: (-kv[1], kv[0]))
    return name if good_name(name.replace("-", " ")) else ""


# a folder made by mkdtemp or mktemp (`/tmp/tmpqwh7888i`, `tmp.Xa3b9QdE1k`): no project's name
_TEMPORARY = re.compile(r"^tmp[._-]?(?=[A-Za-z_]*\d)[A-Za-z0-9_]{6,12}$")


def _temporary(folder: str) -> bool:
    return bool(_TEMPORARY.match(folder))


WORDS_PER_NEW_TOPIC = 2000  # at most one new topic per this many words of transcript
_NAME_PREFIX = re.compile(r"^[ \t]*([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):[ \t]+(?=\S)")
_ROLE_LABELS = frozenset("""
user assistant human ai system bot agent me you note notes error errors warning warnings update updates todo summary
answer question q a tip info example output input result results step steps edit fix fixed usage hint important caution
""".split())
_HEX_LIKE = re.compile(r"^(?=.*\d)[0-9a-f]{5,}$|\d{4,}")


def _prefixed_names(records: list[Record]) -> dict[str, str]:
    """The speaker names of a transcript whose turns begin "Name: ": for each role, the name
    that begins (nearly) all of its turns."""
    names: dict[str, str] = {}
    for role in ("user", "assistant"):
        mine = [r for r in records if r.role == role]
        found = Counter(m.group(1) for r in mine if (m := _NAME_PREFIX.match(r.content))
                        and m.group(1).casefold() not in _ROLE_LABELS)
        if mine and found:
            name, count = found.most_common(1)[0]
            if sum(found.values()) >= 0.8 * len(mine) and count >= 0.5 * len(mine):
                names[role] = name
    return names


def _turns(records: list[Record], context: Context) -> tuple[list[Turn], Context]:
    """The turns with their speakers: the session's speakers metadata, or the names that
    begin the turns ("Caroline: ..."), which are then cut from the text."""
    named = _prefixed_names(records)
    if named:
        context = replace(context, user=named.get("user", context.user),
                          assistant=named.get("assistant", context.assistant),
                          named_turns=bool(named.get("user") and named.get("assistant")))
    turns = []
    for i, r in enumerate(records):
        role = "assistant" if r.delegated else r.role  # a sub-agent's prompt: the agent speaks, to it
        text, speaker = r.content, context.name(role)
        m = _NAME_PREFIX.match(text)
        if named and m and m.group(1).casefold() not in _ROLE_LABELS:
            text, speaker = text[m.end():], m.group(1)
        other = SUB_AGENT if r.delegated else context.name("assistant" if role == "user" else "user")
        turns.append(Turn(r.ref, role, speaker, other if other != speaker else "", text,
                          r.time[:10] if re.match(r"\d{4}-\d{2}-\d{2}", r.time) else "undated", i,
                          work=not context.people, delegated=r.delegated, at=r.time if r.time[:1].isdigit() else ""))
    return turns, context


def plan(records: list[Record], context: Context, listed: list[str]) -> list[Filed]:
    """The blocks of these records and the topic each goes to."""
    turns, context = _turns(records, context)
    names = {context.name("user"), context.name("assistant")} | {t.speaker for t in turns}
    blocks = group(distil(turns), names, thread=context.people)
    if context.people:
        blocks = joined(blocks)
    phrases = topic_phrase(blocks)
    project = project_name(context.cwd) if context.cwd and not context.people else ""
    if context.cwd and not context.people and generic_folder(context.cwd):
        # `/Users/user/repo`, a mkdtemp folder: the project the turns name ("the codemie-code repository")
        # "the TUI package" names a component of a project whose folder is `repo`; one made by mkdtemp has none
        project = named_project((r.content for r in records), plain=not project) or project
    existing = {p: stems(PurePosixPath(p).stem.replace("-", " ")) for p in listed if p != CORE}
    named = [i for i, b in enumerate(blocks) if i in phrases and good_name(phrases[i])]
    top = next((phrases[i] for i in named if blocks[i].key), next((phrases[i] for i in named), ""))
    words = sum(len(r.content.split()) for r in records)
    shared = _shared_phrases(blocks)
    paths = [_topic(block, phrases.get(i, ""), top, project, context, existing, shared) for i, block in enumerate(blocks)]
    paths = _bounded(paths, blocks, listed, words, _base(project, top, context, existing), bool(project))
    return [Filed(block, CORE if block.core else path, path, phrases.get(i, top) or "notes")
            for i, (block, path) in enumerate(zip(blocks, paths))]


def _base(project: str, top: str, context: Context, existing: dict[str, set[str]]) -> str:
    """Where a block goes when no topic of its own is due: the project's topic, else the
    existing topic nearest the session's subject, else one named by it."""
    if project:
        return f"{project}.md"
    match = _match(stems(top), existing) if top else None
    return match or (f"{slug(top)}.md" if top else "notes.md")


def _bounded(paths: list[str], blocks: list[Block], listed: list[str], words: int, base: str,
             project: bool = False) -> list[str]:
    """At most one new topic per WORDS_PER_NEW_TOPIC words of the batch. The base topic is
    chosen first: a coding session's project topic always (a short session files into it),
    another base only when the budget has room for it or the batch has no existing topic to
    file into. The other new topics that gather the most notes take what is left of the
    budget; the blocks of the rest go to the closest topic already chosen."""
    have = set(listed)

    def new(path: str) -> bool:
        return path not in have and not path.startswith("people/")

    budget = words // WORDS_PER_NEW_TOPIC
    chosen = [p for p in dict.fromkeys(paths) if not new(p)]  # existing topics the batch files into
    if not new(base) or project or budget > 0 or not [p for p in chosen if p != CORE]:
        chosen.append(base)
        budget -= new(base)
    weight: Counter[str] = Counter()
    for path, block in zip(paths, blocks):
        if new(path) and path != base:
            weight[path] += len(block.notes)
    chosen += [p for p, _ in weight.most_common(max(budget, 0))]
    homes = [p for p in dict.fromkeys(chosen) if p != CORE]
    profile = {h: stems(PurePosixPath(h).stem.replace("-", " ")) for h in homes}
    for path, block in zip(paths, blocks):
        if path in profile:
            profile[path] |= stems(block.text)
    return [p if p in chosen or not new(p) else _closest(block, homes, profile, base) for p, block in zip(paths, blocks)]


def _closest(block: Block, homes: list[str], profile: dict[str, set[str]], base: str) -> str:
    """The chosen topic whose name and blocks share the most stems with the block (by
    overlap over the square root of the topic's stems); the base topic when none is closer."""
    words = stems(block.text)
    scores = {h: len(words & profile[h]) / len(profile[h]) ** 0.5 for h in homes if profile[h]}
    best = max(scores, key=lambda h: (scores[h], h == base), default=None)
    return best if best is not None and scores[best] > 0 else base if base in homes else homes[0] if homes else base


# words that are no noun: a stray word of a sentence
FUNCTION_WORDS = frozenset("""
since because although though whilst while until unless whether however therefore thus hence meanwhile otherwise
instead already almost anyway perhaps maybe via per also just still even yet then than once twice here there where
when what which who whom whose why how about above below after before again against among around between during
into onto upon within without toward towards across along behind beyond despite except inside outside through
throughout under underneath unlike via whereas wherever whenever whichever whatever whoever rather quite very
""".split())


def good_name(phrase: str) -> bool:
    """A topic name names a subject: not a stop word, function word or filler alone
    (`since`), not hex or a number, not a fragment mixing scripts (sleep renames a topic
    whose name is not, renaming.py)."""
    words = [w for w in re.split(r"[\s_-]+", phrase.casefold()) if w]
    if not words or any(_HEX_LIKE.search(w) for w in words):
        return False
    if len(words) == 1 and (len(words[0]) < 3 or not is_content(words[0]) or words[0] in COMMON_WORDS
                            or words[0] in FUNCTION_WORDS):
        return False
    scripts = {_script(ch) for w in words for ch in w if ch.isalpha()}
    if len(scripts) != 1:
        return False
    if "cjk" in scripts:
        return len("".join(words)) >= 2 and not any("\u3040" <= ch <= "\u30ff" for ch in phrase) or \
            len("".join(words)) >= 3
    return True


def _script(ch: str) -> str:
    if "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff":
        return "cjk"
    return "latin" if ch.isascii() or "\u00c0" <= ch <= "\u024f" else "other"


def _shared_phrases(blocks: list[Block]) -> set[str]:
    """Key phrases two blocks of the batch or more say: a subject, not one block's words."""
    seen: Counter[str] = Counter(p for b in blocks for p in set(phrases(b.text)))
    return {p for p, n in seen.items() if n >= 2}


def _topic(block: Block, phrase: str, top: str, project: str, context: Context,
           existing: dict[str, set[str]], shared: set[str]) -> str:
    if context.people:
        subjects = [n.subject or n.turn.speaker for n in block.notes]
        person = max(dict.fromkeys(subjects), key=subjects.count)
        return f"people/{slug(person)}.md"
    words = stems(phrase) if good_name(phrase) else set()
    if project:
        under = {p: s for p, s in existing.items() if p.startswith(f"{project}/")}
        match = _match(words, under)
        if match:
            return match
        if words and block.key and len(block.notes) > 1 and phrase in shared and names_a_component(phrase):
            # a component several blocks name
            return f"{project}/{slug(phrase)}.md"
        return f"{project}.md"
    match = _match(words, existing) or _match(stems(top), existing)
    if match:
        return match
    if words and block.key and len(block.notes) > 1:
        return f"{slug(phrase)}.md"
    return f"{slug(top)}.md" if top else "notes.md"


def _match(words: set[str], existing: dict[str, set[str]]) -> str | None:
    """The existing topic whose name shares the most words with the phrase."""
    best = max(existing, key=lambda p: (len(existing[p] & words), -len(p)), default=None)
    return best if best is not None and existing[best] & words else None


def title(path: str, texts: Iterable[str] = ()) -> str:
    """A topic's heading from its file name, each word spelled as the blocks filed into it
    spell it: a folder `ci-runners` whose blocks say "the CI runners" is "CI runners", not
    "Ci runners" (a word the texts write in lower case, or capitalized only, stays as it is)."""
    words = PurePosixPath(path).stem.replace("-", " ").split(" ")
    said: dict[str, Counter[str]] = {}
    wanted = {w.casefold() for w in words if w}
    for text in texts:
        for token in _SPELLED.findall(text):
            if token.casefold() in wanted:
                said.setdefault(token.casefold(), Counter())[token] += 1
    out = []
    for word in words:
        spellings = said.get(word.casefold())
        best = spellings.most_common(1)[0][0] if spellings else word
        # only a spelling no sentence start explains: "CI", "LiveView", "iOS" (not "Runners")
        out.append(best if best != best.capitalize() and best != best.casefold() else word)
    heading = " ".join(out)
    return heading[:1].upper() + heading[1:]


_SPELLED = re.compile(r"[^\W_]+")


def render(filed: Filed, label: str) -> str:
    """The block as a paragraph citing all its turns, then its definition."""
    block = filed.block
    text = inline(block.text, 1200) or "(a turn without printable text)"
    words = re.sub(r"[^\w\s-]", " ", filed.phrase).split()
    keyword = inline(words[-1] if words else "", 40) or "note"  # a plain word: never brackets or markup
    links = ", ".join(f"[{keyword}]({ref})" for ref in block.refs)
    return f"{text}[^{label}]\n\n[^{label}]: Time: `{block.time}`; Sources: {links}"


def _debracket(text: str, code: bool = False) -> str:
    """Brackets and carets turned round, outside code spans when `code` (inside one, markdown
    reads them as code: `[^e1]` there is no citation, `arr[0]` is said as written)."""
    if code:
        pieces = CODE_SPAN.split(text)  # prose, span, prose, ...
        return "".join(p.replace("<!--", "<!- -") if k % 2 else _debracket(p) for k, p in enumerate(pieces))
    return text.replace("[", "(").replace("]", ")").replace("<!--", "<!- -").replace("^", "\u02c6")


def inline(text: str, limit: int) -> str:
    """Conversation text made safe inside one paragraph: one line, no brackets outside code
    spans (no citations, links or block ids can be forged; a code span's are its code's,
    verbatim.py), no HTML comment openers, and no trailing backslash (it would escape the
    citation that follows: `C:\\temp\\[^e1]`)."""
    text = "".join(ch for ch in text if ch.isprintable() or ch.isspace())
    code = any(c in span for span in CODE_SPAN.findall(text) for c in "[]^")
    said = _inline(text, limit, code)
    if code:
        from ..memory.topics import scan_inline

        cited, linked = scan_inline(said)
        if cited or linked:  # a span cut open, an escape markdown reads otherwise: no bracket of it kept
            return _inline(text, limit, False)
    return said


def _inline(text: str, limit: int, code: bool) -> str:
    parts = PLACEHOLDER_RE.split(" ".join(text.split()))  # a redaction placeholder stays one, brackets and all
    text = "".join(_debracket(part, code) if i % 3 == 0 else f"[REDACTED:{part}:{parts[i + 1]}]" if i % 3 == 1
                   else "" for i, part in enumerate(parts))
    text = re.sub(r"(\[REDACTED:[^\]]*\])(?=[(\[])", r"\1 ", text)  # never a link's label
    if len(text) > limit:
        cut = text[: limit - 1]
        opened = cut.rfind("[")  # every bracket left opens a placeholder
        if opened >= 0 and "]" not in cut[opened:]:
            cut = cut[:opened]  # never half a placeholder
        text = cut.rstrip() + "\u2026"
    return text.rstrip("\\").rstrip()

