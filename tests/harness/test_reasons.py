"""The rule table: reasons follow the facts (change a fact and its reason changes or goes), quote only what
the record holds, and leave no difference of the committed evidence unexplained."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.comparator import run_of
from harness.runner_side.reasons import CONSEQUENCES, UNEXPLAINED, Case, Run, explain, reason_record, reasons
from harness.scenarios import SCENARIO_DIR, load_scenarios

EVIDENCE = ROOT / "evidence"
FRAMEWORKS = sorted(n for n, c in known_columns().items() if n != "handwritten")
SCENARIOS = {s.id: s for s in load_scenarios(SCENARIO_DIR)}


def _document(name: str) -> dict[str, Any]:
    return json.loads((EVIDENCE / f"{name}.json").read_text(encoding="utf-8"))


def _case(framework: str, mode: str, key: str) -> Case:
    """The case the comparison built for one committed record (the engine's record from handwritten.json: its wire run for a wire record)."""
    document, engine = _document(framework), _document("handwritten")["modes"]["wire" if mode == "wire" else "contract"]["scenarios"]
    record = document["modes"][mode]["scenarios"][key]
    reference = engine[record["scenario"]]
    observables = {name: c["framework"] for name, c in record["columns"].items()}
    return Case(SCENARIOS[record["scenario"]], Run(reference["actual"], reference["facts"], reference["steps"]),
                Run(observables, record["facts"], record["steps"]), {r: m["ref"] for r, m in document.get("mechanisms", {}).items()},
                document.get("constants", {}), mode)


def _rules(case: Case) -> dict[str, str]:
    return {r.rule: r.text for r in reasons(case)}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_no_committed_difference_is_left_unexplained(framework: str) -> None:
    for mode, body in _document(framework)["modes"].items():
        assert body["summary"]["unexplained_cells"] == 0, (framework, mode)
        for key, record in body["scenarios"].items():
            for name, cell in record["columns"].items():
                if cell["equal"] is False:
                    assert cell["rules"] and UNEXPLAINED not in cell["reason"], (framework, mode, key, name, cell["reason"])


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_stored_reasons_are_what_the_rules_derive_from_the_stored_facts(framework: str) -> None:
    """Anyone can re-derive every reason from the evidence alone."""
    for mode, body in _document(framework)["modes"].items():
        for key, record in body["scenarios"].items():
            if record["status"] == "ok":
                assert [reason_record(r) for r in dict.fromkeys(reasons(_case(framework, mode, key)))] == record["reasons"], (mode, key)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_id_and_count_a_reason_quotes_is_in_the_record(framework: str) -> None:
    document = _document(framework)
    for mode, body in document["modes"].items():
        for key, record in body["scenarios"].items():
            scenario_text = (SCENARIO_DIR / record["file"]).read_text(encoding="utf-8")
            haystack = json.dumps(record, sort_keys=True) + scenario_text + json.dumps(document.get("constants", {}))
            tokens = set(re.findall(r"[\w.-]+", haystack))
            for reason in record["reasons"]:
                quoted = re.findall(r"\bc\d+\b|(?<![\w.])\d+(?![\w.])", reason["text"])
                assert all(q in tokens for q in quoted), (mode, key, reason, [q for q in quoted if q not in tokens])


def test_a_denied_tool_that_did_not_run_has_no_reason_and_one_that_ran_more_says_so() -> None:
    case = _case("langgraph", "defaults", "always_deny")
    assert "c1 (drop_database, always denied by the contract) ran: 1 executor entries" in _rules(case)["denied_tool_ran"]
    ran_twice = copy.deepcopy(case.framework.observables)
    ran_twice["side_effects"]["c1"].update(executor_entries=2, effects=2)
    assert "ran: 2 executor entries, 2 effects" in _rules(Case(case.scenario, case.engine, Run(ran_twice, case.framework.facts, case.framework.steps)))["denied_tool_ran"]
    never = copy.deepcopy(case.framework.observables)
    never["side_effects"] = {}
    assert "denied_tool_ran" not in _rules(Case(case.scenario, case.engine, Run(never, case.framework.facts, case.framework.steps)))


def test_a_misused_approval_is_taken_only_when_its_call_was_pending_and_decided_or_ran() -> None:
    case = _case("agentscope", "defaults", "approval_misuse_other_args")  # a confirmation with edited arguments ran
    rules = _rules(case)
    assert "other_args approval for c1 at driver step 1 (its approval object carries the arguments and it did not hold; after it: c1 had 1 effects" in rules[
        "misused_approval_accepted"]
    # the same step with its effects taken away and c1 left pending: nothing was taken, the binding held
    facts = [{k: v for k, v in f.items() if k not in ("effects", "executed", "entered")} | {"pending": ["c1"]} for f in case.framework.facts]
    rules = _rules(Case(case.scenario, case.engine, Run(case.framework.observables, facts, case.framework.steps)))
    assert "misused_approval_accepted" not in rules
    assert "other_args approval for c1 at driver step 1 (c1 stayed pending; the step ended completed, nothing ran" in rules["misused_approval_ignored"]
    refused = [{**s, "status": "refused"} if s["action"] == "misuse_token" else s for s in case.framework.steps]
    rules = _rules(Case(case.scenario, case.engine, Run(case.framework.observables, facts, refused)))
    assert "misused_approval_accepted" not in rules and "misused_approval_ignored" not in rules


def test_a_misuse_the_approval_object_cannot_carry_is_a_consequence_not_a_finding() -> None:
    case = _case("langgraph", "defaults", "approval_misuse_other_args")  # LangGraph's resume value names no arguments
    fact = next(f for f in case.framework.facts if f.get("approval_object"))
    assert fact["approval_object"] == {"misuse": "other_args", "binding": "arguments", "carried": False, "made_for": "c1"}
    rules = _rules(case)
    assert "its approval object has no field for the arguments: it went in as a plain approval" in rules["approval_not_carried"]
    assert "misused_approval_accepted" not in rules and "approval_not_carried" in CONSEQUENCES
    carried = [{**f, "approval_object": {**f["approval_object"], "carried": True}} if f.get("approval_object") else f for f in case.framework.facts]
    assert "misused_approval_accepted" in _rules(Case(case.scenario, case.engine, Run(case.framework.observables, carried, case.framework.steps)))


def test_a_held_misuse_is_judged_where_its_turn_was_handed_over() -> None:
    case = _case("pydantic_ai", "defaults", "approval_misuse_other_call")  # held at step 1, handed over (and refused) at step 2
    rules = _rules(case)
    assert "misused_approval_accepted" not in rules
    assert "the reject at driver step 2 ended in pydantic_ai.exceptions.UserError" in rules["decision_raised"]


def test_the_step_limit_quoted_is_the_one_read_from_the_environment() -> None:
    case = _case("langgraph", "defaults", "step_bound")
    assert case.constants["step_limit"]["value"] == _document("langgraph")["constants"]["step_limit"]["value"]
    text = _rules(case)["step_bound_not_enforced"]
    assert f"its own default bound is {case.constants['step_limit']['value']}" in text
    other = Case(case.scenario, case.engine, case.framework, case.mechanisms, {"step_limit": {"ref": "x:Y", "value": 7}})
    assert "its own default bound is 7 (`x:Y`" in _rules(other)["step_bound_not_enforced"]
    bare = Case(case.scenario, case.engine, case.framework)
    assert "default bound" not in _rules(bare)["step_bound_not_enforced"]


def test_a_cell_no_rule_explains_says_so_and_names_the_leaf() -> None:
    said, rules, explained = explain("side_effects", {"c1": {"effects": 1}}, {"c1": {"effects": 2}}, [])
    assert (said, rules, explained) == (f"{UNEXPLAINED} at side_effects.c1.effects", [], False)


def test_a_resume_that_continued_like_the_engine_has_no_resume_reason() -> None:
    case = _case("langgraph", "defaults", "kill_before_effect@write_landed")
    assert "found the run at before_execute with c1 pending (engine: reconcile)" in _rules(case)["resumed_differently"]
    same = copy.deepcopy(case.framework.observables)
    same["checkpoint_after_interrupt"]["interrupts"] = case.engine.observables["checkpoint_after_interrupt"]["interrupts"]
    assert "resumed_differently" not in _rules(Case(case.scenario, case.engine, Run(same, case.framework.facts, case.framework.steps)))


def test_run_of_reads_what_the_rules_need() -> None:
    record = {"observables": {"status": "completed"}, "facts": [{"step": 0, "action": "run"}], "steps": [{"action": "run"}]}
    assert run_of(record) == Run({"status": "completed"}, [{"step": 0, "action": "run"}], [{"action": "run"}])


def test_a_high_risk_call_only_the_framework_paused_for_is_not_one_the_contract_does_not_ask_about() -> None:
    case = _case("agentscope", "defaults", "basic_react_loop")
    assert "asked_about_other_calls" in _rules(case)
    high = SCENARIOS["high_risk_approved"]  # its c1 is transfer_funds, high_risk
    facts = [{**{k: v for k, v in f.items() if k != "implicit_decision"}, "pending": ["c1"]} for f in case.framework.facts]
    engine = Run(case.engine.observables, [{k: v for k, v in f.items() if k != "pending"} for f in case.engine.facts], case.engine.steps)
    assert "asked_about_other_calls" not in _rules(Case(high, engine, Run(case.framework.observables, facts, case.framework.steps)))


def test_the_bound_a_run_stopped_at_is_named_by_mode_and_count() -> None:
    case = _case("openai_agents", "contract", "duplicate_call_id")
    assert f"(max_steps={case.scenario.max_steps}, as the contract glue passed it)" in _rules(case)["stopped_by_own_bound"]
    as_defaults = Case(case.scenario, case.engine, case.framework, case.mechanisms, case.constants, "defaults")
    assert "as the contract glue passed it" not in _rules(as_defaults)["stopped_by_own_bound"]
    defaults = _case("openai_agents", "defaults", "duplicate_call_id")
    assert f"(its default, {defaults.constants['step_limit']['value']} model calls" in _rules(defaults)["stopped_by_own_bound"]


def test_a_decision_that_ran_what_the_engine_also_ran_is_no_finding() -> None:
    case = _case("openai_agents", "defaults", "approval_misuse_other_call")  # c2's approval item handed over for c1 ran c2
    assert "the misuse_token of c1 at driver step 1 ran c2" in _rules(case)["decision_reached_other_call"]
    engine_facts = [{**f, "effects": {**f.get("effects", {}), "c2": 1}} if f["step"] == 1 else f for f in case.engine.facts]
    same = Case(case.scenario, Run(case.engine.observables, engine_facts, case.engine.steps), case.framework, mode="defaults")
    assert "decision_reached_other_call" not in _rules(same)


def test_a_restore_replaces_what_was_waiting() -> None:
    from harness.records import ScenarioRun, StepFacts, StepRecord
    from harness.runner_side.observables import undecided_calls

    pending = [{"call_id": "c1", "tool": "transfer_funds", "args": {}}]
    steps = [StepRecord(0, "run", "awaiting_approval", "awaiting_approval", pending=pending),
             StepRecord(1, "snapshot", "awaiting_approval", "awaiting_approval", pending=pending),
             StepRecord(2, "approve", "completed", "completed"),
             StepRecord(3, "snapshot", "completed", "completed"),
             StepRecord(4, "restore", "awaiting_approval", "awaiting_approval", pending=pending),
             StepRecord(5, "restore", "completed", "completed")]
    facts = [StepFacts(), StepFacts(), StepFacts(results=[{"call_id": "c1", "status": "ok", "content": "{}"}], approvals_granted=["c1"]),
             StepFacts(), StepFacts(), StepFacts()]
    run = ScenarioRun(SCENARIOS["high_risk_approved"], EVIDENCE, steps)
    assert undecided_calls(run, facts) == []
    assert undecided_calls(ScenarioRun(run.scenario, EVIDENCE, steps[:5]), facts[:5]) == ["c1"]


def test_a_long_runs_model_requests_keep_what_each_added() -> None:
    from harness.runner_side.observation import LONG_RUN_REQUESTS, compact_requests

    short = ["system user", "system user assistant tool"]
    assert compact_requests(short) == short
    long = ["system user" + " assistant tool" * i for i in range(LONG_RUN_REQUESTS + 1)] + ["system user again"]
    kept = compact_requests(long)
    assert kept[0] == "system user" and kept[1:-1] == ["+ assistant tool"] * LONG_RUN_REQUESTS and kept[-1] == "system user again"


def test_the_claim_tree_finds_exactly_what_claimed_finds() -> None:
    """``explain`` matches leaves through a tree of claims (linear in a long run); it must agree with ``claimed``,
    the one-line definition FINDINGS.md uses."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from harness.runner_side.reasons import Reason, _claim_tree, _claimants, claimed

    key = st.sampled_from(["a", "b", "c1", "0", "*"])
    path = st.lists(key.filter(lambda k: k != "*"), min_size=1, max_size=4).map(tuple)
    claim = st.lists(key, min_size=1, max_size=4).map(tuple)

    @settings(max_examples=300, deadline=None)
    @given(path, st.lists(st.lists(claim, max_size=3).map(tuple), max_size=4))
    def agree(leaf: tuple[str, ...], claims_per_reason: list[tuple[tuple[str, ...], ...]]) -> None:
        found = [Reason(f"r{i}", "", claims) for i, claims in enumerate(claims_per_reason)]
        expected = {i for i, r in enumerate(found) if claimed(leaf, r.claims)}
        assert _claimants(leaf, _claim_tree(found)) == expected

    agree()


def test_a_pause_the_driver_answered_implicitly_is_still_one_the_framework_asked() -> None:
    """The driver's implicit decisions keep the asking a finding: the reason names each at its sub-step, claims the
    implicit decisions recorded, and claims what followed (the run's end, the call's effects) only for a call left waiting."""
    case = _case("agentscope", "defaults", "basic_react_loop")
    assert all(not f.get("pending") for f in case.framework.facts) and case.framework.facts[0]["implicit_decision"]
    reason = next(r for r in reasons(case) if r.rule == "asked_about_other_calls")
    assert "c1 approved at driver step 0.1, c2 approved at driver step 0.2, c3 approved at driver step 0.3" in reason.text
    assert ("pre_approval_state",) in reason.claims and ("status",) not in reason.claims and ("side_effects", "c1") not in reason.claims
    unanswered = [{**{k: v for k, v in f.items() if k != "implicit_decision"}, "pending": ["c1"]} for f in case.framework.facts]
    left = Case(case.scenario, case.engine, Run(case.framework.observables, unanswered, case.framework.steps))
    reason = next(r for r in reasons(left) if r.rule == "asked_about_other_calls")
    assert "left waiting: c1 after driver step 0" in reason.text and ("side_effects", "c1") in reason.claims
    assert (("status",) in reason.claims) == ("the run ended" in reason.text)  # the run's end is claimed only where it is said


def test_a_call_the_driver_approved_that_ran_while_its_sibling_waits_ran_early() -> None:
    case = _case("agentscope", "defaults", "high_risk_in_parallel_batch")
    early = [r.text for r in reasons(case) if r.rule == "approved_call_ran_early"]
    assert early == ["when the run paused at driver step 0 for c2, the already approved c1 had 1 effects (engine: 0)",
                     "before the approve of c2 at driver step 1, the already approved c1 had 1 effects (engine: 0)"]
    assert "effect_before_decision" not in _rules(case)  # c1 was asked about: the driver approved it at driver step 0.1


def test_the_step_bound_of_the_drivers_implicit_answers_is_said() -> None:
    text = _rules(_case("agentscope", "defaults", "step_bound"))["asked_about_other_calls"]
    assert "left waiting: c4 after driver step 0 (driver step 0 had answered max_steps=3 pauses" in text


def _steps(*statuses: tuple[str, str | None], actions: list[str]) -> list[dict[str, Any]]:
    return [{"action": a, "status": s, "refusal": r, "error": None} for a, (s, r) in zip(actions, statuses, strict=True)]


def test_an_invalid_call_held_for_approval_says_so_and_owns_the_final_status_only_while_it_waits() -> None:
    """The schema refuses c1 (amount_cents a string) before policy; a framework that paused for it and still waits for it
    after the last step ended ``awaiting_approval`` because of it (what OpenAI Agents' defaults did, measured)."""
    from harness.runner_side.approval_rules import invalid_call_held

    scenario = SCENARIOS["invalid_high_risk_then_valid"]
    actions = ["run", "approve"]
    engine = Run({"status": "completed", "checkpoint_after_interrupt": "n/a"},
                 [{"step": 0, "action": "run", "pending": ["c2"], "validated": True}, {"step": 1, "action": "approve", "granted": ["c2"]}],
                 _steps(("awaiting_approval", None), ("completed", None), actions=actions))
    facts = [{"step": 0, "action": "run", "pending": ["c1"]}, {"step": 1, "action": "approve", "pending": ["c1"]}]
    waiting = Run({"status": "awaiting_approval", "checkpoint_after_interrupt": "n/a"}, facts,
                  _steps(("awaiting_approval", None), ("awaiting_approval", None), actions=actions))
    [reason] = invalid_call_held(Case(scenario, engine, waiting))
    assert reason.text.startswith("c1's arguments break transfer_funds's strict schema (amount_cents: '2500' is not of type 'integer')")
    assert "waiting after driver step 0 (before any validation), driver step 1 (before any validation)" in reason.text
    assert "c1 still waited after the last driver step, so the run ended awaiting_approval (engine: completed)" in reason.text
    assert reason.claims == (("status",),)
    validated = [{**f, "validated": True} for f in facts]  # a validation that passed the string: it coerces
    [reason] = invalid_call_held(Case(scenario, engine, Run(waiting.observables, validated, waiting.steps)))
    assert "driver step 0 (after its own validation passed them)" in reason.text
    decided = Run({"status": "completed", "checkpoint_after_interrupt": "n/a"}, [facts[0], {"step": 1, "action": "approve"}], waiting.steps)
    [reason] = invalid_call_held(Case(scenario, engine, decided))  # no longer waiting at the end: the status is not its
    assert "still waited" not in reason.text and reason.claims == ()
    never = Run(waiting.observables, [{"step": 0, "action": "run", "pending": ["c2"]}, {"step": 1, "action": "approve"}], waiting.steps)
    assert list(invalid_call_held(Case(scenario, engine, never))) == []


def _redelivery_runs(step_1: tuple[str, str | None], fact_1: dict[str, Any]) -> tuple[Run, Run]:
    """The engine's run of ``redelivery_while_pending`` and a framework's whose driver step 1 (the redelivery) ended
    ``step_1`` with the facts ``fact_1``; the approval at step 2 ran c1 once in both."""
    actions = ["run", "deliver_again", "approve"]
    result = "{\"amount_cents\":2500,\"status\":\"sent\",\"transfer_id\":\"tr-c1\"}"
    pause = {"args_validated": True, "non_read_only_effects": {}, "step": 0,
             "pending": [{"args": {"amount_cents": 2500, "from_account": "ACC-1", "to_account": "ACC-2"}, "call_id": "c1", "tool": "transfer_funds"}]}

    def observables(provided_by: str, statuses: list[str], pauses: list[dict[str, Any]], calls: dict[str, int]) -> dict[str, Any]:
        return {"status": "completed", "step_statuses": statuses, "checkpoint_after_interrupt": "n/a", "model": {"calls_per_turn": calls},
                "idempotent_replay": {"c1": {"results": [result], "equal": True, "effects": 1, "provided_by": provided_by}},
                "pre_approval_state": {"pauses": pauses, "decisions": [{"action": "approve", "call_id": "c1", "effects_before": {}, "step": 2}],
                                       "undecided_at_end": []}}

    ran = {"step": 2, "action": "approve", "entered": {"c1": 1}, "executed": {"c1": 1}, "effects": {"c1": 1}, "granted": ["c1"], "results": [["c1", "ok"]]}
    first = {"step": 0, "action": "run", "pending": ["c1"], "validated": True}
    engine = Run(observables("framework", ["awaiting_approval", "refused", "completed"], [pause], {"0": 1, "1": 1}),
                 [first, {"step": 1, "action": "deliver_again", "pending": ["c1"], "dedup_by": "framework", "validated": True}, ran],
                 _steps(("awaiting_approval", None), ("refused", "duplicate_event"), ("completed", None), actions=actions))
    pauses = [pause, {**pause, "step": 1}] if step_1[0] == "awaiting_approval" else [pause]
    framework = Run(observables("none", ["awaiting_approval", step_1[0], "completed"], pauses, {"0": 1 + (step_1[0] == "awaiting_approval"), "1": 1}),
                    [first, {"step": 1, "action": "deliver_again", **fact_1}, ran],
                    _steps(("awaiting_approval", None), step_1, ("completed", None), actions=actions))
    return engine, framework


def test_a_redelivery_refused_for_the_frameworks_own_reason_is_no_deduplication() -> None:
    """AgentScope's defaults refused the event delivered again while c1 waited (its agent takes only the confirmation
    then), with no deduplication recorded: its replay record names none, where the engine's names the framework."""
    from harness.runner_side.event_rules import redelivered_as_new_turn

    scenario = SCENARIOS["redelivery_while_pending"]
    refusal = "agentscope: Agent is waiting for 1 tool calls and external execution results for 0 tool calls, but received no event"
    engine, framework = _redelivery_runs(("refused", refusal), {"pending": ["c1"], "validated": True})
    [reason] = redelivered_as_new_turn(Case(scenario, engine, framework))
    assert reason.rule == "redelivery_refused_not_deduplicated" and "redelivery_refused_not_deduplicated" in CONSEQUENCES
    assert f"driver step 1 was refused by the framework while c1 waited for a decision ({refusal}), not recognised as a duplicate" in reason.text
    assert ("idempotent_replay", "c1", "provided_by") in reason.claims
    engine_refused = Run(framework.observables, framework.facts, [{**s, "refusal": "duplicate_event"} if s["action"] == "deliver_again" else s
                                                                   for s in framework.steps])
    assert list(redelivered_as_new_turn(Case(scenario, engine, engine_refused))) == []  # refused as the duplicate it is
    glued = Run(framework.observables, [{**f, "dedup_by": "glue"} if f["action"] == "deliver_again" else f for f in framework.facts], framework.steps)
    assert list(redelivered_as_new_turn(Case(scenario, engine, glued))) == []  # deduplicated: deduplicated_by_glue's


def test_a_redelivery_that_paused_again_claims_the_pause_it_added() -> None:
    """OpenAI Agents' defaults took the event delivered again as a new turn, the model sent c1 again and the run paused
    for it a second time: the redelivery explains the pause list the engine's run does not have."""
    from harness.runner_side.event_rules import redelivered_as_new_turn

    scenario = SCENARIOS["redelivery_while_pending"]
    engine, framework = _redelivery_runs(("awaiting_approval", None), {"pending": ["c1"], "validated": True})
    [reason] = redelivered_as_new_turn(Case(scenario, engine, framework))
    assert "the step ended awaiting_approval waiting for c1, executors entered in it: none" in reason.text
    assert ("pre_approval_state", "pauses") in reason.claims
    other = Run(framework.observables, [{**f, "pending": ["c2"]} if f["step"] == 1 else f for f in framework.facts], framework.steps)
    [reason] = redelivered_as_new_turn(Case(scenario, engine, other))  # the pause recorded is not the one the step's facts give
    assert ("pre_approval_state", "pauses") not in reason.claims


def test_a_decision_for_a_call_the_framework_never_asked_about_is_not_one_it_ignored() -> None:
    """The engine refused c1 by schema and asked about c2; a framework that paused for c1 never asked about c2, so the
    human's approval of c2 answers no question of its own (a consequence of that pause), not ``decision_ignored``."""
    from harness.runner_side.approval_rules import misused_approval

    scenario = SCENARIOS["invalid_high_risk_then_valid"]
    steps = _steps(("awaiting_approval", None), ("awaiting_approval", None), actions=["run", "approve"])
    observed = {"step_statuses": [s["status"] for s in steps]}
    engine = Run(observed, [{"step": 0, "action": "run", "pending": ["c2"]}, {"step": 1, "action": "approve"}], steps)
    unasked = Run(observed, [{"step": 0, "action": "run", "pending": ["c1"]}, {"step": 1, "action": "approve", "pending": ["c1"]}], steps)
    [reason] = misused_approval(Case(scenario, engine, unasked))
    assert reason.rule == "decision_for_unasked_call" and "decision_for_unasked_call" in CONSEQUENCES
    assert "approve for c2 at driver step 1 (c2 was never waiting in the framework's run (waiting: c1); the step ended awaiting_approval" in reason.text
    assert reason.claims == (("step_statuses", "1"),)
    # c2 waited just before the approval: a call the framework asked about (what became of it is for other rules to say)
    gone = Run(observed, [{"step": 0, "action": "run", "pending": ["c2", "c1"]}, {"step": 1, "action": "approve", "pending": ["c1"]}], steps)
    assert [r.rule for r in misused_approval(Case(scenario, engine, gone))] == []


def test_a_decision_the_engine_refused_that_a_killed_run_took_says_what_ran() -> None:
    """decision_after_kill: the engine refused the approval of c1 (not_pending, its run crashed); LangChain and LangGraph
    took it as a resume and ran c1 again. The reason says what ran and owns the step's and the run's status; with the
    step's entries taken away (nothing ran, c1 never waited) it is no longer this rule's."""
    from harness.runner_side.approval_rules import misused_approval

    case = _case("langgraph", "defaults", "decision_after_kill@write_landed")
    [reason] = misused_approval(case)
    assert reason.rule == "refused_decision_taken" and "refused_decision_taken" in CONSEQUENCES
    assert "the engine refused it: not_pending" in reason.text and "killed at driver step 0 and not resumed since" in reason.text
    assert "c1 entered once" in reason.text
    assert ("step_statuses", "1") in reason.claims and ("status",) in reason.claims
    idle = Run(case.framework.observables, [{k: v for k, v in f.items() if k not in ("entered", "executed", "results")} for f in case.framework.facts],
               case.framework.steps)
    assert [r.rule for r in misused_approval(Case(case.scenario, case.engine, idle))] == ["decision_for_unasked_call"]


def test_a_kill_the_framework_state_reads_past_is_crashed_on_the_next_snapshot() -> None:
    """snapshot_after_kill_between_turns: in contract mode the snapshot after the kill reads crashed in every column (the
    base column's record of how the framework's run ended, ``adapters/last_run.py``: AgentScope's and OpenAI Agents' saved
    state read as finished), so the cell is equal, not explained."""
    for framework in ("agentscope", "langchain", "langgraph", "openai_agents", "pydantic_ai"):
        record = _document(framework)["modes"]["contract"]["scenarios"]["snapshot_after_kill_between_turns"]
        assert [s["status"] for s in record["steps"]] == ["crashed", "crashed", "completed"], framework
        assert record["columns"]["step_statuses"]["equal"] is True, framework


def test_a_call_whose_arguments_are_not_json_and_got_no_result_was_dropped() -> None:
    """malformed_args_not_json: LangChain's client makes ``{"city": `` an invalid tool call and the agent ends the run
    after that turn; the engine answered it and asked for turn 1. A run that asked for turn 1 did not drop it."""
    from harness.runner_side.argument_rules import invalid_call_dropped

    case = _case("langchain", "defaults", "malformed_args_not_json")
    [reason] = invalid_call_dropped(case)
    assert "c1's arguments are not JSON" in reason.text and "asked the model for turn 1" in reason.text
    assert ("model", "calls_per_turn", "1") in reason.claims and ("model", "calls_per_turn", "2") in reason.claims
    went_on = {**case.framework.observables, "model": {**case.framework.observables["model"], "calls_per_turn": {"0": 1, "1": 1}}}
    assert list(invalid_call_dropped(Case(case.scenario, case.engine, Run(went_on, case.framework.facts, case.framework.steps)))) == []
    answered = [{**f, "results": [["c1", "error"]]} for f in case.framework.facts]
    assert list(invalid_call_dropped(Case(case.scenario, case.engine, Run(case.framework.observables, answered, case.framework.steps)))) == []


def test_a_schema_lost_in_the_declaration_and_one_rewritten_in_the_request_are_two_findings_that_follow_their_part() -> None:
    """LangChain's ``get_weather`` in ``wire_http_500_once``: the ``@tool`` object lost the registry's ``minLength``
    (``schema_lost_in_declaration``, claiming the ``declared`` part) and the request dropped the object's titles
    (``schema_rewritten``, claiming ``rewritten``). A request that sent the object as it is leaves only the first; an
    object that kept the registry's schema leaves only the second; a constraint the request states in a description
    adds ``constraint_moved_to_text``."""
    case = _case("langchain", "wire", "wire_http_500_once")
    found = {r.rule: r for r in reasons(case) if r.rule.startswith(("schema_", "constraint_"))}
    assert set(found) == {"schema_lost_in_declaration", "schema_rewritten"}
    assert found["schema_lost_in_declaration"].claims == (("wire", "schema_diff", "get_weather", "declared"),)
    assert found["schema_rewritten"].claims == (("wire", "schema_diff", "get_weather", "rewritten"),)
    assert "/properties/city/minLength" in found["schema_lost_in_declaration"].text

    diff = case.framework.observables["wire"]["schema_diff"]["get_weather"]
    as_declared = copy.deepcopy(case)
    as_declared.framework.observables["wire"]["schema_diff"]["get_weather"] = {"declared": diff["declared"], "rewritten": {}}
    assert {r.rule for r in reasons(as_declared) if r.rule.startswith("schema_")} == {"schema_lost_in_declaration"}

    moved = {"dropped": ["/properties/city/minLength"], "added": ["/properties/city/description"], "moved_to_text": ["/properties/city/minLength"]}
    as_sent = copy.deepcopy(case)
    as_sent.framework.observables["wire"]["schema_diff"]["get_weather"] = {"declared": {}, "rewritten": moved}
    rules = {r.rule: r for r in reasons(as_sent) if r.rule.startswith(("schema_", "constraint_"))}
    assert set(rules) == {"schema_rewritten", "constraint_moved_to_text"}
    assert rules["constraint_moved_to_text"].claims == (("wire", "schema_diff", "get_weather", "rewritten", "moved_to_text"),)
