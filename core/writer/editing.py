"""One model-driven edit of a transaction, with exactly one repair attempt (DESIGN §5).

The writer, the organizer and backfill all run this way: the agent edits the
transaction's staging `topics/` with its tools, the transaction judges the result,
and a rejection gets one repair run — the stage reset, the model shown the rejected
text and each failed rule with its fix hint. A second rejection is `COMMIT_REJECTED`.

The audit (formats §4.8) collects every tool call plus one `commit` entry per
attempt; `changed_files(audit)` — the topic files an installed commit changed — is
what decides whether a batch may be marked: no error is not output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..memory import Diagnostic, SourceIndex, Transaction, TransactionResult
from ..paths import StatePaths
from ..redact import for_state as redactor_for
from .agent import ModelMisbehaved, run_agent
from .model import context_window, model_endpoint
from .progress import Monitor
from .prompts import CONTRACT, repair_task
from ..writer_status import append_history
from .tools import TopicTools

REJECTED_CHARS = 20_000


class Rejected(Exception):
    """Both attempts were rejected: nothing installed."""

    code = "COMMIT_REJECTED"
    retryable = False

    def __init__(self, result: TransactionResult, audit: list[dict[str, Any]]) -> None:
        super().__init__("repair edits were rejected too: " + "; ".join(
            f"{d.rule}: {d.message}" for d in result.diagnostics[:5]))
        self.result = result
        self.audit = audit


def changed_files(audit: list[dict[str, Any]]) -> list[str]:
    """Topic files changed by the installed commits recorded in an audit."""
    return sorted({p for e in audit if e.get("tool") == "commit" and e.get("status") == "ok"
                   for p in e.get("topic_paths", [])})


def edit_with_repair(txn: Transaction, *, paths: StatePaths, model: str, task: str, tools: tuple[str, ...],
                     stage: str, turns: int, timeout: float, monitor: Monitor | None = None,
                     reapply: Callable[[Transaction], object] | None = None,
                     ) -> tuple[TransactionResult, list[dict[str, Any]]]:
    """Run the agent on `txn`, commit (install, or preview), repair once on rejection.
    A `monitor` sees every step and may cancel the run before anything installs;
    `reapply` redoes, after the reset for the repair, what the caller staged first."""
    audit: list[dict[str, Any]] = []
    redactor = redactor_for(paths.root)
    prompt = task = redactor.text(task)
    endpoint = model_endpoint(paths.root)
    window = context_window(model, endpoint)
    for attempt in (1, 2):
        box = TopicTools(txn.topics_dir, _source_lookup(txn), tools)
        name = stage if attempt == 1 else f"{stage}-repair"
        if monitor is not None:
            monitor.enter(name)
        try:
            run = run_agent(model=model, system=CONTRACT, prompt=prompt, tools=box, stage=name, turns=turns,
                            timeout=timeout, monitor=monitor, redactor=redactor, endpoint=endpoint, window=window)
        except ModelMisbehaved as exc:  # the run as far as it went: what the model did is the story
            append_history(paths, {**exc.run.history_entry(), "model": model, "audit": exc.run.audit,
                                   "error": f"{exc.code}: {exc}"})
            raise
        except Exception as exc:
            append_history(paths, {"stage": name, "system_prompt": CONTRACT, "prompt": prompt,
                                   "error": f"{type(exc).__name__}: {exc}", "turns": turns})
            raise
        append_history(paths, {**run.history_entry(), "model": model, "audit": run.audit})
        audit += run.audit
        for block_id, reason in box.retirements.items():
            txn.retire(block_id, reason)
        if monitor is not None:
            monitor.enter("validate" if txn.preview else "install")
        txn.model_usage = model_usage(model, audit)
        result = txn.commit()
        if result.ok:
            audit.append({"tool": "commit", "status": "ok", "count": len(result.changed_topics),
                          "topic_paths": result.changed_topics})
            return result, audit
        audit.append({"tool": "commit", "status": "error", "output": problems(result.diagnostics)})
        if attempt == 1:
            rejected = _rejected_text(txn, result.diagnostics)
            txn.reset()
            if reapply is not None:
                reapply(txn)
            prompt = repair_task(task, problems(result.diagnostics), rejected)
    raise Rejected(result, audit)


def model_usage(model: str, audit: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's tokens in and out and litellm's cost over the runs of an audit (cost None: no price known)."""
    runs = [e for e in audit if e.get("tool") == "agent"]
    costs = [e["cost_usd"] for e in runs if isinstance(e.get("cost_usd"), (int, float))]
    return {"id": model, "input_tokens": sum(int(e.get("input_tokens") or 0) for e in runs),
            "output_tokens": sum(int(e.get("output_tokens") or 0) for e in runs),
            "cost_usd": round(sum(costs), 8) if costs else None}


def problems(diagnostics: list[Diagnostic]) -> str:
    """Each failed rule on one line, with where it failed and how to fix it."""
    lines = []
    for d in diagnostics:
        where = " ".join(x for x in (d.file or "", f"line {d.line}" if d.line else "",
                                     f"(^{d.block_id})" if d.block_id else "") if x)
        lines.append(f"- [{d.rule}] {where}: {d.message}. Fix: {d.hint}" if where else
                     f"- [{d.rule}] {d.message}. Fix: {d.hint}")
    return "\n".join(lines) or "- the edit was rejected"


def _rejected_text(txn: Transaction, diagnostics: list[Diagnostic]) -> str:
    """The staged text of the topic files the diagnostics point at, before the reset."""
    out = []
    for rel in dict.fromkeys(d.file for d in diagnostics if d.file and d.file.startswith("topics/")):
        path = txn.stage / rel
        if path.is_file() and not path.is_symlink():
            out.append(f"--- {rel}\n{path.read_text(encoding='utf-8', errors='replace')}")
    text = "\n".join(out)
    return text if len(text) <= REJECTED_CHARS else text[:REJECTED_CHARS] + "\n… (truncated)"


def _source_lookup(txn: Transaction):
    """`read_source`: the record text of a source ref, from the staged (read-only) archive."""
    index = SourceIndex(txn.stage)

    def lookup(ref: str) -> str | None:
        frame = index.resolve(ref)
        return frame.text if frame is not None and frame.lines else None

    return lookup
