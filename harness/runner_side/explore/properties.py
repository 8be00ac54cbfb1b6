"""The contract's properties, checked on a reference column's run of any scenario (the engine's, the local graph's).

Each property reads only what the runner measured: the ledger's own entries (who entered which tool for which call
or key, which effects were committed with which arguments, at which driver step) and the driver's steps as the
column answered them (accepted, or refused with a reason). None of them trusts what the column says it did.

- ``one_effect_per_key``: at most one committed effect per idempotency key (a call id, or a direct call's key), one
  more for each accepted ``reconcile ... not_executed`` of it (the human's word that the first never happened);
- ``approved_high_risk_only``: every effect of a high-risk tool follows an accepted approval of that call (a grant of
  that tool, at the boundary) and carries the arguments the approval was made for; every misused token is refused;
- ``always_deny_never_entered``: no ledger entry at all for an always-denied tool;
- ``rejected_never_run``: a call rejected (and the rejection accepted) never enters its executor afterwards, unless a
  later approval of it is accepted;
- ``named_status``: every step ends without an error and the run ends in a named terminal status or a resumable one
  (``model_unavailable`` among them: a ``resume`` asks the model again);

and on a run whose model is an HTTP endpoint (the engine's ``wire`` mode), read from what the runner's scripted server
recorded of every request (the ``wire`` observable's logical calls, each attempt's answer and ``Retry-After``), never
from what the column says: the rules of docs/contract.md, "The model's endpoint",

- ``bounded_model_attempts``: at most 3 attempts per logical model call, all under one ``Idempotency-Key``, asked again
  exactly where the contract retries: never after a 4xx other than 408 and 429 or after a ``Retry-After`` over 2 s,
  always after any other failure (a 408, a 429, a 5xx, a reset, an answer cut short, a timeout, a body that is not a
  chat completion) until the third attempt;
- ``model_unavailable_named``: a model call that got no answer ends its driver step ``model_unavailable``.

A call whose driver step ended ``crashed`` is left out of both: a ``model.kill_before_turn`` fault fires as the answer
comes in, whatever it is, so the process died before the engine could read it. A step that raised is ``named_status``'s.

``equal_to_engine`` (the local graph equal to the engine on every observable) is checked on the comparison's cells.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from handwritten.tools import RiskClass
from harness.fixture_tools import FIXTURE_TOOLS
from harness.ledger import EFFECT, EXECUTOR_ENTRY
from harness.runner_side.observe.wire import SUCCESS
from harness.scenarios import Scenario

ENDS = ("completed", "refused", "stopped_max_steps")
RESUMABLE = ("awaiting_approval", "reconcile_required", "crashed", "model_unavailable")
PROPERTIES = ("one_effect_per_key", "approved_high_risk_only", "always_deny_never_entered", "rejected_never_run", "named_status",
              "bounded_model_attempts", "model_unavailable_named", "equal_to_engine")  # fmt: skip
MODEL_ATTEMPTS = 3
"""docs/contract.md, "The model's endpoint": at most 3 HTTP attempts per logical model call, in all."""
RETRY_AFTER_MAX_S = 2.0
"""A ``Retry-After`` up to this is waited; a longer one means giving up at once."""
RETRIED_CLIENT_ERRORS = (408, 429)
"""The only 4xx the contract retries (a request timeout, too many requests): any other ends the call at once."""
DRIVER_ERROR = "driver: "  # a step the driver could not make (a ``reused`` token with nothing accepted before it): not the column's


@dataclass(frozen=True)
class Failure:
    """A property a run broke, and the measured fact that breaks it."""

    property: str
    detail: str

    def __str__(self) -> str:
        return f"{self.property}: {self.detail}"


def _risk(tool: str) -> RiskClass | None:
    return FIXTURE_TOOLS[tool].risk if tool in FIXTURE_TOOLS else None


def _accepted(step: dict[str, Any]) -> bool:
    """The column took the driver's step: it refused nothing and the driver made the step (a step that crashed or raised
    after taking it still counts: what it did is in the ledger)."""
    return step["refusal"] is None and step["status"] != "refused" and not (step["error"] or "").startswith(DRIVER_ERROR)


def _as_object(arguments: Any) -> Any:
    """Scripted arguments as the tool receives them: raw JSON text parsed, anything else as it is."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def check_run(scenario: Scenario, record: dict[str, Any], entries: list[dict[str, Any]]) -> list[Failure]:
    """Every property but ``equal_to_engine`` on one run: its observation ``record`` and its ledger ``entries``."""
    taken = [i for i, step in enumerate(record["steps"]) if _accepted(step)]  # the driver steps the column took
    checks = (_one_effect_per_key, _approved_high_risk_only, _always_deny_never_entered, _rejected_never_run)
    return [failure for check in checks for failure in check(scenario.driver, taken, entries, scenario)] + _named_status(record) + _model_endpoint(record)


Driver = tuple[dict[str, Any], ...]


def _one_effect_per_key(driver: Driver, taken: list[int], entries: list[dict[str, Any]], _: Scenario) -> list[Failure]:
    effects = [e["call_id"] for e in entries if e["kind"] == EFFECT]
    failures = []
    for key in dict.fromkeys(effects):
        settled = sum(1 for i in taken if driver[i]["action"] == "reconcile" and driver[i]["call_id"] == key and driver[i]["outcome"] == "not_executed")
        if effects.count(key) > 1 + settled:
            failures.append(Failure("one_effect_per_key", f"{effects.count(key)} effects under key {key!r} (at most {1 + settled})"))
    return failures


def _approved_high_risk_only(driver: Driver, taken: list[int], entries: list[dict[str, Any]], scenario: Scenario) -> list[Failure]:
    failures = []
    for effect in (e for e in entries if e["kind"] == EFFECT and _risk(e["tool"]) is RiskClass.HIGH_RISK):
        key, args = effect["call_id"], effect["payload"]
        if not any(_approves(driver[i], effect, scenario) for i in taken if i <= effect["step"]):
            shown = json.dumps(args, sort_keys=True)
            failures.append(Failure("approved_high_risk_only", f"{effect['tool']} effect for {key!r} at driver step {effect['step']} with {shown}: "
                                    "no accepted approval of that call with those arguments before it"))  # fmt: skip
    failures += [Failure("approved_high_risk_only", f"driver step {i}: a {driver[i]['misuse']} token for {driver[i]['call_id']!r} was accepted")
                 for i in taken if driver[i]["action"] == "misuse_token"]  # fmt: skip
    return failures


def _approves(step: dict[str, Any], effect: dict[str, Any], scenario: Scenario) -> bool:
    """Whether an accepted driver step approved this effect: an approval of its call made for exactly its arguments (the
    driver makes a token for the call's scripted arguments), or a grant of its tool with its arguments at the boundary."""
    if step["action"] == "approve":
        return bool(step["call_id"] == effect["call_id"] and _as_object(scenario.scripted_call(step["call_id"])["arguments"]) == effect["payload"])
    return bool(step["action"] == "grant" and step["tool"] == effect["tool"] and step["arguments"] == effect["payload"])


def _always_deny_never_entered(driver: Driver, taken: list[int], entries: list[dict[str, Any]], _: Scenario) -> list[Failure]:
    entered = [e for e in entries if _risk(e["tool"]) is RiskClass.ALWAYS_DENY]
    return [Failure("always_deny_never_entered", f"{e['kind']} of {e['tool']} for {e['call_id']!r} at driver step {e['step']}") for e in entered[:1]]


def _rejected_never_run(driver: Driver, taken: list[int], entries: list[dict[str, Any]], _: Scenario) -> list[Failure]:
    failures = []
    for i in (i for i in taken if driver[i]["action"] == "reject"):
        key = driver[i]["call_id"]
        until = next((j for j in taken if j > i and driver[j]["action"] == "approve" and driver[j]["call_id"] == key), len(driver))
        ran = [e["step"] for e in entries if e["kind"] == EXECUTOR_ENTRY and e["call_id"] == key and i <= e["step"] < until]
        if ran:
            failures.append(Failure("rejected_never_run", f"{key!r} rejected at driver step {i}, its executor entered at driver step {ran[0]}"))
    return failures


def _named_status(record: dict[str, Any]) -> list[Failure]:
    steps = record["steps"]
    failures = [Failure("named_status", f"driver step {i} ({step['action']}) ended in an error: {step['error']}")
                for i, step in enumerate(steps) if step["error"] and not step["error"].startswith(DRIVER_ERROR)]  # fmt: skip
    if record.get("error") and not any(s["error"] for s in steps):
        failures.append(Failure("named_status", f"the run could not be measured: {record['error']}"))
    status = record["observables"]["status"]
    if status not in ENDS + RESUMABLE and not any(s["error"] for s in steps) and not record.get("error"):  # else reported above
        failures.append(Failure("named_status", f"the run ended {status!r}, neither a terminal status ({', '.join(ENDS)}) nor a resumable one ({', '.join(RESUMABLE)})"))
    return failures


def _model_endpoint(record: dict[str, Any]) -> list[Failure]:
    """``bounded_model_attempts`` and ``model_unavailable_named`` on a wire run (nothing to check on any other)."""
    wire = record["observables"].get("wire")
    if not isinstance(wire, dict):
        return []
    pending: dict[tuple[int, int], list[dict[str, Any]]] = {}  # each (step, turn)'s requests as the server recorded them, in order
    for request in record.get("wire_requests", ()):
        pending.setdefault((request["step"], request["turn"]), []).append(request)
    steps, failures = record["steps"], []
    for call in wire["calls"]:
        step, turn, answers = call["step"], call["turn"], call["answers"]
        attempts = [pending[(step, turn)].pop(0) for _ in answers]  # the observable groups those requests, in order
        where = f"driver step {step}, turn {turn}: {len(answers)} attempts ({', '.join(answers)})"
        ended = steps[step] if step < len(steps) else {"status": None, "error": None}
        if ended["status"] == "crashed" or ended["error"]:
            continue
        if len(answers) > MODEL_ATTEMPTS:
            failures.append(Failure("bounded_model_attempts", f"{where}: more than {MODEL_ATTEMPTS}"))
        if call["keys"] != "same":
            failures.append(Failure("bounded_model_attempts", f"{where}: Idempotency-Key {call['keys']} across the attempts of one call"))
        final = next((i for i, (answer, request) in enumerate(zip(answers, attempts, strict=True)) if _final(answer, request)), None)
        if final is not None and final < len(answers) - 1:
            failures.append(Failure("bounded_model_attempts", f"{where}: asked again after {_met(answers[final], attempts[final])}, which the contract does not retry"))
        if answers[-1] in SUCCESS:
            continue
        if final is None and len(answers) < MODEL_ATTEMPTS:
            failures.append(Failure("bounded_model_attempts", f"{where}: gave up after {_met(answers[-1], attempts[-1])}, which the contract retries"))
        if ended["status"] != "model_unavailable":
            failures.append(Failure("model_unavailable_named", f"{where}: no answer, and the driver step ended {ended['status']!r}"))
    return failures


def _final(answer: str, request: dict[str, Any]) -> bool:
    """Whether the contract gives up at once after this attempt: a 4xx other than 408 and 429, a ``Retry-After`` over
    2 s (an answer is final too, and not an attempt that failed)."""
    if answer in SUCCESS:
        return False
    if answer.isdigit() and 400 <= int(answer) < 500 and int(answer) not in RETRIED_CLIENT_ERRORS:
        return True
    return request.get("retry_after") is not None and request["retry_after"] > RETRY_AFTER_MAX_S


def _met(answer: str, request: dict[str, Any]) -> str:
    return f"{answer} with Retry-After {request['retry_after']:g} s" if request.get("retry_after") is not None else answer


def check_equal(cells: dict[str, dict[str, Any]]) -> list[Failure]:
    """``equal_to_engine``: every applicable cell of the local graph's run equal to the engine's."""
    return [Failure("equal_to_engine", f"{name}: {cell.get('reason', 'differs')}") for name, cell in cells.items() if cell["equal"] is False]
