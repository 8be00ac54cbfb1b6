"""A tool result Pydantic AI delivered to the model is traced in the step that delivered it, once, in every mode, also
when the worker is killed before the history is saved (``defaults`` saves it only when a run returns) and when an
exception ends the run; a result Pydantic AI never sent (tools cut short by an exception) is not traced."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from adapters.pydantic_ai.column import PydanticAIColumn
from harness.column_side.driver import run_scenario
from harness.scenarios import Fault, Scenario

RUN = {"action": "run", "event_id": "e1"}


def results(tmp: Path, mode: str, script: list[Any], driver: list[Any], faults: tuple[Fault, ...]) -> list[tuple[str, bool, list[tuple[str, str]]]]:
    """Each step's status, whether it was killed, and the (call id, status) of the tool results it traced."""
    scenario = Scenario(
        id="probe", file="probe.json", description="", covers=(), tools=("transfer_funds", "get_weather"),
        session_id="sess-probe", user_input="Pay and look.", system_prompt=None, max_steps=8,
        model_script=tuple(script), driver=tuple(driver), faults=faults,
    )
    run = run_scenario(scenario, partial(PydanticAIColumn().perform, mode=mode), tmp / mode)
    return [(s.status, s.killed, [(e["call_id"], e["status"]) for e in s.trace if e["kind"] == "tool_result"]) for s in run.steps]


def transfer(cid: str) -> dict[str, Any]:
    return {"id": cid, "name": "transfer_funds", "arguments": {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}}


def weather(*cids: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": cid, "name": "get_weather", "arguments": {"city": "Paris"}} for cid in cids]}


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_rejection_sent_to_a_model_turn_the_process_dies_in(tmp_path: Path, mode: str) -> None:
    """The rejection of c1 goes to the model with turn 1, and the process dies as the model is asked for it
    (scenarios generated as gen_s11_0016): the rejection is step 1's result, and the resume does not trace it again."""
    steps = results(tmp_path, mode, [{"tool_calls": [transfer("c1")]}, {"text": "Not paid."}],
                    [RUN, {"action": "reject", "call_id": "c1", "reason": "no"}, {"action": "resume"}],
                    (Fault("model.kill_before_turn", turn=1),))
    assert steps[0] == ("awaiting_approval", False, [])
    assert steps[1] == ("crashed", True, [("c1", "rejected")])
    assert steps[2][2] == []  # contract resumes the saved history; defaults has nothing saved past the pause


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_result_sent_to_a_model_turn_the_process_dies_in(tmp_path: Path, mode: str) -> None:
    steps = results(tmp_path, mode, [weather("w1"), weather("w2"), {"text": "done"}], [RUN],
                    (Fault("model.kill_before_turn", turn=1),))
    assert steps == [("crashed", True, [("w1", "ok")])]


@pytest.mark.parametrize("mode", ["defaults", "contract"])
def test_a_kill_inside_a_tool_keeps_the_results_sent_before_it(tmp_path: Path, mode: str) -> None:
    """Turn 0's w1 reached the model with turn 1; the process dies in turn 1's w2, whose result nobody sent."""
    steps = results(tmp_path, mode, [weather("w1"), weather("w2"), {"text": "done"}], [RUN],
                    (Fault("tool.kill_before_effect", call_id="w2"),))
    assert steps == [("crashed", True, [("w1", "ok")])]


def test_an_exception_that_ends_the_run_keeps_the_results_sent_before_it(tmp_path: Path) -> None:
    """Defaults: w1's result reached the model with turn 1; turn 1's w3 raises, which ends the run (MAPPING.md,
    "Exceptions that end a run"). w1 was delivered; w2, done before w3 raised, is in the request Pydantic AI marks
    ``interrupted``, never sent."""
    steps = results(tmp_path, "defaults", [weather("w1"), weather("w2", "w3"), {"text": "done"}], [RUN],
                    (Fault("tool.raise_before_effect", call_id="w3"),))
    assert steps == [("error", False, [("w1", "ok")])]
