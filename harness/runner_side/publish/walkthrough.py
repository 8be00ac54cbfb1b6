"""What the hand-written engine did with one scenario, step by step, as lines for a person writing a scenario.

Input is the record the runner builds for the engine's run (``steps``, ``facts``, ``trace``,
``observables``): the same record ``evidence/handwritten.json`` holds, so what this prints is what
the comparison measures. Nothing here runs anything.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from harness.runner_side.observe.observables import NA, OBSERVABLES, OPTIONAL, expected_names
from harness.scenarios import Scenario

_CUT = 90  # characters of an event's or driver step's value shown on a line; the rest is cut with an ellipsis
_WIDTH = 100  # observables are shown whole, wrapped at this width
_DRIVER_FIELDS = ("event_id", "call_id", "misuse", "other_call_id", "outcome", "name", "reason", "input", "advance_clock_s")
_LEDGER = (("entered", "tool"), ("executed", "executor"), ("effects", "effects"))


def _compact(value: Any, limit: int = _CUT) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _driver_step(step: dict[str, Any]) -> str:
    """A driver step as written in the scenario: its action and the fields it sets."""
    fields = [f"{k}={_compact(step[k], 30)}" for k in _DRIVER_FIELDS if k in step]
    return " ".join([step["action"], *fields])


def _ledger(fact: dict[str, Any]) -> list[str]:
    """What this step added to the ledger, per call id: tool function entries, executor entries, committed effects."""
    calls = sorted({cid for name, _ in _LEDGER for cid in fact.get(name, {})})
    return [f"{cid} " + " ".join(f"{label}+{fact.get(name, {}).get(cid, 0)}" for name, label in _LEDGER) for cid in calls]


def _what_happened(fact: dict[str, Any]) -> list[str]:
    parts = []
    if fact.get("killed"):
        parts.append("worker killed by a fault")
    if fact.get("raised"):
        parts.append(f"raised {fact['raised']}")
    if fact.get("resumed"):
        parts.append(f"resumed at {fact['resumed']}")
    if fact.get("dedup_by"):
        parts.append("duplicate delivery deduplicated")
    if fact.get("granted"):
        parts.append("granted " + ", ".join(fact["granted"]))
    if fact.get("results"):
        parts.append("results " + ", ".join(f"{cid} {status}" for cid, status in fact["results"]))
    if fact.get("pending"):
        parts.append("waiting for approval of " + ", ".join(fact["pending"]))
    return parts


def _event(event: dict[str, Any]) -> str:
    rest = {k: v for k, v in event.items() if k not in ("kind", "driver_step")}
    return " ".join([event["kind"], *(f"{k}={_compact(v, 40)}" for k, v in sorted(rest.items()))])


def _whole(label: str, value: Any) -> list[str]:
    """A value in full, as compact JSON wrapped at ``_WIDTH`` (never cut: it is what the comparison reads)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return textwrap.wrap(f"{label}: {text}", _WIDTH, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False)


def _final(observables: dict[str, Any]) -> list[str]:
    """The observables the comparison reads, each in full."""
    lines = []
    effects = observables["side_effects"]
    shown = {
        "status": observables["status"],
        "step_statuses": ", ".join(observables["step_statuses"]),
        "refusals": ", ".join(observables["refusals"]) or "none",
        "side_effects": "; ".join(
            f"{cid} tool {c['tool_entries']} executor {c['executor_entries']} effects {c['effects']}" for cid, c in sorted(effects.items())
        ) or "none entered",
    }  # fmt: skip
    for name in OBSERVABLES:
        if name not in OPTIONAL or observables[name] != NA:  # a run in process has nothing on the wire; one whose tools are in process, no MCP client
            lines += _whole(name, shown.get(name, observables[name]))
    return lines


def _verdict(observables: dict[str, Any], expected: dict[str, Any] | None, ok: bool) -> list[str]:
    if expected is None:
        return ["expected: no expectation given (the engine's run above is what every column is compared with)"]
    names = expected_names(expected)
    differing = [name for name in names if expected[name] != observables[name]]
    if not differing and ok:
        return [f"expected: met ({len(names)} observables equal)"]
    lines = [f"expected: NOT met: {', '.join(differing) or 'the run ended in an error'}"]
    for name in differing:
        lines += _whole(f"{name} expected", expected[name]) + _whole(f"{name} engine", observables[name])
    return lines


def walkthrough(scenario: Scenario, record: dict[str, Any], expected: dict[str, Any] | None, *, trace: bool = False) -> list[str]:
    """The engine's run of ``scenario``: per driver step the action, status, refusal and ledger effects by call
    id (with ``trace``, the engine's own events under each step), then the final observables and, when the
    scenario has an ``expected`` block, whether the run met it."""
    faults = ", ".join(f"{f.point}@{f.selector_text}" for f in scenario.faults) or "none"
    lines = [
        f"{scenario.id}: {scenario.description}",
        f"  tools {', '.join(scenario.tools)}; max_steps {scenario.max_steps}; {len(scenario.model_script)} model turns; "
        f"{len(scenario.driver)} driver steps; faults: {faults}",
    ]
    if record["status"] != "ok":
        lines.append(f"  the run ended in an error: {record['error']}")
    events: dict[int, list[dict[str, Any]]] = {}
    for event in record["trace"]:
        events.setdefault(event.get("driver_step", -1), []).append(event)
    for index, (driver, step, fact) in enumerate(zip(scenario.driver, record["steps"], record["facts"], strict=False)):
        status = f"refused: {step['refusal']}" if step["refusal"] and step["status"] == "refused" else step["status"]
        status += f" (refusal: {step['refusal']})" if step["refusal"] and step["status"] != "refused" else ""
        lines.append(f"step {index}  {_driver_step(driver)}  ->  {status}")
        if step["error"]:
            lines.append(f"    error: {step['error']}")
        ledger = _ledger(fact)
        lines.append("    ledger: " + ("; ".join(ledger) if ledger else "nothing entered"))
        lines += [f"    {part}" for part in _what_happened(fact)]
        if trace:
            lines += [f"      · {_event(e)}" for e in events.get(index, [])]
    for index in range(len(record["steps"]), len(scenario.driver)):
        lines.append(f"step {index}  {_driver_step(scenario.driver[index])}  ->  not run")
    lines.append("final observables:")
    lines += _final(record["observables"])
    lines += _verdict(record["observables"], expected, record["status"] == "ok")
    return lines
