"""A purge made on one machine, converged on every machine (issue 26, item 5).

`scriptorium purge` rewrites this machine's history and leaves a record in memory
(`purges.json`: the placeholders' tags, never the secret; core/purge/purge_record.py).
Its placeholder is the same on every machine for the same secret (core/purge/scrub.py),
so the same commits rewrite into the same commits wherever the purge runs. Sync then:

* on the purging machine, sees the remote's tip among the commits the purge replaced
  (`purge-map.json`) and replaces it with the purged history, without fetching it back;
* on any machine, finds a secret still held on one side by setting each block and
  evidence record beside the other side's copy: where one reads `[REDACTED:purged:TAG]`
  (or, in a renamed topic's path, `REDACTED-purged-TAG`)
  with TAG listed and the other has text there whose tag is TAG, that text is a purged
  secret. The machine purges it itself (its files, its sessions, every history, objects
  included; no backup) and merges again with the rewritten histories, which now share
  their commits with the remote's.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..memory.sources import scan_archive
from ..purge.purge import find, purge
from ..purge.purge_record import PURGES_FILE, read_tags
from ..purge.scrub import PURGED_KIND, Scrubber, purge_tag
from .blocks import side_blocks
from .redacted import hidden_spans

_MARKS = (f"REDACTED:{PURGED_KIND}:", f"REDACTED-{PURGED_KIND}-")  # a text's placeholder, a name's (scrub.py)


def _marked(text: str) -> bool:
    return any(mark in text for mark in _MARKS)


def _marked_bytes(*data: bytes) -> bool:
    return any(mark.encode() in d for mark in _MARKS for d in data)


class ReplayNeeded(Exception):
    """The merge found secrets purged elsewhere that this machine (or what it fetched) holds."""

    def __init__(self, secrets: set[str]) -> None:
        super().__init__(f"{len(secrets)} purged secret(s) to replay")
        self.secrets = secrets


def listed_tags(*trees: Mapping[str, bytes]) -> set[str]:
    return set().union(*(read_tags(t.get(PURGES_FILE)) for t in trees))


def _pairs(ours: Mapping[str, bytes], theirs: Mapping[str, bytes]) -> Iterator[tuple[str, str]]:
    """The two sides' texts of each block and record that both hold and that differ, where
    one of them holds a purge placeholder."""
    def topics(tree: Mapping[str, bytes]) -> dict[str, str]:
        return {p[len("topics/"):]: d.decode("utf-8", "replace") for p, d in tree.items() if p.startswith("topics/")}

    o_blocks, t_blocks = side_blocks(topics(ours))[0], side_blocks(topics(theirs))[0]
    for bid, block in o_blocks.items():
        other = t_blocks.get(bid)
        if other is not None and other.text != block.text and _marked(block.text + other.text):
            yield block.text, other.text
    for rel, data in ours.items():
        other_data = theirs.get(rel)
        if not rel.startswith("sources/") or other_data is None or other_data == data \
                or not _marked_bytes(data, other_data):
            continue
        mine, their = scan_archive(data, rel), scan_archive(other_data, rel)
        for sid, frame in mine.by_id.items():
            twin = their.by_id.get(sid)
            if twin is not None and twin.text != frame.text:
                yield frame.text, twin.text


def held_secrets(tags: set[str], ours: Mapping[str, bytes], theirs: Mapping[str, bytes]) -> set[str]:
    """Secrets one side still holds where the other shows a listed purge placeholder."""
    found: set[str] = set()
    if not tags:
        return found
    for a, b in _pairs(ours, theirs):
        for redacted, plain in ((a, b), (b, a)):
            for kind, tag, hidden in hidden_spans(redacted, plain) or ():
                if kind != PURGED_KIND or tag not in tags:
                    continue
                for secret in dict.fromkeys((hidden, urllib.parse.unquote(hidden))):  # a link's path is quoted
                    if purge_tag(secret) == tag:
                        found.add(secret)
    return found


def replay(state_dir: Path, secrets: set[str]) -> int:
    """Purge each secret here as its own machine did; how many were found and purged."""
    done = 0
    for secret in sorted(secrets):
        scrub = Scrubber.for_text(secret)
        report = find(state_dir, scrub)
        if report.found:
            purge(state_dir, scrub, report, backup=False, record=False)
            done += 1
    return done
