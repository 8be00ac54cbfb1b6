"""The LangGraph column end to end: the committed evidence is reproduced from the real, locked environment."""

from __future__ import annotations

import json

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
# Both modes: a model turn whose arguments are JSON but not an object cannot become an AIMessage (tests/chat_model_parsing.py).
PARSE_FAILED = {"args_not_an_object": "ValidationError: 1 validation error for AIMessage"}
# Wire: defaults' own failures, and a failing model endpoint raising ChatOpenAI's errors out of the run (MAPPING.md, "Wire mode").
WIRE_FAILED = {
    "wire_bad_body": ["JSONDecodeError: Expecting value: line 1 column 1 (char 0)"],
    "wire_client_error": ["OpenAIInvalidRequestError: Error code: 400 - scripted status 400"],
    "wire_http_500_always": ["OpenAIAPIError: Error code: 500 - scripted status 500"] * 2,  # the run, and its resume
    "wire_unavailable_then_resume": ["OpenAIAPIError: Error code: 503 - scripted status 503"],
}


def test_the_kill_scenarios_of_defaults_are_recorded_once_per_forced_ordering() -> None:
    """A kill inside the model or a tool races the asynchronous checkpoint write only in defaults (and in wire, which is
    defaults over HTTP): each such scenario is two deterministic sub-cases, one per schedule, and nothing else is split."""
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    reachable = ("model.kill_before_turn", "tool.kill_before_effect", "tool.kill_after_effect")
    kills = {s.id for s in load_scenarios(ROOT / "scenarios") if any(f.point in reachable for f in s.faults)}
    split = {mode: {key for key in body["scenarios"] if "@" in key} for mode, body in document["modes"].items()}
    forced = {f"{sid}@{schedule}" for sid in kills for schedule in ("write_held", "write_landed")}
    assert split == {"defaults": forced, "wire": forced, "contract": set()}
    assert not kills & (set(document["modes"]["defaults"]["scenarios"]) | set(document["modes"]["wire"]["scenarios"]))


def test_only_the_explained_runs_fail() -> None:
    document = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    for mode, body in document["modes"].items():
        failed = {sid: [e["error"].splitlines()[0] for e in s["trace"] if e["kind"] == "run_failed"] for sid, s in body["scenarios"].items()}
        explained = {sid: [why] for sid, why in {**(FAILED_RUNS if mode != "contract" else {}), **PARSE_FAILED}.items()}
        assert {sid: f for sid, f in failed.items() if f} == explained | (WIRE_FAILED if mode == "wire" else {}), mode


def test_contract_cells_are_equal_or_say_why() -> None:
    """Unequal in contract: the deduplication is the glue's, or the arguments were parsed before any glue saw them."""
    contract = json.loads(EVIDENCE.read_text(encoding="utf-8"))["modes"]["contract"]
    for sid, scenario in contract["scenarios"].items():
        for name, cell in scenario["columns"].items():
            if cell["equal"] is False and (sid, name) in PARSED_BEFORE_GLUE:
                assert PARSED_BEFORE_GLUE[sid, name] in cell["rules"], (sid, name, cell["rules"])
            elif cell["equal"] is False:
                assert "contract glue" in cell["reason"], (sid, name, cell["reason"])
