"""Property: whatever a transcript contains — reordered, duplicated, truncated, corrupted or
foreign records — planning never raises and always yields a plan the store can append."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scriptorium.core.importers import importer
from scriptorium.core.importers.plan import SessionPlan
from scriptorium.core.sessions.nodes import ROOT_ID, valid_node_id

from .conftest import CC_MAIN, CC_REWIND, CC_TOOL_HEAVY, CODEX_SMALL, PI_BRANCHING, PI_SMALL

SOURCES = {"claude-code": [CC_REWIND, CC_TOOL_HEAVY, CC_MAIN], "pi": [PI_BRANCHING, PI_SMALL], "codex": [CODEX_SMALL]}
LINES = {kind: [l for p in paths for l in p.read_text().splitlines()[:120]] for kind, paths in SOURCES.items()}

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                           max_leaves=8)


def corrupt(line: str, data: st.DataObject) -> str:
    """Replace one value somewhere in the record (top level or nested) with random JSON."""
    record = json.loads(line)
    target = record
    while isinstance(target, dict) and target:
        key = data.draw(st.sampled_from(sorted(target)))
        if isinstance(target[key], dict) and target[key] and data.draw(st.booleans()):
            target = target[key]
            continue
        target[key] = data.draw(json_values)
        break
    return json.dumps(record)


def check_appendable(plan: SessionPlan) -> None:
    """The order and references `apply_plan` relies on."""
    chain: set[str] = set()
    seen: set[str] = set()
    pred: dict[str, str | None] = {}
    for node in plan.nodes:
        assert valid_node_id(node.id) and node.id != ROOT_ID and node.id not in seen
        seen.add(node.id)
        if node.kind in ("user", "assistant"):
            assert node.predecessor == ROOT_ID or node.predecessor in chain
        elif node.kind == "spawn":
            assert node.predecessor is None and (node.caller == ROOT_ID or node.caller in chain)
        elif node.kind == "tool":
            assert node.predecessor is None and node.caller in chain
        else:
            assert node.kind == "summary" and node.covers and set(node.covers) <= chain
            assert all(pred[b] == a for a, b in zip(node.covers, node.covers[1:]))  # one contiguous stretch
        if node.kind in ("user", "assistant", "spawn"):
            chain.add(node.id)
            pred[node.id] = node.predecessor


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(SOURCES)), data=st.data())
def test_any_mix_of_records_plans_cleanly(tmp_path: Path, kind: str, data: st.DataObject) -> None:
    pool = LINES[kind]
    picks = data.draw(st.lists(st.integers(0, len(pool) - 1), max_size=60))
    lines = [pool[i] for i in picks]
    for _ in range(data.draw(st.integers(0, 4))):
        if lines:
            at = data.draw(st.integers(0, len(lines) - 1))
            lines[at] = corrupt(lines[at], data)
    lines += data.draw(st.lists(st.text(max_size=30) | json_values.map(json.dumps), max_size=3))
    path = tmp_path / f"{kind}-{len(lines)}-{abs(hash(tuple(lines)))}.jsonl"
    path.write_text("".join(l.replace("\n", " ") + "\n" for l in lines))
    module = importer(kind)
    for plan in module.plan_sessions(module.discover([path])):
        check_appendable(plan)
