"""One commit's facts beside its diff: what kind of change, when, the audit record of
its transaction (blocks created and retired, evidence archived) and the files it changed."""

from __future__ import annotations

from textual.content import Content

from scriptorium.core.sanitize import sanitize_line
from scriptorium.core.wording import count

from ..common.formatting import stamp
from .model import CommitDetail
from ..common.text_panel import ContentPanel

LABEL = 10
SHOWN_IDS = 12


def _row(label: str, value: str | Content, style: str = "") -> Content:
    body = value if isinstance(value, Content) else Content.styled(sanitize_line(value), style)
    return Content.assemble((label.ljust(LABEL), "$muted-text"), body)


def _ids(ids: list[str]) -> str:
    shown = " ".join("^" + i for i in ids[:SHOWN_IDS])
    return shown + (f" … +{len(ids) - SHOWN_IDS}" if len(ids) > SHOWN_IDS else "")


def record_content(detail: CommitDetail) -> Content:
    row, audit = detail.row, detail.audit
    lines = [
        _row("commit", row.sha, "bold"),
        _row("kind", row.kind or "— (not a transaction)", "bold"),
        _row("time", stamp(row.at)),
        _row("summary", row.summary),
        Content(""),
    ]
    if audit is None:
        lines.append(Content.styled("No audit record: this commit was not made by a transaction.", "$muted-text"))
    else:
        created = [str(i) for i in audit.get("created_blocks") or []]
        retired = [r for r in audit.get("retired") or [] if isinstance(r, dict)]
        archived = audit.get("archived") or []
        # only what the transaction did: an edit that created and retired nothing says so once
        lines.append(Content.styled("Audit record", "bold"))
        if created:
            lines.append(_row("created", f"{count(len(created), 'block')}  {_ids(created)}".rstrip()))
        if retired:
            lines.append(_row("retired", count(len(retired), "block")))
            lines += [Content.assemble(("  ^" + sanitize_line(str(r.get("id", "?"))), "$node-rewound"), "  ",
                                       sanitize_line(str(r.get("reason", "")))) for r in retired[:SHOWN_IDS]]
        if archived:
            lines.append(_row("archived", count(len(archived), "source record")))
        if not (created or retired or archived):
            lines.append(_row("changed", "blocks edited in place: none created, retired or archived"))
        lines.append(_row("workspace", str(audit.get("workspace", "—"))))
    lines += [Content(""), Content.styled("Files", "bold")]
    for path, added, removed in detail.stats:
        counts = (Content.assemble((f"+{added}", "$text-success"), " ", (f"−{removed}", "$text-error"))
                  if added is not None and removed is not None else Content.styled("binary", "$muted-text"))
        lines.append(Content.assemble(counts.pad_right(max(0, 12 - counts.cell_length)), sanitize_line(path)))
    if detail.revertable:
        lines += [Content(""),
                  Content.assemble(("u", "bold $text-accent"), " reverts this commit (a new, validated commit)")]
    return Content("\n").join(lines)


class CommitRecord(ContentPanel):
    def show(self, detail: CommitDetail | None, empty: str = "") -> None:
        self.show_body(record_content(detail) if detail is not None else None, empty)
