"""The rule table: reasons follow the facts (change a fact and its reason changes or goes), quote only what
the record holds, and leave no difference of the committed evidence unexplained.

Every evidence file is parsed once per test session (``_document``) and each case is built from the loaded documents
by the comparison's own builder (``case_of``, the engine's run chosen by ``harness.modes.compared_with``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from harness.columns import REFERENCE, ROOT, known_columns
from harness.runner_side.judge import (
    ABSENT,
    UNEXPLAINED,
    Case,
    Claim,
    Reason,
    Run,
    StoredEvidence,
    case_from_record,
    consequences,
    differing_paths,
    explain,
    reason_record,
    reasons,
    run_of,
    value_at,
)
from harness.runner_side.judge.explain import vouches
from harness.scenarios import SCENARIO_DIR, load_scenarios
from tests.harness.runner_side.judge.facts_builder import Step, records, rerun, run, step, steps_of

EVIDENCE = ROOT / "evidence"
FRAMEWORKS = sorted(n for n in known_columns() if n != REFERENCE)
SCENARIOS = {s.id: s for s in load_scenarios(SCENARIO_DIR)}


COMMITTED = StoredEvidence(EVIDENCE)  # each evidence file and scenario file parsed once per session
_document, _scenario = COMMITTED.document, COMMITTED.scenario


def _case(framework: str, mode: str, key: str) -> Case:
    """The case the comparison built for one committed record, from the loaded documents."""
    return COMMITTED.case(framework, mode, key)


def _with(case: Case, **framework: Any) -> Case:
    """``case`` with some fields of the framework's run replaced (its requests and wire records kept)."""
    return replace(case, framework=replace(case.framework, **framework))


def _rebuilt(case: Case, *steps: Step) -> Case:
    """``case`` with the framework's run built again from ``steps`` (``facts_builder``: its observables, requests and wire
    records kept), so a changed fact is one production could have recorded."""
    return replace(case, framework=rerun(case.framework, *steps))


def _rules(case: Case) -> dict[str, str]:
    return {r.rule: r.text for r in reasons(case)}


def _paths(reason: Reason) -> list[tuple[str, ...]]:
    return [c.path for c in reason.claims]


def _requests(calls: dict[str, int]) -> list[str]:
    """Model requests whose roles ask for each turn as often as ``calls`` says (a request asks for the turn its number
    of assistant messages names)."""
    return ["system user" + " assistant tool" * int(t) for t, n in calls.items() for _ in range(n)]


def test_the_cases_built_from_the_loaded_documents_are_the_ones_case_from_record_builds() -> None:
    for framework, mode, key in (("langgraph", "defaults", "always_deny"), ("langchain", "wire", "wire_http_500_once"),
                                 ("openai_agents", "contract", "duplicate_call_id")):
        assert _case(framework, mode, key) == case_from_record(EVIDENCE, framework, mode, key), (framework, mode, key)


@pytest.mark.parametrize("column", [REFERENCE, *FRAMEWORKS])
def test_the_tests_facts_builder_builds_every_committed_run_again(column: str) -> None:
    """The runs these tests build (``facts_builder``) have the shapes production gives: every committed run, read back
    into typed steps and built again through ``step_facts``, is that run (its facts and steps as stored)."""
    for mode, body in _document(column)["modes"].items():
        for key, record in body["scenarios"].items():
            stored = run_of(record)
            assert rerun(stored, *steps_of(stored)) == stored, (mode, key)


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
    """Anyone can re-derive every reason, and every not-equal cell's rules, from the evidence alone."""
    for mode, body in _document(framework)["modes"].items():
        for key, record in body["scenarios"].items():
            if record["status"] != "ok":
                continue
            found = reasons(_case(framework, mode, key))
            assert [reason_record(r) for r in dict.fromkeys(found)] == record["reasons"], (mode, key)
            for name, cell in record["columns"].items():
                if cell["equal"] is False:
                    _, rules, explained = explain(name, cell["handwritten"], cell["framework"], found)
                    assert explained and rules == cell["rules"], (mode, key, name)


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
    twice = [replace(s, executed={"c1": 2}, effects={"c1": 2}, ran_with={"c1": [*(s.ran_with or {})["c1"]] * 2}) if s.executed else s
             for s in steps_of(case.framework)]
    assert "ran: 2 executor entries, 2 effects" in _rules(_rebuilt(case, *twice))["denied_tool_ran"]
    never = [replace(s, entered={}, executed={}, effects={}, ran_with=None) for s in steps_of(case.framework)]
    assert "denied_tool_ran" not in _rules(_rebuilt(case, *never))


def test_a_misused_approval_is_taken_only_when_its_call_was_pending_and_decided_or_ran() -> None:
    case = _case("agentscope", "defaults", "approval_misuse_other_args")  # a confirmation with edited arguments ran
    rules = _rules(case)
    assert ("other_args approval for c1 at driver step 1 (its approval object carries the arguments and it did not hold; after it: "
            "c1 had 1 effect in all after driver step 1") in rules["misused_approval_accepted"]
    # the same step with its effects taken away and c1 left pending: nothing was taken, the binding held
    waiting = [replace(s, entered={}, executed={}, effects={}, ran_with=None, pending=("c1",)) for s in steps_of(case.framework)]
    rules = _rules(_rebuilt(case, *waiting))
    assert "misused_approval_accepted" not in rules
    assert ("other_args approval for c1 at driver step 1 (c1 still waiting after driver step 1: c1; driver step 1 ended completed, "
            "in driver step 1 nothing ran") in rules["misused_approval_ignored"]
    refused = [replace(s, status="refused") if s.action == "misuse_token" else s for s in waiting]  # its session as it was
    rules = _rules(_rebuilt(case, *refused))
    assert "misused_approval_accepted" not in rules and "misused_approval_ignored" not in rules


def test_a_misused_approval_whose_call_ran_later_with_no_decision_of_its_own_was_acted_on() -> None:
    """A misused approval handed over while the run was killed, then a resume that runs the call with no decision given
    for it since: the approval was taken there, never "neither refused nor acted on"."""
    case = _case("agentscope", "defaults", "misused_args_kill_restore")  # step 3: other_args approval for t1 after the kill at step 2
    steps = steps_of(case.framework)
    ran = steps[3]
    steps[3] = replace(ran, entered={}, executed={}, effects={}, ran_with=None, results=(), granted=(), implicit_decision=())
    # the resume at step 4 runs what the misuse let in
    steps[4] = replace(steps[4], entered=ran.entered, executed=ran.executed, effects=ran.effects, ran_with=ran.ran_with)
    rules = _rules(_rebuilt(case, *steps))
    assert "misused_approval_ignored" not in rules
    assert ("other_args approval for t1 at driver step 3 (then, with no decision for t1 since, in driver step 4 n1 entered once, t1 entered "
            "once; t1 had 1 effect in all after driver step 4") in rules["misused_approval_accepted"]


def test_a_misuse_the_approval_object_cannot_carry_is_a_consequence_not_a_finding() -> None:
    case = _case("langgraph", "defaults", "approval_misuse_other_args")  # LangGraph's resume value names no arguments
    fact = next(f for f in case.framework.facts if f.get("approval_object"))
    assert fact["approval_object"] == {"misuse": "other_args", "binding": "arguments", "carried": False, "made_for": "c1"}
    rules = _rules(case)
    assert "its approval object has no field for the arguments: it went in as a plain approval" in rules["approval_not_carried"]
    assert "misused_approval_accepted" not in rules and "approval_not_carried" in consequences()
    carried = [replace(s, approval_object={**s.approval_object, "carried": True}) if s.approval_object else s for s in steps_of(case.framework)]
    assert "misused_approval_accepted" in _rules(_rebuilt(case, *carried))


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
    other = replace(case, constants={"step_limit": {"ref": "x:Y", "value": 7}})
    assert "its own default bound is 7 (`x:Y`" in _rules(other)["step_bound_not_enforced"]
    bare = Case(case.scenario, case.engine, case.framework)
    assert "default bound" not in _rules(bare)["step_bound_not_enforced"]


def test_a_cell_no_rule_explains_says_so_and_names_the_leaf() -> None:
    said, rules, explained = explain("side_effects", {"c1": {"effects": 1}}, {"c1": {"effects": 2}}, [])
    assert (said, rules, explained) == (f"{UNEXPLAINED} at side_effects.c1.effects", [], False)


def test_a_resume_that_continued_like_the_engine_has_no_resume_reason() -> None:
    case = _case("langgraph", "defaults", "kill_before_effect@write_landed")
    assert "found the run at before_execute with c1 pending (engine: reconcile)" in _rules(case)["resumed_differently"]
    engine_resume = next(f["resumed"] for f in case.engine.facts if f.get("resumed"))
    same = [replace(s, resumed=engine_resume) if s.resumed else s for s in steps_of(case.framework)]  # the facts say where the resume found it
    assert "resumed_differently" not in _rules(_rebuilt(case, *same))


def test_run_of_reads_what_the_rules_need() -> None:
    built = run({"status": "completed"}, step("run"))
    facts, steps = built.facts, built.steps
    wire = [{"turn": 0, "attempt": 0}]
    observation = {"observables": {"status": "completed"}, "facts": facts, "steps": steps, "model_requests": ["system user"], "wire_requests": wire}
    assert run_of(observation) == Run({"status": "completed"}, facts, steps, ["system user"], wire)
    stored = {"columns": {"status": {"framework": "completed", "handwritten": "completed", "equal": True}}, "facts": facts, "steps": steps}
    assert run_of(stored) == Run({"status": "completed"}, facts, steps, [], None)  # a run without model requests or wire records
    engine = {"actual": {"status": "completed"}, "facts": facts, "steps": steps, "model_requests": ["system user"]}
    assert run_of(engine) == Run({"status": "completed"}, facts, steps, ["system user"], None)


def test_a_high_risk_call_only_the_framework_paused_for_is_not_one_the_contract_does_not_ask_about() -> None:
    case = _case("agentscope", "defaults", "basic_react_loop")
    assert "asked_about_other_calls" in _rules(case)
    high = SCENARIOS["high_risk_approved"]  # its c1 is transfer_funds, high_risk
    paused = [replace(s, implicit_decision=(), pending=("c1",)) for s in steps_of(case.framework)]
    engine = rerun(case.engine, *[replace(s, pending=(), validated=None) for s in steps_of(case.engine)])
    assert "asked_about_other_calls" not in _rules(Case(high, engine, rerun(case.framework, *paused)))


def test_the_bound_a_run_stopped_at_is_named_by_mode_and_count() -> None:
    case = _case("openai_agents", "contract", "duplicate_call_id")
    assert f"(max_steps={case.scenario.max_steps}, as the contract glue passed it)" in _rules(case)["stopped_by_own_bound"]
    as_defaults = replace(case, mode="defaults")
    assert "as the contract glue passed it" not in _rules(as_defaults)["stopped_by_own_bound"]
    defaults = _case("openai_agents", "defaults", "duplicate_call_id")
    assert f"(its default, {defaults.constants['step_limit']['value']} model calls" in _rules(defaults)["stopped_by_own_bound"]
    fewer = _with(defaults, requests=defaults.framework.requests[:-1])  # a count of model calls that is not the bound's names no bound
    assert "(its default" not in _rules(fewer)["stopped_by_own_bound"]


def test_a_decision_that_ran_what_the_engine_also_ran_is_no_finding() -> None:
    case = _case("openai_agents", "defaults", "approval_misuse_other_call")  # c2's approval item handed over for c1 ran c2
    assert "the misuse_token of c1 at driver step 1 ran c2" in _rules(case)["decision_reached_other_call"]
    also = [replace(s, entered={**s.entered, "c2": 1}, executed={**s.executed, "c2": 1}, effects={**s.effects, "c2": 1}, ran_with=None) if i == 1 else s
            for i, s in enumerate(steps_of(case.engine))]  # the engine's step 1 ran c2 once as well
    same = Case(case.scenario, rerun(case.engine, *also), case.framework, mode="defaults")
    assert "decision_reached_other_call" not in _rules(same)


def test_a_restore_replaces_what_was_waiting() -> None:
    from harness.records import ScenarioRun
    from harness.runner_side.observe.observables import undecided_calls

    pairs = records(step("run", pending=["c1"]), step("snapshot", pending=["c1"]), step("approve", granted=["c1"], results=[("c1", "ok")]),
                    step("snapshot"), step("restore", pending=["c1"]), step("restore"))
    steps, facts = [r for r, _ in pairs], [f for _, f in pairs]
    scenario_run = ScenarioRun(SCENARIOS["high_risk_approved"], EVIDENCE, steps)
    assert undecided_calls(scenario_run, facts) == []
    assert undecided_calls(ScenarioRun(scenario_run.scenario, EVIDENCE, steps[:5]), facts[:5]) == ["c1"]


def test_a_long_runs_model_requests_keep_what_each_added() -> None:
    from harness.runner_side.judge.facts import model_calls
    from harness.runner_side.observe.observation import LONG_RUN_REQUESTS, compact_requests

    short = ["system user", "system user assistant tool"]
    assert compact_requests(short) == short
    long = ["system user" + " assistant tool" * i for i in range(LONG_RUN_REQUESTS + 1)] + ["system user again"]
    kept = compact_requests(long)
    assert kept[0] == "system user" and kept[1:-1] == ["+ assistant tool"] * LONG_RUN_REQUESTS and kept[-1] == "system user again"
    # the turns the judge reads from the compacted requests are the ones the full requests ask for
    assert model_calls(Run({}, requests=kept)) == model_calls(Run({}, requests=long)) == {"0": 2, **{str(i): 1 for i in range(1, LONG_RUN_REQUESTS + 1)}}


def test_explain_finds_exactly_the_claims_that_vouch_for_each_differing_leaf() -> None:
    """``explain`` matches leaves through a tree of claims (linear in a long run); it must agree with ``vouches``, the
    one-line definition, tried for every claim against every differing leaf."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    key = st.sampled_from(["a", "b", "c1", "0"])
    leaf = st.one_of(st.integers(0, 2), st.booleans(), st.sampled_from(["x", "y"]))
    node = st.recursive(leaf, lambda inner: st.dictionaries(key, inner, max_size=3) | st.lists(inner, max_size=2), max_leaves=6)
    value = st.dictionaries(key, node, max_size=4)  # a cell is a dict more often than not: differing leaves lie deeper than its root

    @settings(max_examples=300, deadline=None)
    @given(value, value, st.data())
    def agree(engine: Any, framework: Any, data: st.DataObject) -> None:
        leaves = [("cell", *p) for p in differing_paths(engine, framework)]
        prefixes = sorted({p[:i] for p in leaves for i in range(1, len(p) + 1)} | {("cell",)})
        somewhere = st.one_of(st.sampled_from(prefixes), st.lists(key, max_size=3).map(lambda p: ("cell", *p)))
        # a claim's value: the framework's own there (it vouches), or any other value (it may or may not)
        claim = st.builds(lambda path, own, other: Claim(path, value_at(framework, path[1:]) if own else other),
                          somewhere, st.booleans(), node | st.just(ABSENT))
        found = [Reason(f"r{i}", f"text {i}", claims) for i, claims in enumerate(data.draw(st.lists(st.lists(claim, max_size=3).map(tuple), max_size=4)))]
        vouched = [{i for i, r in enumerate(found) if any(vouches(c, p, value_at(framework, p[1:])) for c in r.claims)} for p in leaves]
        said, rules, explained = explain("cell", engine, framework, found)
        loose = [".".join(p) for p, v in zip(leaves, vouched, strict=True) if not v]
        assert explained == (not loose)
        assert rules == sorted({found[i].rule for v in vouched for i in v})
        assert said == "; ".join([*(found[i].text for i in sorted(set().union(*vouched))), *([f"{UNEXPLAINED} at {', '.join(loose[:3])}"] if loose else [])])

    agree()


def test_a_pause_the_driver_answered_implicitly_is_still_one_the_framework_asked() -> None:
    """The driver's implicit decisions keep the asking a finding: the reason names each at its sub-step, claims the
    implicit decisions recorded, and claims what followed (the run's end, the call's effects) only for a call left waiting."""
    case = _case("agentscope", "defaults", "basic_react_loop")
    assert all(not f.get("pending") for f in case.framework.facts) and case.framework.facts[0]["implicit_decision"]
    reason = next(r for r in reasons(case) if r.rule == "asked_about_other_calls")
    assert "c1 approved at driver step 0.1, c2 approved at driver step 0.2, c3 approved at driver step 0.3" in reason.text
    paths = _paths(reason)
    assert ("pre_approval_state",) in paths and ("status",) not in paths and ("side_effects", "c1") not in paths
    unanswered = [replace(s, implicit_decision=(), pending=("c1",)) for s in steps_of(case.framework)]
    reason = next(r for r in reasons(_rebuilt(case, *unanswered)) if r.rule == "asked_about_other_calls")
    paths = _paths(reason)
    assert "left waiting: c1 after driver step 0" in reason.text and ("side_effects", "c1") in paths
    assert (("status",) in paths) == ("the run ended" in reason.text)  # the run's end is claimed only where it is said


def test_a_call_the_driver_approved_that_ran_while_its_sibling_waits_ran_early() -> None:
    case = _case("agentscope", "defaults", "high_risk_in_parallel_batch")
    early = [r.text for r in reasons(case) if r.rule == "approved_call_ran_early"]
    assert early == ["when the run paused at driver step 0 for c2, the already approved c1 had 1 effect in all after driver step 0 (engine: 0)",
                     "before the approve of c2 at driver step 1, the already approved c1 had 1 effect in all after driver step 0 (engine: 0)"]
    assert "effect_before_decision" not in _rules(case)  # c1 was asked about: the driver approved it at driver step 0.1


def test_the_step_bound_of_the_drivers_implicit_answers_is_said() -> None:
    text = _rules(_case("agentscope", "defaults", "step_bound"))["asked_about_other_calls"]
    assert "left waiting: c4 after driver step 0 (driver step 0 had answered max_steps=3 pauses" in text


def _observed(status: str, steps: Sequence[Step], calls: dict[str, int], **more: Any) -> dict[str, Any]:
    """A run's observables with what the judge reads of every run (the cells a scenario does not exercise ``n/a``)."""
    model = {"calls_per_turn": calls, "injected": [], "marker_roles": [], "missing_turns": [], "unused_turns": []}
    return {"status": status, "step_statuses": [s.status for s in steps], "refusals": [s.refusal for s in steps if s.refusal],
            "side_effects": {}, "model": model, "schema_failure_side_effects": "n/a", "pre_approval_state": "n/a", "idempotent_replay": "n/a",
            "checkpoint_after_interrupt": "n/a", "wire": "n/a", **more}


def test_an_invalid_call_held_for_approval_says_so_and_owns_the_final_status_only_while_it_waits() -> None:
    """The schema refuses c1 (amount_cents a string) before policy; a framework that paused for it and still waits for it
    after the last step ended ``awaiting_approval`` because of it (what OpenAI Agents' defaults did, measured)."""
    from harness.runner_side.judge.rules.approval.asking import invalid_call_held

    scenario = SCENARIOS["invalid_high_risk_then_valid"]
    engine_steps = (step("run", pending=["c2"], validated=True), step("approve", granted=["c2"]))
    engine = run(_observed("completed", engine_steps, {"0": 1, "1": 1}), *engine_steps, requests=_requests({"0": 1, "1": 1}))
    steps = (step("run", pending=["c1"]), step("approve", pending=["c1"]))
    waiting = run(_observed("awaiting_approval", steps, {"0": 1}), *steps, requests=_requests({"0": 1}))
    [reason] = invalid_call_held(Case(scenario, engine, waiting))
    assert reason.text.startswith("c1's arguments break transfer_funds's strict schema (amount_cents: '2500' is not of type 'integer')")
    assert "waiting after driver step 0 (before any validation), driver step 1 (before any validation)" in reason.text
    assert "c1 still waited after the last driver step, so the run ended awaiting_approval (engine: completed)" in reason.text
    assert reason.claims == (Claim(("status",), "awaiting_approval"),)  # the status the steps and what waits give
    validated = [replace(s, validated=True) for s in steps]  # a validation that passed the string: it coerces
    [reason] = invalid_call_held(Case(scenario, engine, rerun(waiting, *validated)))
    assert "driver step 0 (after its own validation passed them)" in reason.text
    decided = rerun(waiting, steps[0], replace(steps[1], pending=()))  # still awaiting_approval, with nothing left waiting
    [reason] = invalid_call_held(Case(scenario, engine, decided))  # no longer waiting at the end: the status is not its
    assert "still waited" not in reason.text and reason.claims == ()
    never = rerun(waiting, replace(steps[0], pending=("c2",)), replace(steps[1], pending=()))
    assert list(invalid_call_held(Case(scenario, engine, never))) == []


def _redelivery_runs(step_1: Step) -> tuple[Run, Run]:
    """The engine's run of ``redelivery_while_pending`` and a framework's whose driver step 1 (the redelivery) is
    ``step_1``; the approval at step 2 ran c1 once in both."""
    result = "{\"amount_cents\":2500,\"status\":\"sent\",\"transfer_id\":\"tr-c1\"}"
    pause = {"args_validated": True, "non_read_only_effects": {}, "step": 0,
             "pending": [{"args": {"amount_cents": 2500, "from_account": "ACC-1", "to_account": "ACC-2"}, "call_id": "c1", "tool": "transfer_funds"}]}

    def observables(provided_by: str, steps: Sequence[Step], pauses: list[dict[str, Any]], calls: dict[str, int]) -> dict[str, Any]:
        replay = {"c1": {"results": [result], "equal": True, "effects": 1, "provided_by": provided_by}}
        state = {"pauses": pauses, "decisions": [{"action": "approve", "call_id": "c1", "effects_before": {}, "step": 2}], "undecided_at_end": []}
        return _observed("completed", steps, calls, side_effects={"c1": {"effects": 1, "executor_entries": 1, "tool_entries": 1}},
                         idempotent_replay=replay, pre_approval_state=state)

    ran = step("approve", entered={"c1": 1}, executed={"c1": 1}, effects={"c1": 1}, granted=["c1"], results=[("c1", "ok")])
    first = step("run", pending=["c1"], validated=True)
    engine_steps = (first, step("deliver_again", "refused", refusal="duplicate_event", pending=["c1"], dedup_by="framework", validated=True), ran)
    engine = run(observables("framework", engine_steps, [pause], {"0": 1, "1": 1}), *engine_steps, requests=_requests({"0": 1, "1": 1}))
    pauses = [pause, {**pause, "step": 1}] if step_1.status == "awaiting_approval" else [pause]
    calls = {"0": 1 + (step_1.status == "awaiting_approval"), "1": 1}
    steps = (first, step_1, ran)
    framework = run(observables("none", steps, pauses, calls), *steps, requests=_requests(calls))
    return engine, framework


def test_a_redelivery_refused_for_the_frameworks_own_reason_is_no_deduplication() -> None:
    """AgentScope's defaults refused the event delivered again while c1 waited (its agent takes only the confirmation
    then), with no deduplication recorded: its replay record names none, where the engine's names the framework."""
    from harness.runner_side.judge.rules.events import redelivered_as_new_turn

    scenario = SCENARIOS["redelivery_while_pending"]
    refusal = "agentscope: Agent is waiting for 1 tool calls and external execution results for 0 tool calls, but received no event"
    engine, framework = _redelivery_runs(step("deliver_again", "refused", refusal=refusal, pending=["c1"], validated=True))
    [reason] = redelivered_as_new_turn(Case(scenario, engine, framework))
    assert reason.rule == "redelivery_refused_not_deduplicated" and "redelivery_refused_not_deduplicated" in consequences()
    assert f"driver step 1 was refused by the framework ({refusal}; waiting after driver step 0: c1), not recognised as a duplicate" in reason.text
    assert Claim(("idempotent_replay", "c1", "provided_by"), "none") in reason.claims  # the facts record no deduplicator
    engine_refused = rerun(framework, *[replace(s, refusal="duplicate_event") if s.action == "deliver_again" else s for s in steps_of(framework)])
    assert list(redelivered_as_new_turn(Case(scenario, engine, engine_refused))) == []  # refused as the duplicate it is
    glued = rerun(framework, *[replace(s, dedup_by="glue") if s.action == "deliver_again" else s for s in steps_of(framework)])
    assert list(redelivered_as_new_turn(Case(scenario, engine, glued))) == []  # deduplicated: deduplicated_by_glue's


def test_a_redelivery_that_paused_again_claims_the_pause_it_added() -> None:
    """OpenAI Agents' defaults took the event delivered again as a new turn, the model sent c1 again and the run paused
    for it a second time: the redelivery explains the pause list the engine's run does not have, with the pauses the
    step facts give; where the facts give another pause than the one recorded, the list is left unexplained."""
    from harness.runner_side.judge.rules.events import redelivered_as_new_turn

    scenario = SCENARIOS["redelivery_while_pending"]
    engine, framework = _redelivery_runs(step("deliver_again", pending=["c1"], validated=True))
    [reason] = redelivered_as_new_turn(Case(scenario, engine, framework))
    assert "driver step 1 ended awaiting_approval waiting for c1, executors entered in it: none" in reason.text
    assert ("pre_approval_state", "pauses") in _paths(reason)
    state, engine_state = framework.observables["pre_approval_state"], engine.observables["pre_approval_state"]
    assert explain("pre_approval_state", engine_state, state, [reason])[1:] == (["redelivered_as_new_turn"], True)
    other = rerun(framework, *[replace(s, pending=("c2",)) if i == 1 else s for i, s in enumerate(steps_of(framework))])
    [reason] = redelivered_as_new_turn(Case(scenario, engine, other))  # the pause recorded is not the one the step's facts give
    said, _, explained = explain("pre_approval_state", engine_state, state, [reason])
    assert not explained and f"{UNEXPLAINED} at pre_approval_state.pauses" in said


def test_a_decision_for_a_call_the_framework_never_asked_about_is_not_one_it_ignored() -> None:
    """The engine refused c1 by schema and asked about c2; a framework that paused for c1 never asked about c2, so the
    human's approval of c2 answers no question of its own (a consequence of that pause), not ``decision_ignored``."""
    from harness.runner_side.judge.rules.approval.asking import misused_approval

    scenario = SCENARIOS["invalid_high_risk_then_valid"]
    steps = (step("run", pending=["c2"]), step("approve", "awaiting_approval"))
    engine = run(_observed("awaiting_approval", steps, {"0": 1}), *steps, requests=_requests({"0": 1}))
    unasked = rerun(engine, step("run", pending=["c1"]), step("approve", pending=["c1"]))
    [reason] = misused_approval(Case(scenario, engine, unasked))
    assert reason.rule == "decision_for_unasked_call" and "decision_for_unasked_call" in consequences()
    assert ("approve for c2 at driver step 1 (c2 was never waiting in the framework's run (waiting after driver step 0: c1); "
            "driver step 1 ended awaiting_approval") in reason.text
    assert reason.claims == (Claim(("step_statuses", "1"), "awaiting_approval"),)
    # c2 waited just before the approval: a call the framework asked about (what became of it is for other rules to say)
    gone = rerun(engine, step("run", pending=["c2", "c1"]), step("approve", pending=["c1"]))
    assert [r.rule for r in misused_approval(Case(scenario, engine, gone))] == []


def test_a_decision_the_engine_refused_that_a_killed_run_took_says_what_ran() -> None:
    """decision_after_kill: the engine refused the approval of c1 (not_pending, its run crashed); LangChain and LangGraph
    took it as a resume and ran c1 again. The reason says what ran and owns the step's and the run's status; with the
    step's entries taken away (nothing ran, c1 never waited) it is no longer this rule's."""
    from harness.runner_side.judge.rules.approval.asking import misused_approval

    case = _case("langgraph", "defaults", "decision_after_kill@write_landed")
    [reason] = misused_approval(case)
    assert reason.rule == "refused_decision_taken" and "refused_decision_taken" in consequences()
    assert "the engine refused it: not_pending" in reason.text and "killed at driver step 0 and not resumed since" in reason.text
    assert "c1 entered once" in reason.text
    assert ("step_statuses", "1") in _paths(reason) and ("status",) in _paths(reason)
    # with the step's entries taken away the decision still took the killed run on (its step ended completed); with the
    # step killed again as well, nothing went on: the decision answered no question of the framework's run
    idle = [replace(s, entered={}, executed={}, results=()) for s in steps_of(case.framework)]
    [taken] = misused_approval(_rebuilt(case, *idle))
    assert taken.rule == "refused_decision_taken" and "in driver step 1 nothing ran; driver step 1 ended completed" in taken.text
    crashed = [replace(s, status="crashed") if i == 1 else s for i, s in enumerate(idle)]
    assert [r.rule for r in misused_approval(_rebuilt(case, *crashed))] == ["decision_for_unasked_call"]


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
    from harness.runner_side.judge.rules.ends.run_ends import invalid_call_dropped

    case = _case("langchain", "defaults", "malformed_args_not_json")
    [reason] = invalid_call_dropped(case)
    assert "c1's arguments are not JSON" in reason.text and "asked the model for turn 1" in reason.text
    assert ("model", "calls_per_turn", "1") in _paths(reason) and ("model", "calls_per_turn", "2") in _paths(reason)
    assert {c.value for c in reason.claims if c.path[:2] == ("model", "calls_per_turn")} == {ABSENT}  # the requests never asked for them
    went_on = _with(case, requests=_requests({"0": 1, "1": 1}))
    assert list(invalid_call_dropped(went_on)) == []
    later_event = _with(case, requests=[*case.framework.requests, f"{case.framework.requests[-1]} assistant user"])  # a new event asks turn 1
    assert [r.rule for r in invalid_call_dropped(later_event)] == ["invalid_call_dropped"]
    answered = [replace(s, results=(("c1", "error"),)) for s in steps_of(case.framework)]
    assert list(invalid_call_dropped(_rebuilt(case, *answered))) == []


def test_a_schema_lost_in_the_declaration_and_one_rewritten_in_the_request_are_two_findings_that_follow_their_part() -> None:
    """LangChain's ``get_weather`` in ``wire_http_500_once``: the ``@tool`` object lost the registry's ``minLength``
    (``schema_lost_in_declaration``, claiming the ``declared`` part) and the request dropped the object's titles
    (``schema_rewritten``, claiming ``rewritten``). A request that sent the object as it is leaves only the first; an
    object that kept the registry's schema leaves only the second; a constraint the request states in a description
    adds ``constraint_moved_to_text``."""
    case = _case("langchain", "wire", "wire_http_500_once")
    found = {r.rule: r for r in reasons(case) if r.rule.startswith(("schema_", "constraint_"))}
    assert set(found) == {"schema_lost_in_declaration", "schema_rewritten"}
    assert _paths(found["schema_lost_in_declaration"]) == [("wire", "schema_diff", "get_weather", "declared")]
    assert _paths(found["schema_rewritten"]) == [("wire", "schema_diff", "get_weather", "rewritten")]
    assert "/properties/city/minLength" in found["schema_lost_in_declaration"].text

    def with_diff(diff: dict[str, Any]) -> Case:
        wire = case.framework.observables["wire"]
        observables = {**case.framework.observables, "wire": {**wire, "schema_diff": {**wire["schema_diff"], "get_weather": diff}}}
        return _with(case, observables=observables)

    diff = case.framework.observables["wire"]["schema_diff"]["get_weather"]
    assert {r.rule for r in reasons(with_diff({"declared": diff["declared"], "rewritten": {}})) if r.rule.startswith("schema_")} == {
        "schema_lost_in_declaration"}

    moved = {"dropped": ["/properties/city/minLength"], "added": ["/properties/city/description"], "moved_to_text": ["/properties/city/minLength"]}
    rules = {r.rule: r for r in reasons(with_diff({"declared": {}, "rewritten": moved})) if r.rule.startswith(("schema_", "constraint_"))}
    assert set(rules) == {"schema_rewritten", "constraint_moved_to_text"}
    assert rules["constraint_moved_to_text"].claims == (Claim(("wire", "schema_diff", "get_weather", "rewritten", "moved_to_text"), moved["moved_to_text"]),)


def test_a_tool_error_not_retried_counts_the_effects_of_the_entries_it_counts() -> None:
    """The framework entered the failed call once through the step its error ended, with no effect; a later step entered
    it again, with an effect: the sentence gives that effect to the later entries, not to the one it counts."""
    from harness.runner_side.judge.rules.tool_errors import tool_error_not_retried

    case = _case("pydantic_ai", "defaults", "retry_before_effect")
    [before] = list(tool_error_not_retried(case))
    assert "entered it once with no effect; the error ended the run at driver step 0" in before.text
    later = step("resume", entered={"c1": 1}, executed={"c1": 1}, effects={"c1": 1}, results=[("c1", "ok")])
    again = _rebuilt(case, *steps_of(case.framework), later)
    [after] = list(tool_error_not_retried(again))
    assert "entered it once with no effect through driver step 0 (2 executor entries and 1 effect in all)" in after.text, after.text


def test_a_framework_that_stops_running_tools_after_errors_in_a_row_is_said_so_only_at_its_own_limit() -> None:
    """Agent Framework's ``error_limit`` (3 model turns whose calls failed in a row) at work on ``flaky_tool_rate_50``:
    the next turn's call never ran. With a limit the run's failures do not reach, or no such constant, nothing is said."""
    from harness.runner_side.judge.rules.tool_errors import stopped_after_tool_errors

    case = _case("agent_framework", "defaults", "flaky_tool_rate_50")
    [said] = list(stopped_after_tool_errors(case))
    assert "the calls of 3 model turns in a row failed (turns 0 to 2: c1, c2, c3)" in said.text
    assert "asked the model for turn 3 once and ran none of that turn's calls: c4 never entered its tool" in said.text
    assert {c.path for c in said.claims} >= {("model", "calls_per_turn", "3"), ("side_effects", "c4")}
    higher = {**case.constants, "error_limit": {**case.constants["error_limit"], "value": 4}}
    assert not list(stopped_after_tool_errors(replace(case, constants=higher)))
    assert not list(stopped_after_tool_errors(replace(case, constants={k: v for k, v in case.constants.items() if k != "error_limit"})))


def test_a_rejection_the_framework_holds_with_its_turn_is_said_so_only_while_another_call_waits() -> None:
    """Agent Framework in contract mode, ``approval_misuse_other_call``: the rejection of c2 went to the framework, which no
    longer waited on c2 and gave it no result, because c1 of the same turn was still undecided. Once c2 is answered, or
    with nothing else left waiting, the rule says nothing."""
    from harness.runner_side.judge.rules.approval.decisions import decision_held_by_framework

    case = _case("agent_framework", "contract", "approval_misuse_other_call")
    [said] = list(decision_held_by_framework(case))
    assert "the reject of c2 at driver step 2 went to the framework" in said.text and "still waits for c1" in said.text
    assert [c.path for c in said.claims] == [("pre_approval_state", "undecided_at_end")]
    first, second, last = steps_of(case.framework)
    answered = _rebuilt(case, first, second, replace(last, results=[("c2", "rejected")]))
    assert not list(decision_held_by_framework(answered))
