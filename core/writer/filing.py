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
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..redact.placeholder import PLACEHOLDER_RE
from .distil import Block, Turn, distil, group, topic_phrase
from .keywords import slug, stems

CORE = "core.md"
_GENERIC_DIRS = frozenset({"src", "app", "repo", "code", "work", "workspace", "project", "projects", "home", "tmp"})


@dataclass(frozen=True)
class Record:
    ref: str
    role: str
    content: str
    time: str


@dataclass(frozen=True)
class Context:
    user: str = ""
    assistant: str = ""
    cwd: str = ""
    core_budget: int = 0

    @property
    def people(self) -> bool:
        """A conversation between people the session names (not a user and an agent)."""
        return bool(self.user and self.assistant) and not self.cwd and self.assistant not in ("Claude", "Codex", "pi")

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
    """The project of a working directory: its last folder, or the repository a worktree
    belongs to (`spotter-worktrees/x` → spotter, `spotter/.worktrees/x` → spotter)."""
    parts = [p for p in PurePosixPath(cwd.replace("\\", "/")).parts if p not in ("/", "")]
    for i, part in enumerate(parts):
        if part.endswith("-worktrees") and len(part) > 10:
            return slug(part[: -len("-worktrees")])
        if part in (".worktrees", "worktrees") and i > 0:
            return slug(parts[i - 1])
    named = [p for p in parts if p.casefold() not in _GENERIC_DIRS and not p.startswith(".")]
    return slug(named[-1]) if named else ""


def plan(records: list[Record], context: Context, listed: list[str]) -> list[Filed]:
    """The blocks of these records and the topic each goes to."""
    turns = [Turn(r.ref, r.role, context.name(r.role), context.name("assistant" if r.role == "user" else "user"),
                  r.content, r.time[:10] if re.match(r"\d{4}-\d{2}-\d{2}", r.time) else "undated", i)
             for i, r in enumerate(records)]
    names = {context.name("user"), context.name("assistant")}
    blocks = group(distil(turns), names, thread=context.people)
    phrases = topic_phrase(blocks)
    project = project_name(context.cwd) if context.cwd else ""
    existing = {p: stems(PurePosixPath(p).stem.replace("-", " ")) for p in listed if p != CORE}
    filed = []
    top = next((phrases[i] for i, b in enumerate(blocks) if b.key and i in phrases), "")
    for i, block in enumerate(blocks):
        phrase = phrases.get(i, top) or "notes"
        path = _topic(block, phrase, top, project, context, existing)
        filed.append(Filed(block, CORE if block.core else path, path, phrase))
    return filed


def _topic(block: Block, phrase: str, top: str, project: str, context: Context,
           existing: dict[str, set[str]]) -> str:
    if context.people:
        subjects = [n.subject or n.turn.speaker for n in block.notes]
        person = max(dict.fromkeys(subjects), key=subjects.count)
        return f"people/{slug(person)}.md"
    words = stems(phrase)
    if project:
        under = {p: s for p, s in existing.items() if p.startswith(f"{project}/")}
        match = _match(words, under)
        if match:
            return match
        if block.key and len(block.notes) > 1:
            return f"{project}/{slug(phrase)}.md"
        return f"{project}.md"
    match = _match(words, existing) or _match(stems(top), existing)
    if match:
        return match
    return f"{slug(phrase if block.key or not top else top)}.md"


def _match(words: set[str], existing: dict[str, set[str]]) -> str | None:
    """The existing topic whose name shares the most words with the phrase."""
    best = max(existing, key=lambda p: (len(existing[p] & words), -len(p)), default=None)
    return best if best is not None and existing[best] & words else None


def title(path: str) -> str:
    stem_ = PurePosixPath(path).stem.replace("-", " ")
    return stem_[:1].upper() + stem_[1:]


def render(filed: Filed, label: str) -> str:
    """The block as a paragraph citing all its turns, then its definition."""
    block = filed.block
    text = inline(block.text, 1200) or "(a turn without printable text)"
    words = re.sub(r"[^\w\s-]", " ", filed.phrase).split()
    keyword = inline(words[-1] if words else "", 40) or "note"  # a plain word: never brackets or markup
    links = ", ".join(f"[{keyword}]({ref})" for ref in block.refs)
    return f"{text}[^{label}]\n\n[^{label}]: Time: `{block.time}`; Sources: {links}"


def _debracket(text: str) -> str:
    return text.replace("[", "(").replace("]", ")").replace("<!--", "<!- -").replace("^", "\u02c6")


def inline(text: str, limit: int) -> str:
    """Conversation text made safe inside one paragraph: one line, no brackets (no
    citations, links or block ids can be forged), no HTML comment openers, and no
    trailing backslash (it would escape the citation that follows: `C:\\temp\\[^e1]`)."""
    text = "".join(ch for ch in text if ch.isprintable() or ch.isspace())
    parts = PLACEHOLDER_RE.split(" ".join(text.split()))  # a redaction placeholder stays one, brackets and all
    text = "".join(_debracket(part) if i % 3 == 0 else f"[REDACTED:{part}:{parts[i + 1]}]" if i % 3 == 1 else ""
                   for i, part in enumerate(parts))
    text = re.sub(r"(\[REDACTED:[^\]]*\])(?=[(\[])", r"\1 ", text)  # never a link's label
    if len(text) > limit:
        cut = text[: limit - 1]
        opened = cut.rfind("[")  # every bracket left opens a placeholder
        if opened >= 0 and "]" not in cut[opened:]:
            cut = cut[:opened]  # never half a placeholder
        text = cut.rstrip() + "\u2026"
    return text.rstrip("\\").rstrip()

