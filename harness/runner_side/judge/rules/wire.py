"""The rules of the wire mode: what a framework's model client does on the wire where the engine's keeps the contract
(``docs/contract.md``, "The model's endpoint"). Each reads the ``wire`` observable of both runs, the framework's as its
request records imply it (the scripted server's own records), and the step statuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from handwritten.wire_model import WirePolicy
from harness.runner_side.judge.case import Case
from harness.runner_side.judge.facts import (
    claim,
    mechanism,
    stated_after,
    status_claim,
)
from harness.runner_side.judge.registry import rule
from harness.runner_side.judge.said import Says, StepEnded
from harness.runner_side.judge.values import Reason
from harness.runner_side.observe.wire import SUCCESS
from harness.schema_diff import NOT_REPORTED

MAX_ATTEMPTS = WirePolicy().max_attempts
"""The contract's attempts per logical model call, in all (read from the engine's own policy)."""
NOT_RETRIED = {str(status) for status in range(400, 500)} - {"408", "429"}
"""What the contract gives up on at once: a client error other than 408 and 429."""


def _wire(observables: dict[str, Any]) -> dict[str, Any] | None:
    wire = observables.get("wire")
    return wire if isinstance(wire, dict) else None


def _calls(calls: list[dict[str, Any]]) -> str:
    """Every logical call with what each attempt met: ``driver step 0 turn 1: 500, 500, 500 (no idempotency key)``."""
    keys = {"same": "", "none": " (no idempotency key)", "varied": " (a new idempotency key per attempt)"}
    return "; ".join(f"driver step {c['step']} turn {c['turn']}: {', '.join(c['answers'])}{keys.get(c['keys'], ' (keys ' + str(c['keys']) + ')')}"
                     for c in calls) or "none"


def _gave_up(entries: list[dict[str, Any]]) -> str:
    return "; ".join(f"driver step {g['step']} turn {g['turn']} after {g['attempts']} attempts, the step ended {g['status']}" for g in entries) or "none"


def _why_given_up(call: dict[str, Any]) -> str:
    """Why the engine's client gave up on a call, read from what its attempts met."""
    last, attempts = call["answers"][-1], len(call["answers"])
    if attempts >= MAX_ATTEMPTS:
        return f"its {MAX_ATTEMPTS} attempts in all were spent"
    if last in NOT_RETRIED:
        return f"a {last} is a client error, not retried"
    return f"the {last} came with a Retry-After over {WirePolicy().max_retry_after_s:g} s, which means giving up at once"


def _retried(mine: dict[str, Any] | None, theirs: dict[str, Any]) -> bool:
    """Whether the framework's call got an answer after more attempts than the engine's same call, which gave up."""
    return mine is not None and mine["answers"][-1] in SUCCESS and len(mine["answers"]) > len(theirs["answers"])


def _by_call(wire: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(c["step"], c["turn"]): c for c in wire["calls"]}


@rule('model_calls_differ', "The model calls on the wire differ from the engine's", stage=None, consequence=True)
@rule('gave_up_differently', "Model calls end without an answer elsewhere than in the engine's run", stage=None, consequence=True)
def model_calls_differ(case: Case) -> Iterator[Reason]:
    """The logical model calls on the wire (what each attempt met) differ: both sides stated in full."""
    fw, engine = _wire(case.implied), _wire(case.engine.observables)
    if fw is None or engine is None:
        return
    if fw["calls"] != engine["calls"] or fw["attempts"] != engine["attempts"]:
        yield Reason("model_calls_differ", (
            f"on the wire the framework made {fw['attempts']} requests: {_calls(fw['calls'])} (engine, {engine['attempts']} requests: {_calls(engine['calls'])})"
            f"{mechanism(case, 'loop')}"
        ), (claim(case, ("wire", "calls")), claim(case, ("wire", "attempts"))))
    if fw["gave_up"] != engine["gave_up"]:
        yield Reason("gave_up_differently", (
            f"the framework's model calls that got no answer in the end: {_gave_up(fw['gave_up'])} (engine: {_gave_up(engine['gave_up'])})"
        ), (claim(case, ("wire", "gave_up")),))


@rule('no_idempotency_key', 'Sends no Idempotency-Key: a retried model call cannot be told from a new one', stage=None)
def no_idempotency_key(case: Case) -> Iterator[Reason]:
    """The framework's requests carry no Idempotency-Key: a retried model call cannot be told from a new one."""
    fw, engine = _wire(case.implied), _wire(case.engine.observables)
    if fw is not None and engine is not None and engine["idempotency_key_sent"] and fw["idempotency_key_sent"] is False:
        yield Reason("no_idempotency_key", (
            "none of the framework's requests carried an Idempotency-Key, so a server cannot tell a retried model call from a new one (the engine "
            "sends <session>/turn-<n> on every attempt of a call)"
        ), (claim(case, ("wire", "idempotency_key_sent")),))


@rule('retries_stacked', "Stacks retry layers: more requests for one model call than the contract's 3 attempts in all", stage='model_failures')
@rule('retried_by_client', "Leaves the model call's retries to the HTTP client", stage=None, consequence=True)
def retries_stacked(case: Case) -> Iterator[Reason]:
    """More requests for one logical model call than the contract's attempts in all, or retries the client made itself."""
    fw, engine = _wire(case.implied), _wire(case.engine.observables)
    if fw is None or engine is None:
        return
    over = [c for c in fw["calls"] if len(c["answers"]) > MAX_ATTEMPTS]
    retried = (f"{fw['client_retries']} of its {fw['attempts']} requests were the HTTP client's own retries (x-stainless-retry-count above 0; "
               f"engine: {engine['client_retries']})")
    if over:
        said = "; ".join(f"driver step {c['step']} turn {c['turn']}: {len(c['answers'])} requests" for c in over)
        yield Reason("retries_stacked", (
            f"retry layers stacked: {said} for one model call, where the contract allows {MAX_ATTEMPTS} attempts in all; {retried}"
            f"{mechanism(case, 'loop')}"
        ), (claim(case, ("wire", "attempts")), claim(case, ("wire", "client_retries"))))
    elif fw["client_retries"] != engine["client_retries"]:
        yield Reason("retried_by_client", f"{retried}, within the contract's {MAX_ATTEMPTS} attempts per model call", (claim(case, ("wire", "client_retries")),))


@rule('no_read_timeout', 'Sets no read timeout on its model requests', stage=None)
@rule('long_read_timeout', 'Waits far longer than the contract for a model answer', stage=None)
def read_timeout(case: Case) -> Iterator[Reason]:
    """The read timeout the framework's client announced: none, or a longer one than the engine's."""
    fw, engine = _wire(case.implied), _wire(case.engine.observables)
    if fw is None or engine is None or fw["read_timeout"] == engine["read_timeout"] or not fw["read_timeout"]:
        return
    theirs = ", ".join(engine["read_timeout"])
    if fw["read_timeout"] == ["none"]:
        yield Reason("no_read_timeout", (
            f"its requests carried no x-stainless-read-timeout header, which the openai client sends whenever a read timeout is set (engine: "
            f"{theirs} s): no read timeout bounds its wait for the model"
        ), (claim(case, ("wire", "read_timeout")),))
    elif (longest := _longest(fw["read_timeout"])) is not None and longest > (_longest(engine["read_timeout"]) or 0.0):
        yield Reason("long_read_timeout", (
            f"its requests announced a read timeout of {', '.join(fw['read_timeout'])} s (x-stainless-read-timeout; engine: {theirs} s): a model "
            "that stops answering holds the run that long, per attempt"
        ), (claim(case, ("wire", "read_timeout")),))


def _longest(timeouts: list[str]) -> float | None:
    """The longest of the announced read timeouts, or None when one of them is not a number (``none``)."""
    try:
        return max(float(t) for t in timeouts)
    except ValueError:
        return None


@rule('schema_lost_in_declaration', 'Declaring a tool as the docs teach changes its schema before any request (constraints dropped, keys added or changed)', stage=None)
@rule('schema_rewritten', "Sends the model tool schemas other than the tools' own", stage=None)
@rule('constraint_moved_to_text', 'Moves schema constraints into description text, where nothing enforces them', stage=None)
def schema_rewritten(case: Case) -> Iterator[Reason]:
    """Per tool, where its schema's way to the request differs from the engine's (whose tools carry the registry's schema
    and are sent verbatim): what declaring the tool the documented way lost (``declared``: the registry against the
    framework's own tool object), what sending it changed (``rewritten``: that object against the request), a tool never
    sent, and the constraints either part moved into description text."""
    fw, engine = _wire(case.implied), _wire(case.engine.observables)
    if fw is None or engine is None:
        return
    for tool, diff in sorted(fw["schema_diff"].items()):
        theirs = engine["schema_diff"].get(tool) or {}
        if diff.get("not_sent") and not theirs.get("not_sent"):
            yield Reason("schema_rewritten", f"{tool} was offered and never sent to the model", (claim(case, ("wire", "schema_diff", tool, "not_sent")),))
        declared, rewritten = diff.get("declared"), diff.get("rewritten")
        if declared and declared != theirs.get("declared"):
            if declared == NOT_REPORTED:
                yield Reason("schema_rewritten", f"{tool}: the column reported no tool object, so what was sent is compared with the registry's schema",
                             (claim(case, ("wire", "schema_diff", tool, "declared")),))  # fmt: skip
            else:
                yield Reason("schema_lost_in_declaration", (
                    f"{tool}'s own tool object, declared as the framework's docs teach, differs from its registry schema: {_diff_text(declared)}"
                ), (claim(case, ("wire", "schema_diff", tool, "declared")),))
                yield from _moved(case, tool, declared, "the tool object", "declared")
        if rewritten and rewritten != theirs.get("rewritten"):
            source = "its registry schema" if declared == NOT_REPORTED else "its tool object's schema"
            yield Reason("schema_rewritten", (
                f"{tool}'s parameters as sent differ from {source}: {_diff_text(rewritten)}{mechanism(case, 'message_assembly')}"
            ), (claim(case, ("wire", "schema_diff", tool, "rewritten")),))
            yield from _moved(case, tool, rewritten, "the schema as sent", "rewritten")


def _diff_text(diff: dict[str, Any]) -> str:
    return "; ".join(f"{key} {', '.join(value) if isinstance(value, list) else value}" for key, value in sorted(diff.items()))


def _moved(case: Case, tool: str, diff: dict[str, Any], where: str, part: str) -> Iterator[Reason]:
    if diff.get("moved_to_text"):
        yield Reason("constraint_moved_to_text", (
            f"{tool}: the constraints {', '.join(diff['moved_to_text'])} were dropped from {where} and stated in a description, where nothing enforces them"
        ), (claim(case, ("wire", "schema_diff", tool, part, "moved_to_text")),))


@rule('model_failure_raised', "Ends the run in an exception when the model's endpoint fails, where the engine stops model_unavailable", stage='model_failures')
@rule('retried_past_contract', 'Retries a model call the contract gives up on (a long Retry-After, or past its 3 attempts)', stage='model_failures')
@rule('model_failure_not_retried', 'Does not retry a model call the contract retries', stage='model_failures')
@rule('model_failure_taken_as_answer', "Takes a failed model call as the model's answer and goes on", stage='model_failures')
def model_failure_ended_run(case: Case) -> Iterator[Reason]:
    """Where the engine stopped ``model_unavailable`` (its checkpoint at the last completed turn), the framework's run
    raised out of its step; or where the engine gave up, the framework retried; or it did not retry what the engine did;
    or it took the failed call as the model's answer and its step ended as a run with an answer ends."""
    fw, engine = _wire(case.implied), _wire(case.engine.observables)
    if fw is None or engine is None:
        return
    mine, theirs = _by_call(fw), _by_call(engine)
    for i, (f_step, e_step) in enumerate(zip(case.framework.steps, case.engine.steps, strict=False)):
        f_status, e_status, say = f_step["status"], e_step["status"], Says()
        if f_status == e_status:
            continue
        f_calls = [c for (s, _), c in mine.items() if s == i]
        e_calls = [c for (s, _), c in theirs.items() if s == i]
        if e_status == "model_unavailable" and f_status == "error" and f_calls and f_calls[-1]["answers"][-1] not in SUCCESS:
            raised = next((f.get("raised") for f in case.framework.facts if f["step"] == i and f.get("raised")), None)
            tail, after = stated_after(case, i + 1, say)
            yield Reason("model_failure_raised", (
                f"driver step {i}: the model's endpoint failed ({_calls(f_calls)}); the engine stopped model_unavailable with its checkpoint at the "
                f"last completed turn ({_calls(e_calls)}), the framework's run raised {raised or 'an exception'} and the step ended {f_status}{tail}"
            ), (*status_claim(case, i, "error"), *after), say.all())
        elif e_status == "model_unavailable" and f_status not in ("error", "crashed") and f_calls and f_calls[-1]["answers"][-1] not in SUCCESS and (
                len(f_calls[-1]["answers"]) < len(e_calls[-1]["answers"]) if e_calls else True):
            tail, after = stated_after(case, i + 1, say)
            yield Reason("model_failure_taken_as_answer", (
                f"driver step {i}: the model's endpoint failed ({_calls(f_calls)}) and the framework asked no more, going on as if the model had "
                f"answered: {say(StepEnded.of(case.framework, i))}; the engine gave up after its attempts ({_calls(e_calls)}) and stopped "
                f"model_unavailable with its checkpoint at the last completed turn{tail}{mechanism(case, 'loop')}"
            ), (*status_claim(case, i, f_status), *after), say.all())
        elif e_status == "model_unavailable" and e_calls and _retried(mine.get((i, e_calls[-1]["turn"])), e_calls[-1]):
            tail, after = stated_after(case, i + 1, say)
            yield Reason("retried_past_contract", (
                f"driver step {i}: the engine gave up ({_calls(e_calls)}: {_why_given_up(e_calls[-1])}), the framework retried "
                f"({_calls(f_calls)}) and the step ended {f_status}{tail}"
            ), (*status_claim(case, i, f_status), *after), say.all())
        elif f_status == "error" and f_calls and (last := f_calls[-1])["answers"][-1] not in SUCCESS | NOT_RETRIED:
            same = theirs.get((last["step"], last["turn"]))
            if same is not None and len(same["answers"]) > len(last["answers"]):
                tail, after = stated_after(case, i + 1, say)
                yield Reason("model_failure_not_retried", (
                    f"driver step {i} turn {last['turn']}: the answer met {last['answers'][-1]} after {len(last['answers'])} attempts and the framework "
                    f"did not try again (engine: {', '.join(same['answers'])}); the step ended {f_status}{tail}"
                ), (*status_claim(case, i, "error"), *after), say.all())

