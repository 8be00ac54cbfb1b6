"""The rules that read what the runner's MCP server saw of a framework's client (``judge/rules/mcp.py``, and the
``stalled`` step of ``uncertain_not_stopped``): each follows its facts, and claims only the values they imply."""

from __future__ import annotations

from typing import Any

from harness.columns import ROOT
from harness.runner_side.judge import ABSENT, Case, reasons, run_of
from harness.runner_side.judge.values import Claim
from harness.scenarios import SCENARIO_DIR, load_scenario
from tests.harness.runner_side.judge.facts_builder import run, step

ENGINE = ROOT / "evidence" / "handwritten_mcp.json"


def _engine(key: str) -> Any:
    import json

    return run_of(json.loads(ENGINE.read_text(encoding="utf-8"))["modes"]["contract"]["scenarios"][key])


def _calls(**calls: tuple[list[str], list[int]]) -> dict[str, Any]:
    """An ``mcp_client`` summary with these calls' answers and sending steps (no key, arguments unchanged)."""
    return {"calls": {cid: {"sent": len(a), "keys": 0, "changed": 0, "answers": a, "steps": s, "arguments": ["model"] * len(a)} for cid, (a, s) in calls.items()},
            "lists": 1, "relays": 0, "meta": [], "human": [], "schemas": {}, "transport": ["http"]}


def _forged(*steps: Any, mcp: dict[str, Any] | None) -> Case:
    """``approval_misuse_forged`` (one transfer, c1, then a forged approval for it), the engine's run as committed."""
    engine = _engine("approval_misuse_forged")
    return Case(load_scenario(SCENARIO_DIR / "approval_misuse_forged.json"), engine, run(engine.observables, *steps, mcp=mcp), mode="mcp")


def _by_rule(case: Case) -> dict[str, Any]:
    return {r.rule: r for r in reasons(case)}


def test_an_approval_required_answer_given_to_the_model_explains_the_status_it_implies() -> None:
    case = _forged(step("run", results=[("c1", "error")]), step("misuse_token"), mcp=_calls(c1=(["approval_required"], [0])))
    reason = _by_rule(case)["approval_required_as_result"]
    assert Claim(("status",), "completed") in reason.claims
    assert "c1 (transfer_funds): 1 of the 1 call sent, at driver step 0" in reason.text
    assert "the run ended completed where the engine's still waited for a decision (awaiting_approval)" in reason.text


def test_it_says_nothing_where_the_server_never_answered_approval_required_or_the_framework_still_waits() -> None:
    ran = _forged(step("run", results=[("c1", "ok")], entered={"c1": 1}, executed={"c1": 1}, effects={"c1": 1}), step("misuse_token"),
                  mcp=_calls(c1=(["ok"], [0])))
    waits = _forged(step("run", pending=["c1"]), step("misuse_token", pending=["c1"]), mcp=_calls(c1=(["approval_required"], [0])))
    no_mcp = _forged(step("run", results=[("c1", "error")]), step("misuse_token"), mcp=None)
    for case in (ran, waits, no_mcp):
        assert "approval_required_as_result" not in _by_rule(case)


def test_a_run_that_raised_after_the_answers_says_so() -> None:
    case = _forged(step("run", raised="pydantic_ai.exceptions.UnexpectedModelBehavior"), step("misuse_token", "error"),
                   mcp=_calls(c1=(["approval_required", "approval_required"], [0, 0])))
    reason = _by_rule(case)["approval_required_as_result"]
    assert Claim(("status",), "error") in reason.claims
    assert "2 of the 2 calls sent, at driver step 0" in reason.text and "(its last driver step raised" not in reason.text  # step 1 raised nothing


def test_a_stalled_step_names_the_answer_its_client_still_waited_for() -> None:
    scenario = load_scenario(SCENARIO_DIR / "mcp_server_dies_after_effect.json")
    steps = (step("run", "stalled", entered={"c1": 1}, executed={"c1": 1}, effects={"c1": 1}), step("reconcile", "refused", refusal="not supported"))
    engine = _engine("mcp_server_dies_after_effect")
    died = Case(scenario, engine, run(engine.observables, *steps, mcp=_calls(c1=(["died"], [0]))), mode="mcp")
    text = _by_rule(died)["uncertain_not_stopped"].text
    assert "the MCP server died after c1's effect, before its answer" in text
    assert "driver step 0 ended stalled (no answer within the mode's step bound of 25 s, its MCP client still waiting for the answer to c1" in text
    answered = Case(scenario, engine, run(engine.observables, *steps, mcp=_calls(c1=(["ok"], [0]))), mode="mcp")
    assert "still waiting" not in _by_rule(answered)["uncertain_not_stopped"].text  # an answer that came: no claim it did not


def test_an_entry_killed_before_its_effect_at_another_step_is_a_call_that_ran_at_other_steps() -> None:
    """Found in the mcp mode (misused_args_kill_restore, columns with an approval of their own): t1 entered its tool once,
    killed before its effect, as in the engine's run but five driver steps later; the views before each decision count
    its zero from its entry on, and no rule explained them (the counts were equal, and there was no effect to place)."""
    scenario = load_scenario(SCENARIO_DIR / "misused_args_kill_restore.json")
    engine = _engine("misused_args_kill_restore")
    steps = [step(a["action"]) for a in scenario.driver]
    steps[0] = step("run", pending=["t1"], entered={"b1": 1}, executed={"b1": 1})
    steps[7] = step("approve", killed=True, entered={"t1": 1}, executed={"t1": 1})
    case = Case(scenario, engine, run(engine.observables, *steps), mode="mcp")
    moved = [r for r in reasons(case) if r.rule == "ran_at_other_steps" and r.text.startswith("t1 ")]
    assert moved and "at driver step 7 (approve); the engine had 1 and 0, at driver step 2 (approve)" in moved[0].text
    assert Claim(("pre_approval_state", "decisions", "1", "effects_before", "t1"), ABSENT) in moved[0].claims  # not entered yet: absent
    read_only = [r for r in reasons(case) if r.rule == "ran_at_other_steps" and r.text.startswith("b1 ")]
    assert not read_only  # b1 entered at step 0 in both runs: nothing moved


def test_a_call_whose_client_stopped_waiting_for_its_late_answer_is_a_read_timeout_shorter_than_the_call() -> None:
    scenario = load_scenario(SCENARIO_DIR / "mcp_slow_answer.json")
    engine = _engine("mcp_slow_answer")
    ran = step("run", results=[("c1", "error")], entered={"c1": 1}, executed={"c1": 1}, effects={"c1": 1})
    withdrawn = Case(scenario, engine, run(engine.observables, ran, mcp=_calls(c1=(["withdrawn"], [0]))), mode="mcp")
    reason = _by_rule(withdrawn)["read_timeout_shorter_than_call"]
    assert reason.claims == (Claim(("mcp", "withdrawn"), ["c1"]),)
    assert "c1 (put_note), sent at driver step 0: c1 had 1 effect in all after driver step 0; then the framework answered c1 with a result of status error" in reason.text
    assert "a read timeout shorter than the call" in reason.text
    waited = Case(scenario, engine, run(engine.observables, ran, mcp=_calls(c1=(["ok:slow"], [0]))), mode="mcp")
    assert "read_timeout_shorter_than_call" not in _by_rule(waited)  # a client that got its late answer withdrew nothing


def test_calls_the_server_answered_invalid_arguments_were_sent_unchecked() -> None:
    scenario = load_scenario(SCENARIO_DIR / "validation_before_execution.json")
    engine = _engine("validation_before_execution")
    ran = step("run", results=[("c1", "error"), ("c2", "error"), ("c3", "ok")], entered={"c3": 1}, executed={"c3": 1}, effects={"c3": 1})
    sent = Case(scenario, engine, run(engine.observables, ran, mcp=_calls(c1=(["invalid_arguments"], [0]), c2=(["invalid_arguments"], [0]), c3=(["ok"], [0]))),
                mode="mcp")
    reason = _by_rule(sent)["mcp_arguments_not_validated"]
    assert reason.claims == (Claim(("mcp", "sent_invalid"), ["c1", "c2"]),)
    assert "c1 (put_note), sent at driver step 0 with the model's arguments (the model's break it: priority: '2' is not of type 'integer')" in reason.text
    checked = Case(scenario, engine, run(engine.observables, ran, mcp=_calls(c3=(["ok"], [0]))), mode="mcp")
    assert "mcp_arguments_not_validated" not in _by_rule(checked)  # a client that sent only the valid call
