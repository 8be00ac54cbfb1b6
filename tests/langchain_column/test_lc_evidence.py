"""The LangChain column end to end: its environment built from the lock, every scenario in both modes,
and the committed evidence (``evidence/langchain.json``) regenerated and checked."""

from __future__ import annotations

import json

from harness.columns import ROOT
from harness.scenarios import load_scenarios
from tests.chat_model_parsing import PARSED_BEFORE_GLUE

EVIDENCE = ROOT / "evidence" / "langchain.json"
# Defaults: the tool node's default error handling re-raises any tool exception that is not an
# argument-validation error, so an injected failure or timeout ends the run: the step's status is
# "error", a measured outcome (the adapter traces it as run_failed), not a failure to measure.
INJECTED = {
    "tool.raise_before_effect": "InjectedToolError: injected failure at tool.raise_before_effect",
    "tool.timeout_after_effect": "TimeoutError: injected timeout at tool.timeout_after_effect",
}
FAILED_RUNS = {s.id: INJECTED[f.point] for s in load_scenarios(ROOT / "scenarios") for f in s.faults if f.point in INJECTED}
# Both modes: a model turn whose arguments are JSON but not an object cannot become an AIMessage (tests/chat_model_parsing.py).
PARSE_FAILED = {"args_not_an_object": "ValidationError: 1 validation error for AIMessage"}
# Wire: defaults' own failures, and a failing model endpoint raising ChatOpenAI's errors out of the run (MAPPING.md, "Wire mode").
WIRE_FAILED = {
    "wire_bad_body": ["JSONDecodeError: Expecting value: line 1 column 1 (char 0)"],
    "wire_client_error": ["OpenAIInvalidRequestError: Error code: 400 - scripted status 400"],
    "wire_http_500_always": ["OpenAIAPIError: Error code: 500 - scripted status 500"] * 2,  # the run, and its resume
    "wire_unavailable_then_resume": ["OpenAIAPIError: Error code: 503 - scripted status 503"],
}


def _evidence() -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))


def test_only_the_explained_runs_fail() -> None:
    for mode, body in _evidence()["modes"].items():
        failed = {sid: [e["error"].splitlines()[0] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in body["scenarios"].items()}
        explained = {sid: [why] for sid, why in {**(FAILED_RUNS if mode != "contract" else {}), **PARSE_FAILED}.items()}
        assert {sid: f for sid, f in failed.items() if f} == explained | (WIRE_FAILED if mode == "wire" else {}), mode


def test_contract_mode_differs_only_where_the_deduplication_is_glue_or_the_arguments_were_parsed_before_it() -> None:
    scenarios = _evidence()["modes"]["contract"]["scenarios"]
    unequal = {(sid, name) for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    replayed = {(sid, "idempotent_replay") for sid in ("duplicate_call_id", "duplicate_event", "redelivery_while_pending", "resume_same_state_twice")}
    held = {("approval_misuse_other_call", "pre_approval_state")}  # a rejection held until the turn's other call is decided
    assert unequal == replayed | held | set(PARSED_BEFORE_GLUE)
    for cell, rule in PARSED_BEFORE_GLUE.items():
        assert rule in scenarios[cell[0]]["columns"][cell[1]]["rules"], cell
    for sid, name in replayed:
        assert "contract glue" in scenarios[sid]["columns"][name]["reason"]
    for sid, name in held:
        assert scenarios[sid]["columns"][name]["rules"] == ["held_for_turn"]
    # batched HITL: the first decision of the turn is held for the second, and the held call is decided, not pending
    pauses = scenarios["decisions_out_of_order"]["columns"]["pre_approval_state"]["framework"]["pauses"]
    assert [[p["call_id"] for p in pause["pending"]] for pause in pauses] == [["c1", "c2"], ["c1"]]


def test_the_step_limit_create_agent_fixes_in_code_is_read_into_the_evidence_and_quoted() -> None:
    document = _evidence()
    limit = document["constants"]["step_limit"]
    assert limit["value"] == 9_999 and limit["ref"].startswith("langchain.agents.factory:create_agent(")  # langchain 1.5.2's literal
    texts = [r["text"] for r in document["modes"]["defaults"]["scenarios"]["step_bound"]["reasons"] if r["rule"] == "step_bound_not_enforced"]
    assert len(texts) == 1 and f"its own default bound is {limit['value']} (`{limit['ref']}`, read from the pinned environment)" in texts[0]
