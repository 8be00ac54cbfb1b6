"""The LangGraph column end to end: the committed evidence is reproduced from the real, locked environment."""

from __future__ import annotations

import json

from harness.column_side.fixtures.sibling_order import killed_siblings
from harness.columns import ROOT
from harness.scenarios import load_scenarios
from tests.chat_model_parsing import PARSED_BEFORE_GLUE

EVIDENCE = ROOT / "evidence" / "langgraph.json"
# Defaults: the tool node's default error handling re-raises any tool exception that is not an
# argument-validation error, so an injected failure or timeout ends the run: the step's status is
# "error", a measured outcome (the adapter traces it as run_failed), not a failure to measure.
INJECTED = {
    "tool.raise_before_effect": "InjectedToolError: injected failure at tool.raise_before_effect",
    "tool.timeout_after_effect": "TimeoutError: injected timeout at tool.timeout_after_effect",
}
FAILED_RUNS = {s.id: INJECTED[f.point] for s in load_scenarios(ROOT / "scenarios") for f in s.faults if f.point in INJECTED}
# two_transfers_flaky_note_kill has a kill too (inside t2, after its effect), so it is recorded once per forced ordering
# (test below). The flaky note's InjectedToolError ends a run under kill_first, with either write order: n1 had not
# started when the process died, and the approvals were saved with the approval tasks' writes (older than the
# super-step a write order holds back), so the resume runs the whole batch again and ToolNode re-raises n1's failure
# (MAPPING.md's `harness.fixture_tools.InjectedToolError` row). Under siblings_first n1 failed before the kill, which ended
# the process first (and the injected failure fires once, so the resume's n1 succeeds).
_FLAKY_AND_KILLED = FAILED_RUNS.pop("two_transfers_flaky_note_kill")
FAILED_RUNS |= {f"two_transfers_flaky_note_kill@{write}+kill_first": _FLAKY_AND_KILLED for write in ("write_held", "write_landed")}
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
# with; a cut answer is raised out of the run by langchain-mcp-adapters (a server that died leaves the step stalled:
# MAPPING.md, "Exceptions that end a run").
MCP_FAILED = {"mcp_reset_mid_call": ["McpError: Connection closed"]}


REACHABLE_KILLS = ("model.kill_before_turn", "tool.kill_before_effect", "tool.kill_after_effect")
# the committed scenarios whose tool kill shares its turn with other calls (harness.column_side.fixtures.sibling_order): the
# killed call -> its siblings
BATCH_KILLS = {
    "kill_in_batch_after_approved": {"n1": {"t1"}},  # the note dies beside the approved transfer
    "misused_approval_kill_resume": {"m1": {"t1"}},  # the email dies beside the approved transfer
    "two_transfers_flaky_note_kill": {"t2": {"b1", "n1", "t1"}},  # the second transfer dies beside the read, the note, the first
}
WRITE_ORDERS, SIBLING_ORDERS = ("write_held", "write_landed"), ("siblings_first", "kill_first")


def test_kill_scenarios_are_recorded_once_per_forced_write_order_in_defaults_and_once_per_sibling_order_in_every_mode() -> None:
    """Two races, each forced into deterministic sub-cases ``<scenario>@<schedule>`` (MAPPING.md, "Durability and forced
    write orders", "A kill inside one call of a batch"), and nothing else is split:

    - a kill inside the model or a tool races the asynchronous checkpoint write only in defaults (and in wire, which is
      defaults over HTTP): ``write_held`` / ``write_landed``;
    - a kill inside one call of a batch races the batch's other calls, which ``ToolNode`` runs in threads, in every mode
      (contract's ``durability="sync"`` does not order them): ``siblings_first`` / ``kill_first``, combined with the
      write orders in defaults and wire (``write_held+kill_first``, ...).

    A wire scenario (a fault of the model's endpoint) is played in wire only: wire_faults_around_pause's kill is split
    there by write order alone (its transfer is the only call of its turn)."""
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    scenarios = load_scenarios(ROOT / "scenarios")
    kills = {s.id: s.uses_wire for s in scenarios if any(f.point in REACHABLE_KILLS for f in s.faults)}
    assert {s.id: killed_siblings(s) for s in scenarios if killed_siblings(s)} == BATCH_KILLS
    assert set(BATCH_KILLS) <= set(kills)

    def forced(sid: str, writes: tuple[str, ...]) -> set[str]:
        siblings = SIBLING_ORDERS if sid in BATCH_KILLS else ()
        orders = [f"{w}+{o}" for w in writes for o in siblings] if writes and siblings else [*writes, *siblings]
        return {f"{sid}@{order}" for order in orders}

    expected = {
        "defaults": set().union(*(forced(sid, WRITE_ORDERS) for sid, wire in kills.items() if not wire)),
        "wire": set().union(*(forced(sid, WRITE_ORDERS) for sid in kills)),
        "contract": set().union(*(forced(sid, ()) for sid in BATCH_KILLS)),
        "mcp": set(),  # one ordering pinned, no split (session.WritesAtHandOver; the MCP server's order of a turn's calls)
    }
    split = {mode: {key for key in body["scenarios"] if "@" in key} for mode, body in document["modes"].items()}
    assert split == expected
    for mode, body in document["modes"].items():  # a split scenario has no unsplit record
        assert not {sid for sid in {"contract": BATCH_KILLS, "mcp": ()}.get(mode, kills)} & set(body["scenarios"]), mode
        for key, scenario in body["scenarios"].items():
            assert scenario["schedule"] == (key.split("@", 1)[1] if "@" in key else None), (mode, key)


def test_only_the_explained_runs_fail() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    for mode, body in document["modes"].items():
        failed = {sid: [e["error"].splitlines()[0] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in body["scenarios"].items()}
        explained = {sid: [why] for sid, why in {**(FAILED_RUNS if mode not in ("contract", "mcp") else {}), **PARSE_FAILED}.items()}
        assert {sid: f for sid, f in failed.items() if f} == explained | {"wire": WIRE_FAILED, "mcp": MCP_FAILED}.get(mode, {}), mode


# contract cells that differ for what LangGraph did, which no glue changes. Cell -> its rule.
FRAMEWORK_DID = {
    # a kill inside a call of a batch under @kill_first: the killed call went before its approved sibling, so at the
    # kill the approval was saved (the approval task's writes) and not yet used, and the resume ran the approved
    # transfer (the engine ran it in the model's order, before the kill)
    ("kill_in_batch_after_approved@kill_first", "checkpoint_after_interrupt"): "resumed_differently",  # n1 killed before t1 ran
    ("misused_approval_kill_resume@kill_first", "checkpoint_after_interrupt"): "resumed_differently",  # m1 killed before t1 ran
    ("two_transfers_flaky_note_kill@kill_first", "checkpoint_after_interrupt"): "resumed_differently",  # t2 killed before t1, n1 ran
    # the killed batch's ToolNode task left no writes (ToolNode runs the turn's calls in one task), so the resume runs
    # it again: the read b1, which ran before the kill under @siblings_first, runs again (the glue replays the writes)
    ("two_transfers_flaky_note_kill@siblings_first", "side_effects"): "executed_again",
    # t1's result never reached the model: ToolNode's task returns the batch's results together, and neither the killed
    # run nor the resume, which stopped at n1's reconcile, finished it (the engine delivered t1's result before the
    # kill); the redelivered event is refused by the glue (deduplicated_by_glue, as every idempotent_replay cell here)
    ("kill_in_batch_after_approved@kill_first", "idempotent_replay"): "results_differ",
    ("kill_in_batch_after_approved@siblings_first", "idempotent_replay"): "results_differ",
    # the rejection stays with the checkpoint that asked: after the restore of the pause saved before it, the approval
    # of t1 is answered with the same rejection and the transfer never runs; the contract keeps no rejection under the
    # call's key (probes/langgraph/rejected_then_restored_approved.py)
    ("rejected_then_restored_approved", "idempotent_replay"): "rejection_kept_after_restore",
    ("rejected_then_restored_approved", "side_effects"): "rejection_kept_after_restore",
}
GLUE_DEDUP = {(sid, "idempotent_replay") for sid in ("duplicate_call_id", "duplicate_event", "redelivery_while_pending", "resume_same_state_twice")}


def test_contract_cells_are_equal_or_say_why() -> None:
    """Unequal in contract: the deduplication is the glue's, the arguments were parsed before any glue saw them, or a
    rule says what LangGraph did that the glue does not change (``FRAMEWORK_DID``); exactly those cells."""
    contract = json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"]["contract"]
    unequal = {(sid, name): cell for sid, scenario in contract["scenarios"].items() for name, cell in scenario["columns"].items() if cell["equal"] is False}
    assert set(unequal) == set(PARSED_BEFORE_GLUE) | set(FRAMEWORK_DID) | GLUE_DEDUP
    for (sid, name), cell in unequal.items():
        if (sid, name) in PARSED_BEFORE_GLUE:
            assert PARSED_BEFORE_GLUE[sid, name] in cell["rules"], (sid, name, cell["rules"])
        elif (sid, name) in FRAMEWORK_DID:
            assert FRAMEWORK_DID[sid, name] in cell["rules"], (sid, name, cell["rules"])
        else:
            assert "contract glue" in cell["reason"], (sid, name, cell["reason"])
        if name == "idempotent_replay":  # whatever else differs, the deduplication is the glue's
            assert "deduplicated_by_glue" in cell["rules"], (sid, name, cell["rules"])
