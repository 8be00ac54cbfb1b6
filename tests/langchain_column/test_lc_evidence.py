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
# two_transfers_flaky_note_kill has a kill too (inside t2, after its effect), so defaults records it once per forced
# ordering (MAPPING.md: write order + sibling order). The flaky note's InjectedToolError ends a run in one of the four:
# under kill_first n1 had not started when the process died, and with the decisions' write landed the resume runs the
# whole batch again, where n1's failure is re-raised by ToolNode. Under write_held the resume asks for the decisions
# again and nothing runs; under siblings_first n1 failed before the kill, which ended the process first (and the
# injected failure fires once, so the resume's n1 succeeds).
FAILED_RUNS["two_transfers_flaky_note_kill@write_landed+kill_first"] = FAILED_RUNS.pop("two_transfers_flaky_note_kill")
# Both modes: a model turn whose arguments are JSON but not an object cannot become an AIMessage (tests/chat_model_parsing.py).
PARSE_FAILED = {"args_not_an_object": "ValidationError: 1 validation error for AIMessage"}
# Wire: defaults' own failures, and a failing model endpoint raising ChatOpenAI's errors out of the run (MAPPING.md, "Wire mode").
WIRE_FAILED = {
    "wire_bad_body": ["JSONDecodeError: Expecting value: line 1 column 1 (char 0)"],
    "wire_client_error": ["OpenAIInvalidRequestError: Error code: 400 - scripted status 400"],
    "wire_http_500_always": ["OpenAIAPIError: Error code: 500 - scripted status 500"] * 2,  # the run, and its resume
    "wire_unavailable_then_resume": ["OpenAIAPIError: Error code: 503 - scripted status 503"],
}
# mcp: the tools run in the runner's MCP server, whose injected failures come back as isError results the run goes on
# with; a lost answer is raised out of the run by the adapter's client (MAPPING.md, "Exceptions that end a run").
MCP_FAILED = {
    "mcp_reset_mid_call": ["MCPError: Connection closed"],
    "mcp_server_dies_after_effect": ["RemoteProtocolError: Server disconnected without sending a response."],
}


# contract cells that differ for what LangChain (LangGraph underneath) did, which no glue changes. Cell -> its rule.
FRAMEWORK_DID = {
    # a kill inside a call of a batch under @kill_first (MAPPING.md, "A kill inside one call of a batch"): the killed
    # call went before its approved sibling, so at the kill the approval was saved and not yet used, and the resume ran
    # the approved transfer (the engine ran it in the model's order, before the kill)
    ("kill_in_batch_after_approved@kill_first", "checkpoint_after_interrupt"): "resumed_differently",  # n1 killed before t1 ran
    ("misused_approval_kill_resume@kill_first", "checkpoint_after_interrupt"): "resumed_differently",  # m1 killed before t1 ran
    ("two_transfers_flaky_note_kill@kill_first", "checkpoint_after_interrupt"): "resumed_differently",  # t2 killed before t1, n1 ran
    # HumanInTheLoopMiddleware's rejection stays with the checkpoint that asked: after the restore of the pause saved
    # before it, the approval of t1 is answered with the same rejection and the transfer never runs; the contract keeps
    # no rejection under the call's key (probes/langchain/rejected_then_restored_approved.py)
    ("rejected_then_restored_approved", "idempotent_replay"): "rejection_kept_after_restore",
    ("rejected_then_restored_approved", "side_effects"): "rejection_kept_after_restore",
}


def _evidence() -> dict:
    return json.loads(EVIDENCE.read_text(encoding="utf-8"))


def test_only_the_explained_runs_fail() -> None:
    for mode, body in _evidence()["modes"].items():
        failed = {sid: [e["error"].splitlines()[0] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in body["scenarios"].items()}
        explained = {sid: [why] for sid, why in {**(FAILED_RUNS if mode not in ("contract", "mcp") else {}), **PARSE_FAILED}.items()}
        assert {sid: f for sid, f in failed.items() if f} == explained | {"wire": WIRE_FAILED, "mcp": MCP_FAILED}.get(mode, {}), mode


def test_contract_mode_differs_only_where_the_deduplication_is_glue_the_arguments_were_parsed_before_it_or_langchain_kept_its_own_state() -> None:
    """Besides the glue's deduplication and the arguments parsed before any glue: what LangChain's saved state did that
    no glue changes (an approval saved at a kill and used by the resume, a rejection kept with its checkpoint)."""
    scenarios = _evidence()["modes"]["contract"]["scenarios"]
    unequal = {(sid, name) for sid, s in scenarios.items() for name, c in s["columns"].items() if c["equal"] is False}
    replayed = {(sid, "idempotent_replay") for sid in (
        "duplicate_call_id", "duplicate_event", "redelivery_while_pending", "resume_same_state_twice",
        "kill_in_batch_after_approved@kill_first", "kill_in_batch_after_approved@siblings_first",  # the redelivered event: t1, n1 replayed by the glue
    )}
    held = {("approval_misuse_other_call", "pre_approval_state")}  # a rejection held until the turn's other call is decided
    assert unequal == replayed | held | set(PARSED_BEFORE_GLUE) | set(FRAMEWORK_DID)
    for cell, rule in PARSED_BEFORE_GLUE.items():
        assert rule in scenarios[cell[0]]["columns"][cell[1]]["rules"], cell
    for sid, name in replayed:
        assert "contract glue" in scenarios[sid]["columns"][name]["reason"]
        assert "deduplicated_by_glue" in scenarios[sid]["columns"][name]["rules"], (sid, name)
    for sid, name in held:
        assert scenarios[sid]["columns"][name]["rules"] == ["held_for_turn"]
    for cell, rule in FRAMEWORK_DID.items():
        assert rule in scenarios[cell[0]]["columns"][cell[1]]["rules"], (cell, scenarios[cell[0]]["columns"][cell[1]]["rules"])
    # batched HITL: the first decision of the turn is held for the second, and the held call is decided, not pending
    pauses = scenarios["decisions_out_of_order"]["columns"]["pre_approval_state"]["framework"]["pauses"]
    assert [[p["call_id"] for p in pause["pending"]] for pause in pauses] == [["c1", "c2"], ["c1"]]


def test_the_step_limit_create_agent_fixes_in_code_is_read_into_the_evidence_and_quoted() -> None:
    document = _evidence()
    limit = document["constants"]["step_limit"]
    assert limit["value"] == 9_999 and limit["ref"].startswith("langchain.agents.factory:create_agent(")  # langchain 1.5.2's literal
    texts = [r["text"] for r in document["modes"]["defaults"]["scenarios"]["step_bound"]["reasons"] if r["rule"] == "step_bound_not_enforced"]
    assert len(texts) == 1 and f"its own default bound is {limit['value']} (`{limit['ref']}`, read from the pinned environment)" in texts[0]
