"""Shrinking a failing scenario: a bounded, greedy delta-debugging of its driver steps, faults, turns and calls.

Each round lists every scenario one reduction smaller than the current one (a driver step, a fault, a turn or a call
left out, a tool not offered, an optional field dropped (a wire fault's ``retry_after`` and ``repeat`` among them),
one model turn fewer allowed), keeps those the loader accepts,
and asks ``still_fails`` about all of them at once (one batch through the runner, so a round costs one column process
per column, not one per candidate). The first that still fails the same way becomes the current scenario; shrinking
stops when none does or after ``MAX_ROUNDS`` rounds. References stay consistent: a step or fault naming a call that
is gone goes too, a restore goes with its snapshot, a ``reused`` token with the approvals before it.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness.canonical_io import dumps
from harness.errors import ScenarioError
from harness.scenarios import load_scenario

MAX_ROUNDS = 40
OPTIONAL_STEP_FIELDS = ("advance_clock_s", "input", "reason", "key", "session", "approval_meta", "ttl_s")
OPTIONAL_FAULT_FIELDS = ("retry_after", "repeat")


def _consistent(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every driver step and fault that names something no longer there left out."""
    ids = {c["id"] for t in doc["model_script"] for c in t.get("tool_calls", ())}
    steps, snapshots, approved = [], set(), False
    for index, step in enumerate(doc["driver"]):
        if index and any(step[name] not in ids for name in ("call_id", "other_call_id") if name in step):
            continue
        if step["action"] == "restore" and step["name"] not in snapshots:
            continue
        if step.get("misuse") == "reused" and not approved:
            continue
        snapshots |= {step["name"]} if step["action"] == "snapshot" else set()
        approved = approved or step["action"] == "approve"
        steps.append(step)
    turns = len(doc["model_script"])
    faults = [f for f in doc["faults"] if ("call_id" not in f or f["call_id"] in ids) and f.get("turn", 0) < turns]
    return {**doc, "driver": steps, "faults": faults}


def reductions(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every scenario one step smaller than ``doc``, the largest cuts first."""
    for i in range(len(doc["driver"]) - 1, 0, -1):
        yield _consistent({**doc, "driver": doc["driver"][:i] + doc["driver"][i + 1 :]})
    for i in range(len(doc["faults"])):
        yield {**doc, "faults": doc["faults"][:i] + doc["faults"][i + 1 :]}
    yield from _script_cuts(doc)
    yield from _field_cuts(doc)


def _script_cuts(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A turn left out (fault turns renumbered), a call left out of a turn, a turn's text dropped beside its calls."""
    script = doc["model_script"]
    for i in range(len(script) - 1, -1, -1):
        if len(script) > 1:
            faults = [f if f.get("turn", -1) <= i else {**f, "turn": f["turn"] - 1} for f in doc["faults"] if f.get("turn") != i]
            yield _consistent({**doc, "model_script": script[:i] + script[i + 1 :], "faults": faults})
        calls = script[i].get("tool_calls", [])
        for j in range(len(calls)):
            turn = {**script[i], "tool_calls": calls[:j] + calls[j + 1 :]}
            if not turn["tool_calls"]:
                turn = {k: v for k, v in turn.items() if k != "tool_calls"} or {"text": "Done."}
            yield _consistent({**doc, "model_script": script[:i] + [turn] + script[i + 1 :]})
        if "text" in script[i] and calls:
            yield {**doc, "model_script": script[:i] + [{"tool_calls": calls}] + script[i + 1 :]}


def _field_cuts(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A tool not offered, an optional field of the scenario, a driver step or a fault dropped, one model turn fewer allowed."""
    for i in range(len(doc["tools"])):
        if len(doc["tools"]) > 1:
            yield {**doc, "tools": doc["tools"][:i] + doc["tools"][i + 1 :]}
    for name in ("system_prompt", "user"):
        if name in doc:
            yield {k: v for k, v in doc.items() if k != name}
    for i, step in enumerate(doc["driver"]):
        for name in OPTIONAL_STEP_FIELDS:
            if name in step:
                yield {**doc, "driver": doc["driver"][:i] + [{k: v for k, v in step.items() if k != name}] + doc["driver"][i + 1 :]}
    for i, fault in enumerate(doc["faults"]):
        for name in OPTIONAL_FAULT_FIELDS:
            if name in fault:
                yield {**doc, "faults": doc["faults"][:i] + [{k: v for k, v in fault.items() if k != name}] + doc["faults"][i + 1 :]}
    if doc["max_steps"] > 1:
        yield {**doc, "max_steps": doc["max_steps"] - 1}


def loadable(doc: dict[str, Any]) -> bool:
    """Whether the project's loader accepts ``doc`` (a reduction may leave, say, a turn with an empty batch)."""
    with tempfile.TemporaryDirectory(prefix="shrink-") as directory:
        path = Path(directory) / f"{doc['id']}.json"
        path.write_text(dumps(doc), encoding="utf-8")
        try:
            load_scenario(path)
        except ScenarioError:
            return False
    return True


def shrink(doc: dict[str, Any], still_fails: Callable[[list[dict[str, Any]]], list[bool]], max_rounds: int = MAX_ROUNDS) -> tuple[dict[str, Any], int]:
    """The smallest scenario found that still fails, and the rounds it took. ``still_fails`` gets candidates (each with
    its own ``id``, ``<id>_r<round>_<n>``, and session) and says for each whether it fails as ``doc`` did."""
    current = copy.deepcopy(doc)
    for round_ in range(max_rounds):
        seen, candidates = set(), []
        for n, candidate in enumerate(reductions(current)):
            key = dumps({k: v for k, v in candidate.items() if k not in ("id", "session_id")})
            if key in seen:
                continue
            seen.add(key)
            named = {**candidate, "id": f"{doc['id']}_r{round_}_{n}", "session_id": f"sess-{doc['id']}_r{round_}_{n}"}
            if loadable(named):
                candidates.append(named)
        if not candidates:
            return current, round_
        verdicts = still_fails(candidates)
        smaller = next((c for c, failed in zip(candidates, verdicts, strict=True) if failed), None)
        if smaller is None:
            return current, round_
        current = smaller
    return current, max_rounds
