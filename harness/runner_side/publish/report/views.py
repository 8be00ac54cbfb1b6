"""What the report's scenario pages and the loop's replay show, read from the evidence documents by rule.

A scenario page has a row per driver step and a cell per column and mode: the step's status, refusal and error; the
calls waiting, the results delivered; the approvals granted and how a misused one reached the framework; the
checkpoints and idempotency keys the engine wrote; the trace events a reader should see (a schema or policy refusal,
an uncertain outcome, a reconciliation, the step bound); the ledger's counts per call id in the step (marked where
the effects exceed the engine's at the same step); a kill and where the resume continued; the wire requests of the
step. The unscripted text the model was sent and the record's reasons, with their rule ids, close the column.

The loop replays the engine's own trace of a flaky-tool scenario one event per click: what the page shows after an
event (the step against ``max_steps``, the attempt against the engine's bound, the messages array as it grows) is
computed here from the events up to it (and the scenario's own input text, which no event carries), and shipped in a
size linear in the trace: the events and the messages once, three counters per event.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.modes import compared_with
from harness.scenarios import Scenario


@dataclass
class Lane:
    """One lane of a cell: its name and its items (text, with the data attributes the page gives it)."""

    name: str
    items: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def add(self, text: str, **data: Any) -> None:
        self.items.append((text, {k: str(v) for k, v in data.items()}))


@dataclass
class StepCell:
    """What one column and mode did at one driver step."""

    status: str
    lanes: list[Lane]
    raw: dict[str, Any]


def records_for(documents: dict[str, dict[str, Any]], columns: list[str], scenario_id: str) -> dict[str, dict[str, Any]]:
    """Every record of the scenario, keyed ``<column>/<mode>`` (``@<schedule>`` added for a forced ordering's sub-case)."""
    out = {}
    for column in columns:
        name, mode = column.split("/")
        for key, record in sorted(documents[name].get("modes", {}).get(mode, {}).get("scenarios", {}).items()):
            if key.split("@")[0] == scenario_id:
                out[column + key[len(scenario_id):]] = record
    return out


def engine_record(documents: dict[str, dict[str, Any]], mode: str, scenario_id: str) -> dict[str, Any] | None:
    """The engine's record that a column's record is compared with: its wire run for a wire record, else its contract run."""
    column, engine_mode = compared_with(mode)
    runs: dict[str, dict[str, Any]] = documents.get(column, {}).get("modes", {}).get(engine_mode, {}).get("scenarios", {})
    return runs.get(scenario_id)


def step_cell(record: dict[str, Any], index: int, engine: dict[str, Any] | None) -> StepCell:
    """The cell of one record at driver step ``index``."""
    step = record["steps"][index] if index < len(record["steps"]) else None
    if step is None:
        return StepCell("not reached", [], {})
    facts = _facts(record, index)
    theirs = _facts(engine, index) if engine is not None else None
    trace = [e for e in record.get("trace", ()) if e.get("driver_step") == index]
    status, lanes = Lane("status"), []
    status.add(step["status"], status=step["status"])
    if step.get("refusal"):
        status.add(f"refused: {step['refusal']}", refusal="true")
    if step.get("error"):
        status.add(f"error: {step['error']}", error="true")
    if facts.get("killed"):
        status.add("the worker was killed here", kill="true")
    if facts.get("resumed"):
        status.add(f"resumed at {facts['resumed']}", resumed=facts["resumed"])
    lanes.append(status)
    lanes.append(_model_lane(record, index, trace))
    calls = Lane("calls")
    for call_id in facts.get("pending", ()):
        calls.add(f"{call_id} waits for a decision", call_id=call_id, pending="true")
    for call_id, outcome in facts.get("results", ()):
        calls.add(f"{call_id} → {outcome}", call_id=call_id, result=outcome)
    for call_id, effects in facts.get("ran_with", {}).items():  # the runner's ledger: what each effect committed, beside what was asked
        for effect in effects:
            calls.add(f"{call_id} took effect with {json.dumps(effect, sort_keys=True)}", call_id=call_id, ran="true")
    lanes.append(calls)
    lanes.append(_approval_lane(facts, trace, _observable(record, "pre_approval_state"), index))
    lanes.append(_checkpoint_lane(trace, record.get("trace", ())))
    lanes.append(_events_lane(trace))
    lanes.append(_ledger_lane(facts, theirs))
    return StepCell(step["status"], [lane for lane in lanes if lane.items], {"step": step, "facts": facts, "trace": trace})


def _facts(record: dict[str, Any] | None, index: int) -> dict[str, Any]:
    if record is None:
        return {}
    return next((f for f in record.get("facts", ()) if f.get("step") == index), {})


def _model_lane(record: dict[str, Any], index: int, trace: list[dict[str, Any]]) -> Lane:
    """The model's turns answered in the step (the engine's trace) and, over the wire, each request with what it
    carried and what it met."""
    lane = Lane("model")
    for event in trace:
        if event["kind"] == "model_turn":
            asked = ", ".join(event.get("call_ids") or ()) or f"final text: {event.get('final_text')}"
            lane.add(f"model step {event['step']}: {asked}", model_step=event["step"])
    for request in record.get("wire_requests", ()):
        if request.get("step") == index:
            lane.add(f"request for turn {request['turn']}: {request.get('messages')} messages, {request.get('bytes')} bytes; met {request.get('answer')}"
                     + (f" ({request['fault']})" if request.get("fault") else ""), turn=request["turn"], answer=request.get("answer"))  # fmt: skip
    return lane


def model_sent(record: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """What the model was sent that nobody scripted: the injected text with the role it arrived in, and the roles that
    carried the injection marker (the ``model`` observable)."""
    cell = record.get("columns", {}).get("model", {})
    model = cell.get("framework") if cell else record.get("actual", {}).get("model")
    if not isinstance(model, dict):
        return []
    items = [(text, {"injected": "true", "role": text.split(":", 1)[0]}) for text in map(str, model.get("injected", ()))]  # "<role>: <text>"
    items += [(f"the injection marker arrived as {role}", {"marker-role": str(role)}) for role in model.get("marker_roles", ())]
    return items


def _observable(record: dict[str, Any], name: str) -> Any:
    """One observable of a record: a column's as the framework gave it, the engine's as it measured it."""
    cell = record.get("columns", {}).get(name)
    return cell["framework"] if cell is not None else record.get("actual", {}).get(name)


def _approval_lane(facts: dict[str, Any], trace: list[dict[str, Any]], pre_approval: Any, index: int) -> Lane:
    """What the human was asked at a pause (the pending calls with the arguments they would approve, validated or not,
    the effects so far), the decisions made before which effects, what was granted, and how a misused approval went in."""
    lane = Lane("approvals")
    state = pre_approval if isinstance(pre_approval, dict) else {}
    for pause in (p for p in state.get("pauses", ()) if p.get("step") == index):
        for call in pause.get("pending", ()):
            lane.add(f"asked: {call.get('call_id')} {call.get('tool')} {json.dumps(call.get('args'), sort_keys=True)}"
                     f" (arguments validated before the pause: {'yes' if pause.get('args_validated') else 'no'})",
                     call_id=call.get("call_id"), asked="true")  # fmt: skip
    for decision in (d for d in state.get("decisions", ()) if d.get("step") == index):
        before = decision.get("effects_before") or {}
        lane.add(f"decided: {decision.get('action')} {decision.get('call_id')}; effects before it: {json.dumps(before, sort_keys=True)}",
                 call_id=decision.get("call_id"), decision=decision.get("action"))  # fmt: skip
    for call_id in facts.get("granted", ()):
        lane.add(f"{call_id} granted by the framework", call_id=call_id, granted="true")
    if obj := facts.get("approval_object"):
        carried = "carried by" if obj.get("carried") else "not carried by"
        lane.add(f"misused approval ({obj.get('misuse')}, made for {obj.get('made_for')}): the binding it breaks, its {obj.get('binding')}, "
                 f"is {carried} the framework's approval object", misuse=obj.get("misuse"))  # fmt: skip
    if decision := facts.get("implicit_decision"):
        lane.add(f"the driver answered a pause the contract would not ask: {json.dumps(decision, sort_keys=True)}", implicit="true")
    for event in trace:
        if event["kind"] in ("approval_requested", "approval_granted", "approval_refused"):
            lane.add(f"{event['kind'].replace('_', ' ')}: {event.get('call_id')}", call_id=event.get("call_id"), event=event["kind"])
    return lane


def _checkpoint_lane(trace: list[dict[str, Any]], whole: Any) -> Lane:
    """The intent checkpoints written in the step (the idempotency key and the call's argument hash, admitted in this
    step or an earlier one; who wrote it when the trace says: the MCP server's own record) and the resumes."""
    lane = Lane("checkpoints")
    hashes = {e["call_id"]: e["args_hash"] for e in whole if e["kind"] == "call_admitted" and "args_hash" in e}
    for event in trace:
        if event["kind"] == "intent_checkpointed":
            digest = hashes.get(event["call_id"], "")
            key = f"key {event['idempotency_key']}" if event.get("idempotency_key") else "no idempotency key"
            by = f" (written by the {event['source'].replace('_', ' ')})" if event.get("source") else ""
            lane.add(f"checkpoint before {event['call_id']}{by}: {key}" + (f", args {digest[:12]}" if digest else ""),
                     call_id=event["call_id"], key=event.get("idempotency_key") or "", source=event.get("source") or "")  # fmt: skip
        elif event["kind"] == "resumed":
            lane.add(f"resumed: {json.dumps({k: v for k, v in event.items() if k not in ('kind', 'driver_step')}, sort_keys=True)}", event="resumed")
    return lane


NOTABLE = {
    "schema_rejected": "the arguments broke the schema: refused before any execution",
    "call_rejected": "refused by policy",
    "event_refused": "the event was refused",
    "duplicate_event": "the event was seen before: not run again",
    "uncertain_outcome": "the outcome is unknown: stopped for reconciliation",
    "reconciled": "reconciled",
    "stopped_max_steps": "stopped at the step bound",
    "model_unavailable": "the model's endpoint failed: stopped model_unavailable",
    "tool_attempt_failed": "a tool attempt failed",
}
"""The trace events a reader should see in the cell (the engine's kinds; a framework's trace holds its own kinds)."""


def _events_lane(trace: list[dict[str, Any]]) -> Lane:
    lane = Lane("events")
    for event in trace:
        if (said := NOTABLE.get(event["kind"])) is not None:
            detail = {k: v for k, v in event.items() if k not in ("kind", "driver_step", "args_hash")}
            lane.add(f"{said}: {json.dumps(detail, sort_keys=True)}" if detail else said, event=event["kind"], call_id=event.get("call_id") or "")
    return lane


def _ledger_lane(facts: dict[str, Any], theirs: dict[str, Any] | None) -> Lane:
    """Per call id the ledger's counts in the step (entered the tool, the executor, effects), marked where the effects
    exceed the engine's at the same driver step (``theirs``: the engine's facts there; None for the engine itself)."""
    lane = Lane("ledger, this step")
    calls = sorted(set(facts.get("entered", {})) | set(facts.get("executed", {})) | set(facts.get("effects", {})))
    for call_id in calls:
        entered, executed = facts.get("entered", {}).get(call_id, 0), facts.get("executed", {}).get(call_id, 0)
        effects = facts.get("effects", {}).get(call_id, 0)
        engine = theirs.get("effects", {}).get(call_id, 0) if theirs is not None else effects
        exceeds = effects > engine
        lane.add(f"{call_id}: entered {entered}, executed {executed}, effects {effects}" + (f" (engine: {engine} at this step)" if exceeds else ""),
                 call_id=call_id, entered=entered, executed=executed, effects=effects, exceeds=str(exceeds).lower())  # fmt: skip
    return lane


def driver_text(scenario: Scenario, index: int) -> str:
    """A driver step as the scenario states it, with the scripted arguments of the call it decides on."""
    step = dict(scenario.driver[index])
    action = step.pop("action")
    text = f"{index}: {action}" + (f" {json.dumps(step, sort_keys=True)}" if step else "")
    if action in ("approve", "reject", "misuse_token") and (call_id := step.get("call_id")):
        args = next((c["arguments"] for t in scenario.model_script for c in t.get("tool_calls", ()) if c["id"] == call_id), None)
        text += f" — the call's scripted arguments: {json.dumps(args, sort_keys=True)}" if args is not None else ""
    return text


def loop_replay(scenario: Scenario, record: dict[str, Any]) -> dict[str, Any]:
    """The loop's replay of the engine's trace, in a size linear in the trace: the events once, the messages array
    once as it stands after the last event, and per event the model step against ``max_steps``, the attempt of the
    call in flight against the engine's bound (0 when none is) and how many of the messages have been added by then;
    at the last event the run's status. The page after event ``i`` shows ``events[i]``, ``step[i]``,
    ``attempt[i]``, the first ``shown[i]`` messages, and ``status`` only when ``i`` is the last (``state_at``).

    A state per event with its own messages array would repeat every earlier message in every later state: a
    1,000-turn run made a 263 MB page that way. The events carry no text of the run's input: the system prompt and the
    user's message are the scenario's, marked so; every later message is an event's."""
    messages: list[list[str]] = [["system", f"(the scenario's system prompt) {scenario.system_prompt}"]] if scenario.system_prompt else []
    trace = list(record.get("trace", ()))
    steps, attempts, shown, step, attempt = [], [], [], 0, 0  # per event: the step, the attempt, the messages standing
    for event in trace:
        kind = event["kind"]
        if kind == "run_started":
            messages.append(["user", f"(the scenario's input) {scenario.user_input}"])
        elif kind == "model_turn":
            step, attempt = event["step"], 0
            calls = ", ".join(f"{c} → {t}" for c, t in zip(event.get("call_ids") or (), event.get("tools") or (), strict=False))
            messages.append(["assistant", f"calls {calls}" if calls else str(event.get("final_text"))])
        elif kind == "call_admitted":
            attempt = 0
        elif kind == "tool_attempt_failed":
            attempt = event["attempt"]
        elif kind == "tool_result":
            attempt = attempt + 1 if event.get("status") == "ok" else attempt
            messages.append(["tool", f"{event['call_id']} ({event.get('status')}): {event.get('content')}"])
        steps.append(step)
        attempts.append(attempt)
        shown.append(len(messages))
    status = record["steps"][-1]["status"] if trace and record.get("steps") else ""
    return {"events": trace, "step": steps, "attempt": attempts, "shown": shown, "messages": messages, "status": status}


def state_at(replay: dict[str, Any], index: int) -> dict[str, Any]:
    """What the page shows after event ``index`` of a ``loop_replay`` (``report.js`` reads the replay the same way): the
    event, the model step, the attempt, the messages so far, and the run's status at the last event ("" before)."""
    return {"event": replay["events"][index], "step": replay["step"][index], "attempt": replay["attempt"][index],
            "messages": replay["messages"][: replay["shown"][index]], "status": replay["status"] if index == len(replay["events"]) - 1 else ""}  # fmt: skip


def flaky_scenarios(scenarios: dict[str, Scenario]) -> list[tuple[int, Scenario]]:
    """The scenarios whose faults were drawn at a stated failure rate (their ``failure_rate``), lowest rate first."""
    found = [(s.failure_rate["percent"], s) for s in scenarios.values() if s.failure_rate is not None]
    return sorted(found, key=lambda pair: (pair[0], pair[1].id))
